import { stringStart, unsupported } from './lexer.js';
import { type N, leaf, node, withField } from './tree.js';

/**
 * One string literal as tree-sitter-python builds it: string_start (prefix and quotes),
 * string_content runs (with escape_sequence / escape_interpolation children), interpolation nodes
 * for f-strings, string_end. `expr` parses an interpolation's expression range.
 */
export function stringNode(code: string, s: number, e: number, expr: (from: number, to: number) => N): N {
  const st = stringStart(code, s);
  if (!st) unsupported('not a string');
  const [q, ql] = st;
  const prefix = code.slice(s, q).toLowerCase();
  const raw = prefix.includes('r');
  const bytes = prefix.includes('b');
  const fmt = prefix.includes('f');
  const bodyEnd = e - ql;
  // in a raw f-string every interpolation starts a new content token, each with the quirk below
  if (raw && fmt && code.slice(q + ql, bodyEnd).includes('\\')) unsupported('backslash in a raw f-string');
  if (raw && code.charCodeAt(q + ql) === 92) rawOpening(code, q + ql, bodyEnd, code[q]);
  const kids: N[] = [leaf('string_start', s, q + ql)];
  let runStart = -1;
  let run: N[] = [];
  const flush = (at: number): void => {
    if (runStart >= 0 && at > runStart) kids.push(node('string_content', run, runStart, at));
    runStart = -1;
    run = [];
  };
  let i = q + ql;
  while (i < bodyEnd) {
    const c = code.charCodeAt(i);
    if (runStart < 0) runStart = i;
    if (c === 92) {
      if (raw) {
        // the scanner steps over a backslash and only an escaped quote or backslash after it
        const n = code[i + 1];
        i += n === code[q] || n === '\\' ? 2 : 1;
        continue;
      }
      const n = escapeEnd(code, i + 1, bytes);
      if (fmt && (code[i + 1] === '{' || code[i + 1] === '}')) unsupported('backslash brace in f-string');
      if (n > 0) run.push(leaf('escape_sequence', i, n));
      i = n > 0 ? n : i + 2;
      continue;
    }
    if (fmt && (c === 123 || c === 125)) {
      if (code.charCodeAt(i + 1) === c) {
        run.push(leaf('escape_interpolation', i, i + 2));
        i += 2;
        continue;
      }
      if (c === 125) unsupported('lone } in f-string');
      flush(i);
      const end = interpolation(code, i, bodyEnd, code[q], expr, kids);
      i = end;
      continue;
    }
    i++;
  }
  flush(bodyEnd);
  kids.push(leaf('string_end', bodyEnd, e));
  return node('string', kids, s, e);
}

/**
 * A raw body that starts with a backslash: the scanner steps over `\\` and `\<quote>` pairs without
 * counting them as content, so a body of nothing but such pairs (r'\\\\') becomes part of string_end.
 * That body, and a pair run ending in a line break, are refused; any other
 * character after the pairs makes an ordinary string_content.
 */
function rawOpening(code: string, from: number, bodyEnd: number, quote: string): void {
  let k = from;
  while (k < bodyEnd && code[k] === '\\' && (code[k + 1] === quote || code[k + 1] === '\\')) k += 2;
  const c = code[k];
  if (k >= bodyEnd || c === '\n' || (c === '\\' && code[k + 1] === '\n')) unsupported('raw string of escaped pairs');
}

/** End of the escape sequence whose letter is at i, or 0 when the backslash escapes nothing. */
function escapeEnd(code: string, i: number, bytes: boolean): number {
  const c = code[i];
  const hex = (n: number): number => (new RegExp(`^[0-9a-fA-F]{${n}}`).test(code.slice(i + 1, i + 1 + n)) ? i + 1 + n : 0);
  if (c === 'u' || c === 'U' || c === 'N') {
    if (bytes) unsupported('\\u in bytes');
    if (c === 'N') unsupported('\\N escape');
    return hex(c === 'u' ? 4 : 8);
  }
  if (c === 'x') return hex(2);
  if (c >= '0' && c <= '9') {
    let j = i + 1;
    while (j < i + 3 && code[j] >= '0' && code[j] <= '9') j++;
    return j;
  }
  if (c === '\n') return i + 1;
  if ('\'"abfrntv\\'.includes(c)) return i + 1;
  return 0;
}

/** `{expr[!c][:spec]}` starting at `{` (i); pushes the interpolation node and returns its end. */
function interpolation(code: string, i: number, limit: number, quote: string, expr: (from: number, to: number) => N, kids: N[]): number {
  let depth = 0;
  let j = i + 1;
  let exprEnd = -1;
  for (; j < limit; j++) {
    const c = code[j];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '"' || c === "'") {
      // a plain single-quoted string inside, with the other quote (the same one is refused: it
      // ends a single-quoted f-string); the interpolation's own tokenizer reads it
      const close = code.indexOf(c, j + 1);
      if (c === quote || code[j + 1] === c || close < 0 || close >= limit || /[\\\n{}]/.test(code.slice(j + 1, close))) unsupported('string in interpolation');
      j = close;
    } else if (c === '{' || c === '\\' || c === '#' || c === '\n') unsupported('complex interpolation');
    else if (depth === 0 && (c === '}' || c === ':' || (c === '!' && code[j + 1] !== '='))) {
      exprEnd = j;
      break;
    } else if (c === '=' && '=!<>'.indexOf(code[j - 1]) < 0 && code[j + 1] !== '=') unsupported('= in interpolation');
  }
  if (exprEnd < 0 || depth !== 0) unsupported('unterminated interpolation');
  const inner: N[] = [withField(expr(i + 1, exprEnd), 'expression')];
  j = exprEnd;
  if (code[j] === '!') {
    if (!/^![a-z][:}]/.test(code.slice(j, j + 3))) unsupported('conversion');
    inner.push(withField(leaf('type_conversion', j, j + 2), 'type_conversion'));
    j += 2;
  }
  // `{x:=…}`: tree-sitter reads `:=` as the walrus operator, not a format spec starting with `=`
  if (code[j] === ':' && code[j + 1] === '=') unsupported('format spec starting with =');
  if (code[j] === ':') {
    const close = code.indexOf('}', j);
    if (close < 0 || close > limit) unsupported('format spec');
    const spec = code.slice(j, close);
    if (/[{\n\\'"]/.test(spec)) unsupported('format spec');
    inner.push(withField(leaf('format_specifier', j, close), 'format_specifier'));
    j = close;
  }
  if (code[j] !== '}') unsupported('interpolation end');
  kids.push(node('interpolation', inner, i, j + 1));
  return j + 1;
}
