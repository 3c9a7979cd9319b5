import { C, MathRefusal } from '../errors.js';

/**
 * Tokens of the LaTeX reader. Numbers are read here, whole, with their digit grouping settled by
 * the locale rules of docs/engines/math.md ("Numbers"), so the reader never sees a separator.
 */
export type Tok =
  | { t: 'num'; v: string }
  | { t: 'cmd'; v: string }
  | { t: 'word'; v: string }
  | { t: 'ch'; v: string };

export type DecimalSeparator = '.' | ',';

/** spacing commands: a space in the source (a thousands separator between digit groups, else nothing) */
const SPACES = new Set([',', ';', ':', '!', ' ', 'quad', 'qquad', 'thinspace', 'enspace', 'medspace', 'thickspace', 'negthinspace']);
/** commands that change only how the formula looks */
export const IGNORED = new Set(['displaystyle', 'textstyle', 'scriptstyle', 'left', 'right', 'big', 'Big', 'bigg', 'Bigg', 'bigl', 'bigr', 'Bigl', 'Bigr', 'biggl', 'biggr', 'Biggl', 'Biggr', 'limits', 'nolimits']);

export function parseFail(message: string): MathRefusal {
  return new MathRefusal(C.parseError, message, { error: 'parse_error' });
}

/** whether `s[i..]` is a spacing separator; returns its length (0 when none) */
function spaceAt(s: string, i: number): number {
  if (s[i] === ' ' || s[i] === '~') return 1;
  if (s[i] !== '\\') return 0;
  const m = /^\\([a-zA-Z]+|[,;:! ])/.exec(s.slice(i, i + 16));
  return m && SPACES.has(m[1]) ? m[0].length : 0;
}

/** a thousands separator of the locale at `i`: its length, or 0 */
function groupSepAt(s: string, i: number, dec: DecimalSeparator, depth: number): number {
  const sp = spaceAt(s, i);
  if (sp) return sp;
  const mark = dec === '.' ? ',' : '.';
  if (s.startsWith(`{${mark}}`, i)) return 3;
  // `10,\!000`: the mark pulled tight to the next group is a separator at any depth (MATH's style)
  if (s.startsWith(`${mark}\\!`, i)) return 3;
  // a bare comma groups digits only outside brackets, where it cannot separate elements
  if (s[i] === mark && (mark === '.' || depth === 0)) return 1;
  return 0;
}

/** a decimal mark of the locale at `i`: its length, or 0 */
function decimalAt(s: string, i: number, dec: DecimalSeparator): number {
  if (s.startsWith(`{${dec}}`, i)) return 3;
  return s[i] === dec ? 1 : 0;
}

const digitsAt = (s: string, i: number): number => {
  let j = i;
  while (j < s.length && s[j] >= '0' && s[j] <= '9') j++;
  return j - i;
};

/**
 * One number from `i`: the integer part with optional thousands groups (a first group of 1–3
 * digits, then groups of exactly three behind one kind of separator), a decimal part, and a
 * plain-style exponent (`1e5`, `2.5e-3`) as the plain reader reads it.
 */
function readNumber(s: string, i: number, dec: DecimalSeparator, depth: number): { text: string; end: number } {
  let j = i;
  let int = s.slice(j, j + digitsAt(s, j));
  j += int.length;
  if (int.length >= 1 && int.length <= 3) {
    let sepKind: string | null = null;
    for (;;) {
      const sep = groupSepAt(s, j, dec, depth);
      if (!sep || digitsAt(s, j + sep) !== 3) break;
      const kind = s.slice(j, j + sep).replace(/^[ ~]$/, ' ');
      if (sepKind !== null && kind !== sepKind) break;
      // the group must end the digits: `1,2345` is not grouped
      if (s[j + sep + 3] >= '0' && s[j + sep + 3] <= '9') break;
      sepKind = kind;
      int += s.slice(j + sep, j + sep + 3);
      j += sep + 3;
    }
  }
  let text = int;
  const d = decimalAt(s, j, dec);
  if (d && digitsAt(s, j + d) > 0) {
    const frac = s.slice(j + d, j + d + digitsAt(s, j + d));
    text = `${int || '0'}.${frac}`;
    j += d + frac.length;
  }
  const rep = repeating(s, j, dec, text);
  if (rep) return rep;
  const e = /^[eE][+-]?\d+/.exec(s.slice(j, j + 12));
  if (e && text !== '') {
    text += e[0];
    j += e[0].length;
  }
  return { text, end: j };
}

