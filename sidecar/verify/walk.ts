import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fsProblem } from '../../core/cli.js';
import { insideRoot } from './files.js';
import { gitignoreRules, ignored, matchesAny, type Rule } from './glob.js';
import { LANGUAGES, UsageError, type Kind } from './items.js';

/**
 * The files `proofgate verify KIND PATH…` reads. A named file is read as named; a directory is
 * walked in name order, depth first, within bounds: at most `maxFiles` files, `MAX_DEPTH` levels.
 * `.git` and `node_modules` are never entered, `.gitignore` files between the root and each file
 * apply (the common subset: see glob.ts), then --exclude, then --include (or, without it, the
 * kind's extensions). Symbolic links met while walking are not followed into directories (a loop,
 * or a second walk of what is walked anyway); a link to a file is read only when its target lies
 * inside the root — one leading out is listed as not read and denies the run, as a named one does.
 */
export interface Target {
  /** as the user will read it: the argument, then the path below it */
  file: string;
  /** the real path to read, or null when it resolves outside the root (denied, not read) */
  real: string | null;
}

export interface WalkOptions {
  kind: Kind;
  /** the root's realpath */
  root: string;
  include: Rule[];
  exclude: Rule[];
  language?: string;
  maxFiles: number;
}

const SKIPPED_DIRS = new Set(['.git', 'node_modules']);
const MAX_DEPTH = 64;

function kindExtensions(kind: Kind, language?: string): string[] {
  if (kind === 'sql') return ['.sql'];
  if (kind === 'math') return ['.math'];
  return Object.entries(LANGUAGES)
    .filter(([, l]) => !language || l === language)
    .map(([ext]) => ext);
}

const posix = (p: string) => p.split(sep).join('/');

/** .gitignore rules of each directory from the root down to `dir` (both included). */
function ancestorRules(root: string, dir: string): Rule[] {
  const rules: Rule[] = [];
  const parts = posix(relative(root, dir)).split('/').filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const base = parts.slice(0, i).join('/');
    const file = join(root, ...parts.slice(0, i), '.gitignore');
    if (existsSync(file)) rules.push(...gitignoreRules(readFileSync(file, 'utf8'), base));
  }
  return rules;
}

export function expandTargets(args: readonly string[], o: WalkOptions): Target[] {
  const out: Target[] = [];
  const extensions = kindExtensions(o.kind, o.language);
  const wanted = (rel: string) => (o.include.length ? matchesAny(o.include, rel) : extensions.some((e) => rel.toLowerCase().endsWith(e)));
  const add = (t: Target) => {
    out.push(t);
    if (out.length > o.maxFiles) {
      throw new UsageError(`more than ${o.maxFiles} files to verify: narrow the run with --include/--exclude (or a .gitignore), or raise --max-files`);
    }
  };
  for (const arg of args) {
    let real: string | null;
    try {
      real = insideRoot(o.root, arg);
    } catch (err) {
      throw new UsageError(fsProblem(err, arg, 'file'));
    }
    if (real === null || !statSync(real).isDirectory()) {
      add({ file: arg, real });
      continue;
    }
    const rules = ancestorRules(o.root, real);
    const walk = (dir: string, shown: string, depth: number) => {
      if (depth > MAX_DEPTH) throw new UsageError(`${shown} is more than ${MAX_DEPTH} directories deep: name a shallower directory`);
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      } catch (err) {
        throw new UsageError(fsProblem(err, shown, 'directory'));
      }
      for (const e of entries) {
        if (SKIPPED_DIRS.has(e.name)) continue;
        const path = join(dir, e.name);
        const rel = posix(relative(o.root, path));
        const display = `${shown.replace(/\/+$/, '')}/${e.name}`;
        if (e.isDirectory()) {
          if (ignored(rules, rel, true) || matchesAny(o.exclude, rel)) continue;
          const own = join(path, '.gitignore');
          if (existsSync(own)) rules.push(...gitignoreRules(readFileSync(own, 'utf8'), rel));
          walk(path, display, depth + 1);
          continue;
        }
        if (!e.isFile() && !e.isSymbolicLink()) continue; // sockets, FIFOs, devices
        if (ignored(rules, rel, false) || matchesAny(o.exclude, rel) || !wanted(rel)) continue;
        if (e.isSymbolicLink()) {
          let target: string;
          try {
            target = realpathSync(path);
          } catch {
            continue; // a dangling link names no content
          }
          const inside = insideRoot(o.root, target);
          if (inside && statSync(inside).isDirectory()) continue;
          add({ file: display, real: inside });
          continue;
        }
        add({ file: display, real: path });
      }
    };
    walk(real, arg, 0);
  }
  return out;
}
