/**
 * What the tree proves about a path: its constant end (`os.path.join(d, 'gen.py')` ends in
 * `gen.py`, `f'{d}/x.pth'` in `/x.pth`), and whether that end starts at a path component, so its
 * last component is a whole file name. Shared by the Python and JavaScript "written, then run" rules.
 */
export interface PathTail {
  text: string;
  /** `text` starts at a component boundary (a whole value, a join's last part, the right of `/`) */
  whole: boolean;
}

/** The file name the tail proves, or null when its last component may be longer than what is known. */
export function baseName(t: PathTail): string | null {
  const parts = t.text.split(/[\\/]/);
  return t.whole || parts.length > 1 ? (parts.pop() as string) : null;
}

/** Python's site module runs `.pth` lines that start with `import` and imports sitecustomize/usercustomize at every start. */
export function isPythonStartupFile(t: PathTail): boolean {
  const base = baseName(t);
  return /\.pth$/i.test(t.text) || base === 'sitecustomize.py' || base === 'usercustomize.py';
}

/** A module name a file of this path can be imported as (`pkg/gen.py` → gen, `pkg/__init__.py` → pkg), for Python. */
export function pythonModuleName(t: PathTail): string | null {
  const base = baseName(t);
  if (base === null || !/\.py$/i.test(base)) return null;
  if (base !== '__init__.py') return base.slice(0, -3);
  const parts = t.text.split(/[\\/]/);
  return parts.length > 2 || (t.whole && parts.length > 1) ? parts[parts.length - 2] : null;
}

/** The name a JavaScript file is loaded by, without its extension (`./gen.mjs` and `/tmp/gen.js` → gen); data files (JSON) are not code. */
export function scriptStem(t: PathTail): string | null {
  const base = baseName(t);
  if (base === null || base === '' || /\.(json|txt|md|csv|html?)$/i.test(base)) return null;
  return base.replace(/\.(c|m)?[jt]sx?$/i, '');
}
