import type { PyNode } from './parser.js';

/** NFKC, as CPython applies to identifiers (PEP 3131): `ｅval` is `eval`. ASCII is its own NFKC form. */
export function ident(text: string): string {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return text.normalize('NFKC');
  return text;
}

/**
 * Exact values of Python literals, so `'ev' + 'al'`, `"\x65val"` or `b'b3M='` are seen as what the
 * interpreter would see. Anything not decodable with certainty returns null: the callers then treat
 * the value as computed (non-literal), which is the stricter reading.
 */

/** Longest folded string kept; longer values are treated as computed (bounds work on hostile input). */
export const MAX_FOLD = 4096;

const SIMPLE: Record<string, string> = {
  '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '',
};

/** Decodes the escape sequences of a non-raw literal body; null on `\N{…}` (not resolvable offline). */
export function decodeEscapes(body: string, isBytes: boolean): string | null {
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch !== '\\' || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const e = body[i + 1];
    if (e in SIMPLE) {
      out += SIMPLE[e];
      i++;
    } else if (e === '\r') {
      i += body[i + 2] === '\n' ? 2 : 1;
    } else if (e >= '0' && e <= '7') {
      const m = /^[0-7]{1,3}/.exec(body.slice(i + 1)) as RegExpExecArray;
      out += String.fromCodePoint(parseInt(m[0], 8));
      i += m[0].length;
    } else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(body.slice(i + 2, i + 4))) {
      out += String.fromCharCode(parseInt(body.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (!isBytes && e === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 2, i + 6))) {
      out += String.fromCharCode(parseInt(body.slice(i + 2, i + 6), 16));
      i += 5;
    } else if (!isBytes && e === 'U' && /^[0-9a-fA-F]{8}$/.test(body.slice(i + 2, i + 10))) {
      const cp = parseInt(body.slice(i + 2, i + 10), 16);
      if (cp > 0x10ffff) return null;
      out += String.fromCodePoint(cp);
      i += 9;
    } else if (!isBytes && e === 'N') {
      return null;
    } else {
      out += ch; // unknown escapes stay as written, as in Python
    }
  }
  return out;
}

export interface StringParts {
  prefix: string;
  /** literal segments and interpolation nodes in source order */
  parts: Array<string | PyNode>;
}

/** Splits one `string` node into its literal text and f-string interpolations; null when undecodable. */
export function stringParts(node: PyNode): StringParts | null {
  const start = node.children.find((c) => c.type === 'string_start');
  if (!start) return null;
  const prefix = start.text.replace(/['"]+$/, '').toLowerCase();
  const raw = prefix.includes('r');
  const isBytes = prefix.includes('b');
  const parts: Array<string | PyNode> = [];
  for (const c of node.children) {
    if (c.type === 'string_content') {
      const v = raw ? c.text : decodeEscapes(c.text, isBytes);
      if (v === null) return null;
      parts.push(prefix.includes('f') ? v.replace(/\{\{/g, '{').replace(/\}\}/g, '}') : v);
    } else if (c.type === 'interpolation') {
      parts.push(c);
    }
  }
  return { prefix, parts };
}

/** Integer literal value (decimal, hex, octal, binary, with underscores); null otherwise. */
export function intValue(node: PyNode): number | null {
  if (node.type === 'unary_operator') {
    const inner = node.children.find((c) => c.named);
    const v = inner ? intValue(inner) : null;
    return v === null ? null : node.text.trimStart().startsWith('-') ? -v : v;
  }
  if (node.type !== 'integer') return null;
  const t = node.text.replace(/_/g, '').toLowerCase();
  let v: number;
  if (/^0x[0-9a-f]+$/.test(t)) v = parseInt(t.slice(2), 16);
  else if (/^0o[0-7]+$/.test(t)) v = parseInt(t.slice(2), 8);
  else if (/^0b[01]+$/.test(t)) v = parseInt(t.slice(2), 2);
  else if (/^\d+$/.test(t)) v = Number(t);
  else return null;
  return Number.isSafeInteger(v) ? v : null;
}

/** Python 3 `base64.b64decode` / `urlsafe_b64decode` of a str or bytes literal (latin-1 bytes out); null if invalid. */
export function b64decode(s: string, urlsafe: boolean): string | null {
  const t = urlsafe ? s.replace(/-/g, '+').replace(/_/g, '/') : s;
  const compact = t.replace(/[\r\n\t ]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) return null;
  return Buffer.from(compact, 'base64').toString('latin1');
}

export function rot13(s: string): string {
  return s.replace(/[a-zA-Z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** `bytes.decode()` of latin-1-held bytes as UTF-8 (the default codec). */
export function utf8Decode(latin1: string): string {
  return Buffer.from(latin1, 'latin1').toString('utf8');
}
