/**
 * Tokens for the fast Python parser (fast/index.ts), with the layout tree-sitter-python's external
 * scanner gives them: NEWLINE, INDENT and DEDENT are zero-width, NEWLINE sits at the end of the
 * line's last token or trailing comment, INDENT at the end of the header line, and DEDENT where the
 * scanner would emit it (after the comment lines it keeps in the closing block). Comments are kept
 * aside; the tree places them by position (tree.ts). Anything this lexer does not model exactly
 * (tabs, CR, form feeds, odd line continuations, non-ASCII outside strings and comments, odd number
 * forms, soft keywords) throws `Unsupported`, and the caller falls back to tree-sitter.
 */
export class Unsupported extends Error {}

export function unsupported(why: string): never {
  throw new Unsupported(why);
}

export const enum K {
  EOF,
  NAME,
  INT,
  FLOAT,
  STRING,
  OP,
  NEWLINE,
  INDENT,
  DEDENT,
}

export interface Tokens {
  kind: K[];
  start: number[];
  end: number[];
  /** the text of NAME and OP tokens, '' otherwise */
  val: string[];
  comments: number[]; // start, end pairs
  continuations: number[]; // start, end pairs of `\` + line break
}

const OPS1 = '()[]{},:;.=+-*/%&|^~<>@';
/** the characters an operator ending in `=` can start with (`==`, `<=`, `+=`, `:=`, …) */
const BEFORE_EQ = '=!<>+-*/%&|^@:';
/**
 * By character code: 1 where OPS1 holds it, 2 where BEFORE_EQ does, and each one-character
 * operator's text (a literal, so the parser's comparisons with it meet the same string): a
 * tokenizer that searched both strings and sliced each operator spent a fifth of its time there.
 */
const OP_CLASS = new Uint8Array(128);
const OP_TEXT: string[] = new Array<string>(128).fill('');
for (const ch of OPS1) {
  OP_CLASS[ch.charCodeAt(0)] |= 1;
  OP_TEXT[ch.charCodeAt(0)] = ch;
}
for (const ch of BEFORE_EQ) OP_CLASS[ch.charCodeAt(0)] |= 2;

/** Length of the operator at i: `**=` `//=` `>>=` `<<=` `...`, the two-character ones, or one of OPS1. */
function opLength(code: string, i: number): number {
  const c = code.charCodeAt(i);
  const c2 = code.charCodeAt(i + 1);
  if ((c === 42 || c === 47 || c === 60 || c === 62) && c2 === c) return code.charCodeAt(i + 2) === 61 ? 3 : 2;
  if (c === 46 && c2 === 46 && code.charCodeAt(i + 2) === 46) return 3;
  const cls = c < 128 ? OP_CLASS[c] : 0;
  if (c2 === 61 && cls & 2) return 2;
  if (c === 45 && c2 === 62) return 2;
  if (!(cls & 1)) unsupported(`character ${JSON.stringify(code[i])}`);
  return 1;
}
/** names tree-sitter-python treats as keywords in some positions only: their trees are quirky */
const SOFT = new Set(['print', 'exec', 'async', 'await', 'match', 'type', '__future__', 'case']);

function isIdStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdChar(c: number): boolean {
  return isIdStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** [prefix end, quote length] of a string literal starting at i, or null when none starts there */
export function stringStart(code: string, i: number): [number, number] | null {
  let j = i;
  while (j < code.length && j - i < 3 && isIdStart(code.charCodeAt(j))) j++;
  const q = code.charCodeAt(j);
  if (q !== 34 && q !== 39) return null;
  const prefix = code.slice(i, j).toLowerCase();
  if (!['', 'r', 'u', 'b', 'f', 'rb', 'br', 'fr', 'rf'].includes(prefix)) unsupported('string prefix');
  const triple = code.charCodeAt(j + 1) === q && code.charCodeAt(j + 2) === q;
  return [j, triple ? 3 : 1];
}

/** End of the string literal whose quote starts at q (length ql); raw: backslashes escape nothing */
export function stringEnd(code: string, q: number, ql: number, raw: boolean): number {
  const quote = code.charCodeAt(q);
  for (let i = q + ql; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 92) {
      const n = code.charCodeAt(i + 1);
      if (n === 13) unsupported('CR');
      if (raw && n !== quote && n !== 92 && n !== 10) continue;
      i++;
      continue;
    }
    if (c === 10 && ql === 1) unsupported('newline in string');
    if (c === 13) unsupported('CR');
    if (c === quote) {
      if (ql === 1) return i + 1;
      if (code.charCodeAt(i + 1) === quote && code.charCodeAt(i + 2) === quote) {
        if (code.charCodeAt(i + 3) === quote) unsupported('quote after triple quote');
        return i + 3;
      }
    }
  }
  unsupported('unterminated string');
}

function numberEnd(code: string, i: number): [number, K] {
  let j = i;
  let kind = K.INT;
  const c1 = code.charCodeAt(i + 1) | 32;
  if (code.charCodeAt(i) === 48 && (c1 === 120 || c1 === 111 || c1 === 98)) {
    j += 2;
    while (j < code.length && /[0-9a-fA-F]/.test(code[j])) j++;
  } else {
    while (isDigit(code.charCodeAt(j))) j++;
    if (code.charCodeAt(j) === 46) {
      kind = K.FLOAT;
      j++;
      while (isDigit(code.charCodeAt(j))) j++;
    }
    const e = code.charCodeAt(j) | 32;
    if (e === 101) {
      kind = K.FLOAT;
      j++;
      if (code[j] === '+' || code[j] === '-') j++;
      if (!isDigit(code.charCodeAt(j))) unsupported('exponent');
      while (isDigit(code.charCodeAt(j))) j++;
    }
    if ((code.charCodeAt(j) | 32) === 106) j++;
  }
  const n = code.charCodeAt(j);
  if (isIdChar(n) || n === 46) unsupported('number form');
  return [j, kind];
}

/** Whether the next code line after position i (past blank and comment lines) is indented less than `indent`. */
function lessIndented(code: string, i: number, to: number, indent: number): boolean {
  if (indent === 0) return false;
  let col = 0;
  for (; i < to; i++) {
    const c = code.charCodeAt(i);
    if (c === 32) col++;
    else if (c === 10) col = 0;
    else if (c === 35) {
      const e = code.indexOf('\n', i);
      if (e < 0) return false;
      i = e - 1;
    } else return col < indent;
  }
  return false;
}

/**
 * Tokenises `code`. With `bracketed`, the range is an f-string interpolation: no lines, no
 * comments, no nested f-strings.
 */
