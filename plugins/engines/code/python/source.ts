/**
 * The text CPython parses is not always the text submitted: the tokenizer decodes the bytes with the
 * codec a PEP 263 declaration names on line 1 or 2 (`# -*- coding: unicode_escape -*-` turns `\x27`
 * in a string into a quote and `\n` in a comment into a line break; `utf-7` turns `+AGUAdgBhAGw-`
 * into `eval`), and it reads a lone CR as a line break, where tree-sitter keeps it inside a comment.
 * This module either returns the text CPython would parse or says why the engine cannot know it;
 * that input is then refused like a syntax error, never analysed as something else.
 */

/** Codecs CPython reads UTF-8 text with as it is (get_normal_name, then codecs' aliases of utf_8). */
const UTF8 = new Set(['utf-8', 'utf8', 'u8', 'utf', 'utf8-ucs2', 'utf8-ucs4', 'cp65001']);
/** Codecs that decode every ASCII byte to itself: the same text when the source is ASCII. */
const ASCII_SAME = new Set([
  'ascii', 'us-ascii', '646', 'latin-1', 'latin1', 'latin', 'l1', 'iso-8859-1', 'iso8859-1', 'iso-latin-1', 'cp819',
  'cp1252', 'windows-1252', 'iso-8859-15', 'iso8859-15', 'latin-9', 'latin9',
]);
/** CPython's own pattern (tokenizer.c, PEP 263), applied to a line that is a comment. */
const CODING = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

export type SourceText = { code: string } | { error: { line: number; column: number; message: string } };

export function pythonSourceText(code: string): SourceText {
  const nul = code.indexOf('\0');
  if (nul >= 0) return refuse(code, nul, 'source code cannot contain null bytes');
  // a lone CR ends a line for CPython; the same length keeps every offset, line and column
  const text = code.includes('\r') ? code.replace(/\r(?!\n)/g, '\n') : code;
  const lines = text.replace(/^\ufeff/, '').split('\n', 2);
  for (let i = 0; i < lines.length; i++) {
    const m = CODING.exec(lines[i]);
    if (!m) continue;
    const name = m[1].toLowerCase().replace(/_/g, '-');
    const utf8 = UTF8.has(name) || name.startsWith('utf-8-');
    // eslint-disable-next-line no-control-regex
    const sameAscii = (ASCII_SAME.has(name) || /^(latin-1|iso-8859-1|iso-latin-1)-/.test(name)) && !/[^\x00-\x7f]/.test(text);
    if (!utf8 && !sameAscii) {
      return { error: { line: i + 1, column: 1, message: `source encoding '${m[1]}' is not applied by the engine: CPython would decode the source with it before parsing` } };
    }
    break; // CPython reads the first declaration only
  }
  return { code: text };
}

function refuse(code: string, at: number, message: string): SourceText {
  const before = code.slice(0, at);
  const line = before.split(/\r\n|\r|\n/).length;
  return { error: { line, column: at - Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')), message } };
}
