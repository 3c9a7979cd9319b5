import { type PyNode, field, namedChildren } from './parser.js';
import { positionalArgs } from './args.js';
import { b64decode, ident, intValue, rot13, utf8Decode } from './literals.js';

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
