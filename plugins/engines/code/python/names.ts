/** How module and attribute names are spelled canonically, so aliases of one module compare equal. */

/** Qualified-name prefixes that mean the same module (aliases of the stdlib's implementation modules). */
const MODULE_ALIASES: Array<[string, string]> = [
  ['__builtins__', 'builtins'],
  ['posix', 'os'],
  ['nt', 'os'],
  ['cPickle', 'pickle'],
  ['_pickle', 'pickle'],
  ['commands', 'subprocess'],
  ['_posixsubprocess', 'subprocess'],
  ['posixpath', 'os.path'],
  ['ntpath', 'os.path'],
];

// identifiers are normalised in one place (literals.ts, the lowest module of the folder)
export { ident } from './literals.js';

/**
 * Standard modules that `import os` at their top, so `os.path.os`, `shutil.os`, … are the os module
 * itself (`import os.path as p; p.os.system(c)`).
 */
const REEXPORTS_OS = /^(?:os\.path|posixpath|ntpath|genericpath|shutil|subprocess|pty|tempfile|glob|pathlib|platform|site|pkgutil|logging|shlex|uuid|webbrowser|zipfile|tarfile|multiprocessing|socket|ctypes\.util)\.os(?=\.|$)/;

export function canonical(q: string): string {
  let out = q.replace(REEXPORTS_OS, 'os');
  for (const [from, to] of MODULE_ALIASES) {
    if (out === from || out.startsWith(from + '.')) {
      out = to + out.slice(from.length);
      break;
    }
  }
  // builtins.eval is eval; builtins.__dict__ stays qualified
  const rest = out.slice(9);
  if (out.startsWith('builtins.') && rest !== '__dict__' && !rest.includes('.') && !rest.includes('(')) return rest;
  return out;
}

