import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { sourceFiles } from './sources.js';

/**
 * Reads a plugins/ tree as source text and reports where one plugin reaches into another past its
 * index.ts: an import of another plugin's non-index file, or a store call on a collection another
 * plugin owns. A plugin is a directory under plugins/ (under plugins/engines/ for engines).
 */
export interface SeamViolation {
  file: string;
  kind: 'import' | 'collection' | 'settings';
  detail: string;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?([^'";]*?)\s*from\s+['"](\.[^'"]+)['"]/g;
/** a const that names collections: FOO_COLLECTION = 'x' or FOO_COLLECTIONS = { a: 'x', … } */
const COLLECTION_CONST = /\b[A-Z_]*COLLECTIONS?\s*=\s*(\{[^}]*\}|'[^']*'|"[^"]*")/g;
/** a store call naming its collection by a literal: collection<T>('x'), { collection: 'x' } */
const COLLECTION_LITERAL = /(?:\bcollection\s*(?:<[^>()]*>)?\s*\(|\bcollection\s*:)\s*['"]([^'"]+)['"]/g;
/** a store call naming its collection by an identifier: collection<T>(NAME…), { collection: NAME… } */
const COLLECTION_IDENT = /(?:\bcollection\s*(?:<[^>()]*>)?\s*\(|\bcollection\s*:)\s*([A-Za-z_$][\w$]*)/g;
const LOCAL_STRING = /\bconst\s+([A-Za-z_$][\w$]*)\s*(?::\s*string\s*)?=\s*(?:'([^'\\\n]*)'|"([^"\\\n]*)")/g;
const STRING = /'([^'\\\n]*)'|"([^"\\\n]*)"/g;

/** the plugin a file belongs to, relative to the plugins/ root: `audit`, `engines/math` */
export function ownerOf(pluginsRoot: string, file: string): string {
  const parts = relative(pluginsRoot, file).split(sep);
  return parts[0] === 'engines' ? `engines/${parts[1]}` : parts[0];
}

function resolveImport(from: string, spec: string): string {
  const target = resolve(dirname(from), spec);
  const ts = target.replace(/\.js$/, '.ts');
  return existsSync(ts) ? ts : target;
}

function declaredNames(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(COLLECTION_CONST)) for (const s of m[1].matchAll(STRING)) names.push(s[1] ?? s[2]);
  return names;
}

/**
 * Every collection name a plugin declares (a *_COLLECTION(S) constant), with its owner; a name
 * only ever passed as a literal to a store call belongs to the plugin that does so.
 */
export function collectionOwners(pluginsRoot: string): Map<string, string> {
  const owners = new Map<string, string>();
  const files = sourceFiles(pluginsRoot).map((f) => ({ owner: ownerOf(pluginsRoot, f), text: readFileSync(f, 'utf8') }));
  for (const { owner, text } of files) for (const n of declaredNames(text)) if (!owners.has(n)) owners.set(n, owner);
  for (const { owner, text } of files) for (const m of text.matchAll(COLLECTION_LITERAL)) if (!owners.has(m[1])) owners.set(m[1], owner);
  return owners;
}

