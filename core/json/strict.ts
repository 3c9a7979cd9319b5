import { duplicateKeyAt, jsonSyntaxErrorAt } from './syntax.js';

/**
 * JSON from a peer that another parser will read after us (an upstream answer relayed to a client).
 * What we review must be what every client reads, so besides everything JSON.parse refuses (NaN,
 * Infinity, comments, trailing text — which Python's json and other lenient readers accept), one
 * thing JSON.parse lets through is refused too: an object with the same key twice, since JSON.parse
 * keeps the last and other parsers keep the first. The reason never quotes the text beyond a key
 * name (the text is the peer's).
 */
export type StrictJson = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseStrictJson(text: string): StrictJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const at = jsonSyntaxErrorAt(text);
    return { ok: false, reason: `not JSON${at ? ` (line ${at.line}, column ${at.column})` : ''}` };
  }
  const dup = duplicateKeyAt(text);
  if (dup !== null) return { ok: false, reason: `JSON with the key ${JSON.stringify(dup.key.slice(0, 64))} twice in one object` };
  return { ok: true, value };
}
