import type { JsNode } from './parser.js';

/** What folding needs of the resolver (resolve.ts's JsResolver), named here so neither module imports the other. */
export interface FoldScope {
  qualify(node: JsNode, depth?: number): string[];
  fold(node: JsNode, depth?: number): string | null;
}

/** A member's property name: the identifier, `#name`, or a computed key's constant value. */
export function propName(member: JsNode, fold: (n: JsNode) => string | null): string | null {
  const p = member.property as JsNode;
  if (!member.computed && p.type === 'Identifier') return p.name as string;
  if (!member.computed && p.type === 'PrivateIdentifier') return `#${p.name as string}`;
  return fold(p);
}

/**
 * The constant value of a call on constant strings: `String.fromCharCode(…)`, `atob('…')`,
 * `[…].join(…)`, `'…'.split('').reverse().join('')`, `Buffer.from('…', 'base64').toString()`,
 * case and trim methods, `concat`.
 */
export function foldCall(r: FoldScope, node: JsNode, depth: number): string | null {
  const callee = node.callee as JsNode;
  const args = node.arguments as JsNode[];
  const quals = r.qualify(callee, depth + 1);
  if (quals.includes('String.fromCharCode') || quals.includes('String.fromCodePoint')) {
    const codes = args.map((a) => (a.type === 'Literal' && typeof a.value === 'number' ? a.value : NaN));
    return codes.every((c) => Number.isInteger(c) && c >= 0 && c <= 0x10ffff) ? String.fromCodePoint(...codes) : null;
  }
  if (quals.includes('atob') && args[0]) {
    const s = r.fold(args[0], depth + 1);
    return s !== null && /^[A-Za-z0-9+/]*={0,2}$/.test(s) ? Buffer.from(s, 'base64').toString('latin1') : null;
  }
  if (callee.type !== 'MemberExpression') return null;
  const method = propName(callee, (n) => r.fold(n, depth + 1));
  const obj = callee.object as JsNode;
  if (method === 'join' && obj.type === 'ArrayExpression') {
    const sep = args[0] ? r.fold(args[0], depth + 1) : ',';
    const items = (obj.elements as Array<JsNode | null>).map((e) => (e ? r.fold(e, depth + 1) : null));
    return sep !== null && items.every((x) => x !== null) ? items.join(sep) : null;
  }
  if (method === 'join' && obj.type === 'CallExpression') {
    // 'lave'.split('').reverse().join('')
    const rev = obj.callee as JsNode;
    if (rev.type === 'MemberExpression' && propName(rev, () => null) === 'reverse') {
      const split = rev.object as JsNode;
      if (split.type === 'CallExpression' && (split.callee as JsNode).type === 'MemberExpression') {
        const s = r.fold((split.callee as JsNode).object as JsNode, depth + 1);
        const sep = args[0] ? r.fold(args[0], depth + 1) : ',';
        if (s !== null && sep === '') return [...s].reverse().join('');
      }
    }
    return null;
  }
  if (method === 'toString' && obj.type === 'CallExpression') {
    const inner = r.qualify(obj.callee as JsNode, depth + 1);
    const a = obj.arguments as JsNode[];
    if (inner.includes('Buffer.from') && a[0] && a[1] && r.fold(a[1], depth + 1) === 'base64') {
      const s = r.fold(a[0], depth + 1);
      return s !== null ? Buffer.from(s, 'base64').toString('utf8') : null;
    }
  }
  if (method && ['toLowerCase', 'toUpperCase', 'trim', 'concat'].includes(method)) {
    const s = r.fold(obj, depth + 1);
    if (s === null) return null;
    if (method === 'concat') {
      const rest = args.map((a) => r.fold(a, depth + 1));
      return rest.every((x) => x !== null) ? s + rest.join('') : null;
    }
    return method === 'toLowerCase' ? s.toLowerCase() : method === 'toUpperCase' ? s.toUpperCase() : s.trim();
  }
  return null;
}