export function seamViolations(pluginsRoot: string): SeamViolation[] {
  const owners = collectionOwners(pluginsRoot);
  const out: SeamViolation[] = [];
  for (const f of sourceFiles(pluginsRoot)) {
    const text = readFileSync(f, 'utf8');
    const owner = ownerOf(pluginsRoot, f);
    const file = relative(pluginsRoot, f);
    /** local name → the plugin it was imported from (another plugin's index) */
    const foreign = new Map<string, string>();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(f, m[2]);
      if (!target.startsWith(pluginsRoot + sep)) continue;
      const other = ownerOf(pluginsRoot, target);
      if (other === owner) continue;
      const index = join(pluginsRoot, other, 'index');
      if (target !== `${index}.ts` && target !== `${index}.mjs` && target !== `${index}.js`) {
        out.push({ file, kind: 'import', detail: `imports ${relative(pluginsRoot, target)}, not ${other}/index` });
      }
      for (const name of m[1].replace(/^type\s+/, '').replace(/[{}]/g, '').split(',')) {
        const local = name.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop();
        if (local) foreign.set(local, other);
      }
    }
    const foreignName = (name: string) => {
      const o = owners.get(name);
      return o !== undefined && o !== owner ? o : undefined;
    };
    for (const n of declaredNames(text)) {
      const o = foreignName(n);
      if (o) out.push({ file, kind: 'collection', detail: `declares ${o}'s collection '${n}'` });
    }
    for (const m of text.matchAll(COLLECTION_LITERAL)) {
      const o = foreignName(m[1]);
      if (o) out.push({ file, kind: 'collection', detail: `names ${o}'s collection '${m[1]}'` });
    }
    /** this file's own string constants, so a foreign name cannot hide behind a local alias */
    const locals = new Map<string, string>();
    for (const m of text.matchAll(LOCAL_STRING)) locals.set(m[1], m[2] ?? m[3]);
    for (const m of text.matchAll(COLLECTION_IDENT)) {
      const o = foreign.get(m[1]);
      if (o !== undefined) out.push({ file, kind: 'collection', detail: `store call on ${m[1]}, a collection of ${o}` });
      const value = locals.get(m[1]);
      const v = value === undefined ? undefined : foreignName(value);
      if (v) out.push({ file, kind: 'collection', detail: `store call on ${m[1]} = '${value}', a collection of ${v}` });
    }
  }
  return out;
}

/** a read of a configuration section: app.config.x, app.config?.x, app.config['x'], Config['x'] */
const CONFIG_READ = /\bapp\.config\??\.(?:\[\s*['"])?([A-Za-z_$][\w$]*)|\bConfig\[\s*['"]([A-Za-z_$][\w$]*)['"]\s*\]/g;
/** app.settings(X): X must be the plugin's own declaration */
const SETTINGS_READ = /\.settings\s*(?:<[^>()]*>)?\s*\(\s*([A-Za-z_$][\w$]*)\s*\)/g;
/** defineSettings<T>('at', …) */
const SETTINGS_AT = /\bdefineSettings\s*(?:<[^>()]*>)?\s*\(\s*['"]([^'"]+)['"]/g;
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:'"`])\/\/[^\n]*/g;

/**
 * Where a plugin reads settings that are not its own declared ones: a section of the configuration
 * the kernel's schema does not define (another plugin's, or one nobody declares), plugin_config
 * through a cast, another plugin's settings declaration; and where two plugins declare settings at
 * one place, or at a section the kernel defines. `kernelSections`: config/kernel.schema.json's keys.
 */
export function settingsViolations(pluginsRoot: string, kernelSections: ReadonlySet<string>): SeamViolation[] {
  const out: SeamViolation[] = [];
  const declaredAt = new Map<string, string>();
  for (const f of sourceFiles(pluginsRoot)) {
    const text = readFileSync(f, 'utf8').replace(COMMENT, '');
    const owner = ownerOf(pluginsRoot, f);
    const file = relative(pluginsRoot, f);
    for (const m of text.matchAll(CONFIG_READ)) {
      const key = m[1] ?? m[2];
      if (key === 'plugin_config') out.push({ file, kind: 'settings', detail: 'reads plugin_config directly, not its own settings through app.settings()' });
      else if (!kernelSections.has(key)) out.push({ file, kind: 'settings', detail: `reads config.${key}, which the kernel's schema does not define` });
    }
    const foreign = new Map<string, string>();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(f, m[2]);
      if (!target.startsWith(pluginsRoot + sep)) continue;
      const other = ownerOf(pluginsRoot, target);
      if (other === owner) continue;
      for (const name of m[1].replace(/^type\s+/, '').replace(/[{}]/g, '').split(',')) {
        const local = name.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop();
        if (local) foreign.set(local, other);
      }
    }
    for (const m of text.matchAll(SETTINGS_READ)) {
      const o = foreign.get(m[1]);
      if (o !== undefined) out.push({ file, kind: 'settings', detail: `reads ${o}'s settings (${m[1]})` });
    }
    for (const m of text.matchAll(SETTINGS_AT)) {
      const at = m[1];
      const other = declaredAt.get(at);
      if (other !== undefined && other !== owner) out.push({ file, kind: 'settings', detail: `declares the settings ${at}, which ${other} declares too` });
      else declaredAt.set(at, owner);
      if (kernelSections.has(at)) out.push({ file, kind: 'settings', detail: `declares the settings ${at}, which the kernel defines` });
    }
  }
  return out;
}
