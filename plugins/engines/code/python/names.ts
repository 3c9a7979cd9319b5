/** How module and attribute names are spelled canonically, so aliases of one module compare equal. */

/** Module names that mean the same module (aliases of the stdlib's implementation modules). */
const MODULE_ALIASES = new Map<string, string>([
  ['__builtins__', 'builtins'],
  ['posix', 'os'],
  ['nt', 'os'],
  ['cPickle', 'pickle'],
  ['_pickle', 'pickle'],
  ['commands', 'subprocess'],
  ['_posixsubprocess', 'subprocess'],
  ['posixpath', 'os.path'],
  ['ntpath', 'os.path'],
]);
/** Every module alias the canonical spelling maps. */
export const MODULE_ALIAS_NAMES: readonly string[] = [...MODULE_ALIASES.keys()];

/** The module an alias spells (`posix` → `os`), or undefined: canonical() of a single identifier. */
export function moduleAlias(name: string): string | undefined {
  return MODULE_ALIASES.get(name)?.split('.')[0];
}

/** setuptools vendors distutils, and installs it as `distutils` where the stdlib has none (3.12+). */
const VENDORED_DISTUTILS = /^setuptools\._distutils(?=\.|$)/;

// identifiers are normalised in one place (literals.ts, the lowest module of the folder)
export { ident } from './literals.js';

/**
 * Standard modules that `import os` at their top, so `os.path.os`, `shutil.os`, … are the os module
 * itself (`import os.path as p; p.os.system(c)`).
 */
const REEXPORTS_OS = /^(?:os\.path|posixpath|ntpath|genericpath|shutil|subprocess|pty|tempfile|glob|pathlib|platform|site|pkgutil|logging|shlex|uuid|webbrowser|zipfile|tarfile|multiprocessing|socket|ctypes\.util)\.os(?=\.|$)/;

function step(q: string): string {
  let out = q.includes('.os') ? q.replace(REEXPORTS_OS, 'os') : q;
  if (out.startsWith('setuptools._distutils')) out = out.replace(VENDORED_DISTUTILS, 'distutils');
  const dot = out.indexOf('.');
  const to = MODULE_ALIASES.get(dot < 0 ? out : out.slice(0, dot));
  if (to !== undefined) out = to + (dot < 0 ? '' : out.slice(dot));
  // builtins.eval is eval; builtins.__dict__ stays qualified
  const rest = out.slice(9);
  if (out.startsWith('builtins.') && rest !== '__dict__' && !rest.includes('.') && !rest.includes('(')) return rest;
  return out;
}

/**
 * The canonical spelling of a qualified name, applied until nothing changes (`builtins.posix` →
 * `posix` → `os`), so canonical names are fixed points: a resolved set can be handed on without
 * canonicalising its members again.
 */
export function canonical(q: string): string {
  let out = q;
  for (let i = 0; i < 8; i++) {
    const next = step(out);
    if (next === out) return out;
    out = next;
  }
  return out;
}
