import { type PyNode, field, namedChildren } from './parser.js';
import { positionalArgs } from './args.js';
import { MAX_FOLD, b64decode, ident, intValue, rot13, stringParts, utf8Decode } from './literals.js';

/** What folding needs of the resolver (resolve.ts), declared here so the two files do not import each other. */
export interface Folder {
  fold(node: PyNode, depth: number): string | null;
  qualify(node: PyNode, depth: number): string[];
}

/**
 * Constant folding of calls that only rearrange constants: `''.join([...])`, `chr(101)`,
 * `base64.b64decode('...')`, `codecs.decode(s, 'rot13')`, `.decode()`, … These are the usual ways
 * to spell a name without writing it; anything else is left computed (null).
 */
export function foldCall(r: Folder, node: PyNode, depth: number): string | null {
  const fn = field(node, 'function') as PyNode;
  const args = positionalArgs(node);
  if (fn.type === 'attribute') {
    const method = ident((field(fn, 'attribute') as PyNode).text);
    const obj = field(fn, 'object') as PyNode;
    if (method === 'join' && args.length === 1 && ['list', 'tuple'].includes(args[0].type)) {
      const sep = r.fold(obj, depth + 1);
      const items = namedChildren(args[0]).map((c) => r.fold(c, depth + 1));
      return sep !== null && items.every((x) => x !== null) ? items.join(sep) : null;
    }
    if (['lower', 'upper', 'strip', 'decode', 'encode'].includes(method)) {
      const s = r.fold(obj, depth + 1);
      if (s !== null) {
        if (method === 'lower') return s.toLowerCase();
        if (method === 'upper') return s.toUpperCase();
        if (method === 'strip') return args.length ? null : s.trim();
        if (method === 'decode') return utf8Decode(s);
        return Buffer.from(s, 'utf8').toString('latin1');
      }
    }
  }
  const quals = r.qualify(fn, depth + 1);
  const arg0 = args[0] ? r.fold(args[0], depth + 1) : null;
  for (const q of quals) {
    if (q === 'chr' && args[0]) {
      const n = intValue(args[0]);
      return n !== null && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : null;
    }
    if (q === 'str' && arg0 !== null) return arg0;
    if ((q === 'base64.b64decode' || q === 'base64.standard_b64decode' || q === 'base64.urlsafe_b64decode') && arg0 !== null) {
      return b64decode(arg0, q === 'base64.urlsafe_b64decode');
    }
    if (q === 'bytes.fromhex' && arg0 !== null && /^[0-9a-fA-F\s]*$/.test(arg0)) {
      return Buffer.from(arg0.replace(/\s+/g, ''), 'hex').toString('latin1');
    }
    if (q === 'codecs.decode' && arg0 !== null && args[1] && /^rot[-_]?13$/i.test(r.fold(args[1], depth + 1) ?? '')) {
      return rot13(arg0);
    }
  }
  return null;
}

/**
 * The value of a string literal (f-string interpolations of constants included), implicit
 * concatenation, `+` and `*` of constants, parentheses and `[::-1]`; null when not a constant.
 */
export function foldLiteral(r: Folder, node: PyNode, depth: number): string | null {
  switch (node.type) {
    case 'string': {
      const sp = stringParts(node);
      if (!sp) return null;
      let s = '';
      for (const p of sp.parts) {
        if (typeof p === 'string') s += p;
        else {
          if (p.children.some((c) => c.type === 'format_specifier' || c.type === 'type_conversion')) return null;
          const expr = field(p, 'expression');
          const v = expr ? r.fold(expr, depth + 1) : null;
          if (v === null) return null;
          s += v;
        }
      }
      return s;
    }
    case 'concatenated_string': {
      let s = '';
      for (const c of namedChildren(node)) {
        const v = r.fold(c, depth + 1);
        if (v === null) return null;
        s += v;
      }
      return s;
    }
    case 'binary_operator': {
      const op = node.children.find((c) => c.field === 'operator')?.text;
      const left = field(node, 'left');
      const right = field(node, 'right');
      if (!left || !right) return null;
      if (op === '+') {
        const a = r.fold(left, depth + 1);
        const b = a === null ? null : r.fold(right, depth + 1);
        return a !== null && b !== null ? a + b : null;
      }
      if (op === '*') {
        const [s, n] = intValue(right) !== null ? [r.fold(left, depth + 1), intValue(right)] : [r.fold(right, depth + 1), intValue(left)];
        return s !== null && n !== null && n >= 0 && s.length * n <= MAX_FOLD ? s.repeat(n) : null;
      }
      return null;
    }
    case 'parenthesized_expression': {
      const inner = namedChildren(node)[0];
      return inner ? r.fold(inner, depth + 1) : null;
    }
    case 'subscript': {
      const value = field(node, 'value');
      const key = field(node, 'subscript');
      if (!value || !key || key.type !== 'slice' || key.text.replace(/\s+/g, '') !== '::-1') return null;
      const s = r.fold(value, depth + 1);
      return s === null ? null : [...s].reverse().join('');
    }
  }
  return null;
}
