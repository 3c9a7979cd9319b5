import { HttpError, Problems } from '../errors.js';

/**
 * The kernel's nesting cap (issue 12, item 7). Every recursive walk over request data — RFC 8785
 * canonicalisation, ajv validators, audit snapshots, engines — is safe because nothing deeper than
 * `server.max_json_depth` reaches it. The check itself is one linear pass over the bytes with a
 * counter (no recursion, no parse), so a body nested 100,000 deep costs a scan and a 400, never a
 * stack. It runs before JSON.parse; the scan does not validate JSON, that is the parser's job.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Deepest nesting of objects/arrays in JSON text (`{}` at the top is depth 1), stopping as soon as
 * `stopAbove` is passed. Brackets inside strings do not count. UTF-8 continuation bytes are never
 * ASCII, so scanning bytes is exact (a JS string is scanned through its UTF-8 bytes).
 */
export function jsonDepth(text: Buffer | string, stopAbove = Infinity): number {
  const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const n = buf.length;
  let depth = 0;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const c = buf[i];
    if (c === QUOTE) {
      // skip the string with native searches: the bulk of a large body is string content
      let end = buf.indexOf(QUOTE, i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (buf[end - 1 - slashes] === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        end = buf.indexOf(QUOTE, end + 1);
      }
      if (end === -1) return max;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth--;
  }
  return max;
}

/** 400 `too_deep` when `text` nests deeper than `max`; `where` names the request part in the detail. */
export function assertJsonDepth(text: Buffer | string, max: number, where = 'request body'): void {
  if (jsonDepth(text, max) > max) {
    throw new HttpError(Problems.tooDeep, `${where} nests objects/arrays deeper than ${max} levels`);
  }
}

/** Multipart text fields that hold JSON (first non-blank character `{` or `[`) are held to the same cap. */
export function assertFieldsDepth(fields: Readonly<Record<string, string>>, max: number): void {
  for (const [name, value] of Object.entries(fields)) {
    if (/^\s*[[{]/.test(value)) assertJsonDepth(value, max, `multipart field ${name}`);
  }
}
