/**
 * The glob subset `proofgate verify` reads in --include/--exclude and .gitignore files: `*` (any
 * characters but `/`), `?` (one), `[…]` classes, `**` (any number of whole directories). A pattern
 * without a `/` (other than a trailing one) matches a name at any depth, as in .gitignore; one with
 * a `/` is anchored at the directory it belongs to. Paths are relative, `/`-separated.
 */
export interface Rule {
  re: RegExp;
  negated: boolean;
  /** a trailing `/`: directories only */
  dirOnly: boolean;
}

function body(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` any directories (none included), `/**` everything below, a lone `**` anything
        const slashAfter = glob[i + 2] === '/';
        out += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        const cls = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        out += `[${cls}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < glob.length) out += `\\${glob[++i]}`;
    else out += /[.+^${}()|\]\\/]/.test(c) ? `\\${c}` : c;
  }
  return out;
}

/** One pattern as a rule; `base` is the directory (relative, '' for the top) it is anchored at. */
export function rule(pattern: string, base = ''): Rule | null {
  let p = pattern;
  const negated = p.startsWith('!');
  if (negated) p = p.slice(1);
  const dirOnly = p.endsWith('/');
  if (dirOnly) p = p.replace(/\/+$/, '');
  if (!p) return null;
  const anchored = p.includes('/');
  p = p.replace(/^\/+/, '');
  const prefix = base ? `${body(base)}/` : '';
  const re = new RegExp(`^${prefix}${anchored ? '' : '(?:.*/)?'}${body(p)}$`);
  return { re, negated, dirOnly };
}

/** The rules of a .gitignore text (comments, blank lines and trailing spaces ignored). */
export function gitignoreRules(text: string, base: string): Rule[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/(?<!\\)\s+$/, ''))
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => rule(l, base))
    .filter((r): r is Rule => r !== null);
}

/** Whether `path` (a directory when `isDir`) is ignored: the last rule that matches decides. */
export function ignored(rules: readonly Rule[], path: string, isDir: boolean): boolean {
  let out = false;
  for (const r of rules) {
    if (r.dirOnly && !isDir) continue;
    if (r.re.test(path)) out = !r.negated;
  }
  return out;
}

/** Whether any of `patterns` matches `path` (a file). */
export function matchesAny(patterns: readonly Rule[], path: string): boolean {
  return patterns.some((r) => r.re.test(path));
}
