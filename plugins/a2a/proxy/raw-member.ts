/**
 * The bytes of one member of a JSON object as received: a message relayed to a peer in another
 * binding goes out as the client's own bytes (a number beyond double precision, a key order, an
 * escape are kept), so what was verified is what the peer reads. The input is JSON the kernel has
 * already parsed, with no member named twice (core/http/body.ts), so a scan that skips strings and
 * nesting finds the one member of that name; keys are compared decoded (`"p\u0061rams"` is `params`).
 */
const WS = new Set([' ', '\t', '\n', '\r']);

function skipWs(s: string, i: number): number {
  while (i < s.length && WS.has(s[i])) i++;
  return i;
}

function skipString(s: string, i: number): number {
  for (i++; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i + 1;
  }
  return -1;
}

function skipValue(s: string, i: number): number {
  if (s[i] === '"') return skipString(s, i);
  if (s[i] === '{' || s[i] === '[') {
    let depth = 0;
    while (i < s.length) {
      const c = s[i];
      if (c === '"') {
        i = skipString(s, i);
        if (i < 0) return -1;
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }
  while (i < s.length && !WS.has(s[i]) && s[i] !== ',' && s[i] !== '}' && s[i] !== ']') i++;
  return i;
}

/** the text of the top-level member `name` of the object in `raw`, or null when it has none */
export function memberText(raw: Buffer, name: string): string | null {
  const s = raw.toString('utf8');
  let i = skipWs(s, 0);
  if (s[i] !== '{') return null;
  i = skipWs(s, i + 1);
  while (i < s.length && s[i] === '"') {
    const keyEnd = skipString(s, i);
    if (keyEnd < 0) return null;
    let key: unknown;
    try {
      key = JSON.parse(s.slice(i, keyEnd));
    } catch {
      return null;
    }
    i = skipWs(s, keyEnd);
    if (s[i] !== ':') return null;
    const start = skipWs(s, i + 1);
    const end = skipValue(s, start);
    if (end < 0) return null;
    if (key === name) return s.slice(start, end);
    i = skipWs(s, end);
    if (s[i] !== ',') return null;
    i = skipWs(s, i + 1);
  }
  return null;
}