/** a bound on the digits of a repeating decimal, so its exact fraction stays small */
const MAX_REPEAT_DIGITS = 60;

/**
 * `0.\overline{3}`, `0.1\overline{6}`, `2.\bar{142857}`: a repeating decimal, read as the
 * exact fraction it denotes — (IFR − IF) / ((10^|R| − 1)·10^|F|) for integer part I, fixed digits F
 * and repeated digits R — written `{N/D}` so the reader takes it as one grouped value.
 */
function repeating(s: string, j: number, dec: DecimalSeparator, text: string): { text: string; end: number } | null {
  // the decimal mark is already read when digits followed it; else it stands right before the bar
  const mark = text.includes('.') ? '' : dec === '.' ? String.raw`(?:\.|\{\.\})` : String.raw`(?:,|\{,\})`;
  const m = new RegExp(String.raw`^${mark}\s*\\(?:overline|bar)\s*\{\s*(\d+)\s*\}`).exec(s.slice(j, j + 200));
  if (!m) return null;
  const [int, fixed = ''] = text.split('.');
  const rep = m[1];
  if ((int + fixed + rep).length > MAX_REPEAT_DIGITS) throw parseFail(`A repeating decimal of more than ${MAX_REPEAT_DIGITS} digits is not read.`);
  const n = BigInt(int + fixed + rep) - BigInt(int + fixed);
  const d = (10n ** BigInt(rep.length) - 1n) * 10n ** BigInt(fixed.length);
  return { text: `{${n}/${d}}`, end: j + m[0].length };
}

export function lexLatex(s: string, dec: DecimalSeparator): Tok[] {
  const out: Tok[] = [];
  let depth = 0;
  for (let i = 0; i < s.length; ) {
    const ch = s[i];
    const sp = spaceAt(s, i);
    if (sp) {
      i += sp;
      continue;
    }
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if ((ch >= '0' && ch <= '9') || (ch === dec && digitsAt(s, i + 1) > 0)) {
      const n = readNumber(s, i, dec, depth);
      if (n.text.startsWith('{')) {
        const [a, b] = n.text.slice(1, -1).split('/');
        out.push({ t: 'ch', v: '{' }, { t: 'num', v: a }, { t: 'ch', v: '/' }, { t: 'num', v: b }, { t: 'ch', v: '}' });
        i = n.end;
        continue;
      }
      out.push({ t: 'num', v: n.text.startsWith('.') ? `0${n.text}` : n.text });
      i = n.end;
      continue;
    }
    if (ch === '\\') {
      const m = /^\\([a-zA-Z]+|.)/s.exec(s.slice(i, i + 40));
      if (!m) throw parseFail('A lone backslash ends the expression.');
      const name = m[1];
      i += m[0].length;
      if (name === '{' || name === 'lbrace') depth++;
      if (name === '}' || name === 'rbrace') depth--;
      if (!IGNORED.has(name)) out.push({ t: 'cmd', v: name });
      continue;
    }
    if (/[A-Za-z]/.test(ch)) {
      let j = i;
      while (j < s.length && /[A-Za-z]/.test(s[j])) j++;
      out.push({ t: 'word', v: s.slice(i, j) });
      i = j;
      continue;
    }
    // the plain syntax's power, as a model mixes it into LaTeX
    if (ch === '*' && s[i + 1] === '*') {
      out.push({ t: 'ch', v: '^' });
      i += 2;
      continue;
    }
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    out.push({ t: 'ch', v: ch });
    i++;
  }
  return out;
}