export function tokenize(code: string, from = 0, to = code.length, bracketed = false): Tokens {
  const t: Tokens = { kind: [], start: [], end: [], val: [], comments: [], continuations: [] };
  const push = (k: K, s: number, e: number, v: string): void => {
    t.kind.push(k);
    t.start.push(s);
    t.end.push(e);
    t.val.push(v);
  };
  const indents = [0];
  let depth = bracketed ? 1 : 0;
  /** end of the last token or comment on the current logical line, -1 at a line start */
  let lineEnd = -1;
  let i = from;
  let atLineStart = !bracketed;
  while (i < to) {
    if (atLineStart) {
      // the scanner's view of the lines between two logical lines: blank lines, comment lines
      // (indent, start, end), and the next code line's indent
      // comment lines are rare between two code lines: the list is made for the first one
      let lines: number[] | null = null;
      let indent = 0;
      let j = i;
      for (;;) {
        indent = 0;
        while (code.charCodeAt(j) === 32) {
          j++;
          indent++;
        }
        const c = code.charCodeAt(j);
        if (j >= to) {
          indent = 0;
          break;
        }
        if (c === 10) {
          j++;
          continue;
        }
        if (c === 35) {
          let e = code.indexOf('\n', j);
          if (e === -1 || e > to) e = to;
          if (/[\r\0]/.test(code.slice(j, e))) unsupported('CR or NUL in comment'); // tree-sitter errors on a NUL
          (lines ??= []).push(indent, j, e);
          j = e;
          continue;
        }
        if (c === 9 || c === 12 || c === 13 || c === 92) unsupported('tab, form feed, CR or continuation at line start');
        break;
      }
      const last = t.kind.length - 1;
      if (lineEnd >= 0 && t.kind[last] === K.OP && t.val[last] === ',') {
        // `a,` then a line break: tree-sitter's pattern_list reading skips the line break and may
        // join the next line to the statement (a GLR fork the scanner sees without NEWLINE)
        unsupported('line ending with a comma');
      }
      let pos = lineEnd >= 0 ? lineEnd : i;
      if (indent > indents[indents.length - 1]) {
        // INDENT instead of NEWLINE: only a compound statement's header may end so (the parser checks)
        if (lineEnd < 0) unsupported('indented first line');
        indents.push(indent);
        push(K.INDENT, pos, pos, '');
      } else if (lineEnd >= 0) push(K.NEWLINE, lineEnd, lineEnd, '');
      for (let k = 0; lines && k < lines.length; k += 3) {
        while (lines[k] < indents[indents.length - 1] && indent < indents[indents.length - 1]) {
          indents.pop();
          push(K.DEDENT, pos, pos, '');
        }
        t.comments.push(lines[k + 1], lines[k + 2]);
        pos = lines[k + 2];
      }
      while (indent < indents[indents.length - 1]) {
        indents.pop();
        push(K.DEDENT, pos, pos, '');
      }
      if (indent !== indents[indents.length - 1]) unsupported('inconsistent dedent');
      i = j;
      atLineStart = false;
      lineEnd = -1;
      if (i >= to) break;
    }
    const c = code.charCodeAt(i);
    if (c === 32) {
      i++;
      continue;
    }
    if (c === 10) {
      i++;
      if (depth === 0) atLineStart = true;
      else if (lessIndented(code, i, to, indents[indents.length - 1])) {
        // inside brackets, tree-sitter's scanner still emits DEDENT where a closing bracket is not
        // expected: a bracketed line indented less than its block is not modelled
        unsupported('bracketed line indented less than its block');
      }
      continue;
    }
    if (c === 92) {
      // a line continuation: an extra like a comment (tree.ts places both); the next line must
      // hold code (a blank or comment line after it is not modelled)
      if (bracketed || code.charCodeAt(i + 1) !== 10) unsupported('backslash');
      let j = i + 2;
      while (code.charCodeAt(j) === 32) j++;
      const n = code.charCodeAt(j);
      if (j >= to || n === 10 || n === 35 || n === 92 || n === 13 || n === 9 || n === 12) unsupported('continuation before no code');
      // before a string the external scanner takes it as the string_start's padding: no node
      if (n !== 34 && n !== 39 && !(isIdStart(n) && stringStart(code, j))) t.continuations.push(i, i + 2);
      i += 2;
      continue;
    }
    if (c === 35) {
      if (bracketed) unsupported('comment in interpolation');
      let e = code.indexOf('\n', i);
      if (e === -1 || e > to) e = to;
      if (/[\r\0]/.test(code.slice(i, e))) unsupported('CR or NUL in comment');
      t.comments.push(i, e);
      lineEnd = e;
      i = e;
      continue;
    }
    if (isIdStart(c)) {
      const s = stringStart(code, i);
      if (s) {
        if (bracketed && s[0] > i && /f/i.test(code.slice(i, s[0]))) unsupported('nested f-string');
        const e = stringEnd(code, s[0], s[1], /r/i.test(code.slice(i, s[0])));
        if (e > to) unsupported('string past range');
        push(K.STRING, i, e, '');
        lineEnd = i = e;
        continue;
      }
      let j = i + 1;
      while (isIdChar(code.charCodeAt(j))) j++;
      if (j < to && code.charCodeAt(j) > 127) unsupported('non-ASCII identifier');
      const v = code.slice(i, j);
      // the first letters of SOFT (p e a m t _ c): most names skip hashing into the set
      if ((c === 112 || c === 101 || c === 97 || c === 109 || c === 116 || c === 95 || c === 99) && SOFT.has(v)) {
        // an attribute name, and print(…) / exec(…) as a plain call, are identifiers in both trees;
        // every other use of a soft keyword is refused
        const n = t.kind.length - 1;
        const afterDot = n >= 0 && t.kind[n] === K.OP && t.val[n] === '.';
        // `type` / `match` start their statements only at a statement's start: elsewhere a name
        const pv = n >= 0 ? t.val[n] : '';
        const midStatement = n >= 0 && (t.kind[n] === K.OP || t.kind[n] === K.NAME) && pv !== ';' && pv !== ':';
        // at a statement's start only before `=` or `.`, which cannot open a type alias's or a match
        // statement's operand (`type(x).y = 1` is a type alias there)
        const after = code.charCodeAt(j) === 32 ? code.charCodeAt(j + 1) : code.charCodeAt(j);
        const plainStart = (after === 61 && code.charCodeAt(code.indexOf('=', j) + 1) !== 61) || after === 46;
        const name = afterDot || ((v === 'type' || v === 'match') && (midStatement || plainStart) && !bracketed);
        const call = (v === 'print' || v === 'exec') && code.charCodeAt(j) === 40;
        // `async` opening a def / for / with statement, `await` before an operand (the parser checks the rest)
        const statementStart = n < 0 || t.kind[n] === K.NEWLINE || t.kind[n] === K.INDENT || t.kind[n] === K.DEDENT;
        const async = v === 'async' && statementStart && !bracketed && /^ (def|for|with) /.test(code.slice(j, j + 6));
        const a = code.charCodeAt(j + 1);
        const await_ = v === 'await' && code.charCodeAt(j) === 32 && (isIdStart(a) || a === 40 || a === 91 || a === 123 || a === 34 || a === 39 || isDigit(a));
        if (!name && !call && !async && !await_) unsupported(`soft keyword ${v}`);
      }
      push(K.NAME, i, j, v);
      lineEnd = i = j;
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(code.charCodeAt(i + 1)))) {
      const [e, kind] = numberEnd(code, i);
      push(kind, i, e, '');
      lineEnd = i = e;
      continue;
    }
    if (c === 34 || c === 39) {
      const e = stringEnd(code, i, code.charCodeAt(i + 1) === c && code.charCodeAt(i + 2) === c ? 3 : 1, false);
      if (e > to) unsupported('string past range');
      push(K.STRING, i, e, '');
      lineEnd = i = e;
      continue;
    }
    const len = opLength(code, i);
    if (i + len > to) unsupported('operator past range');
    // ( [ {  and  ) ] }
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (--depth < (bracketed ? 1 : 0)) unsupported('unbalanced bracket');
    }
    push(K.OP, i, i + len, len === 1 ? OP_TEXT[c] : code.slice(i, i + len));
    lineEnd = i += len;
  }
  if (bracketed) {
    push(K.EOF, to, to, '');
    return t;
  }
  if (depth !== 0) unsupported('unclosed bracket');
  // end of input: the scanner ends the last line and closes every block at the last token
  const last = t.kind.length - 1;
  if (lineEnd >= 0 && t.kind[last] === K.OP && t.val[last] === ',') unsupported('line ending with a comma');
  if (lineEnd >= 0) push(K.NEWLINE, lineEnd, lineEnd, '');
  let pos = lineEnd;
  if (pos < 0) pos = t.comments.length ? t.comments[t.comments.length - 1] : t.end.length ? t.end[t.end.length - 1] : to;
  while (indents.length > 1) {
    indents.pop();
    push(K.DEDENT, pos, pos, '');
  }
  push(K.EOF, to, to, '');
  return t;
}
