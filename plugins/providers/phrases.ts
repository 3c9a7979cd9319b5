/**
 * The vocabulary of the local translator: plain arithmetic phrasing read into tokens. Only what is
 * listed here is understood; any other word makes the whole text unreadable (never guessed at).
 */
export type Tok =
  | { t: 'num'; v: string }
  | { t: 'op'; v: '+' | '-' | '*' | '/' | '^' }
  /** "to the power of": an exponent in words, which English does not end ("2 to the power of 3 plus 1") */
  | { t: 'pow' }
  | { t: '(' }
  | { t: ')' }
  | { t: 'percent' }
  | { t: 'of' }
  | { t: 'and' }
  | { t: 'post'; v: 2 | 3 }
  | { t: 'fn'; v: 'sqrt' | 'cbrt' }
  | { t: 'neg' }
  | { t: 'pair'; v: '+' | '-' | '*' | '/'; between?: true }
  | { t: 'scale'; v: string };

/** multi-word phrases first: the longest phrase at a position wins */
const PHRASES: Array<[string, Tok]> = [
  ['raised to the power of', { t: 'pow' }],
  ['to the power of', { t: 'pow' }],
  ['raised to', { t: 'pow' }],
  ['multiplied by', { t: 'op', v: '*' }],
  ['divided by', { t: 'op', v: '/' }],
  ['square root of', { t: 'fn', v: 'sqrt' }],
  ['cube root of', { t: 'fn', v: 'cbrt' }],
  ['sum of', { t: 'pair', v: '+' }],
  ['product of', { t: 'pair', v: '*' }],
  ['difference between', { t: 'pair', v: '-', between: true }],
  ['difference of', { t: 'pair', v: '-' }],
  ['quotient of', { t: 'pair', v: '/' }],
  ['per cent', { t: 'percent' }],
  ['half of', { t: 'scale', v: '0.5' }],
  ['plus', { t: 'op', v: '+' }],
  ['minus', { t: 'op', v: '-' }],
  ['times', { t: 'op', v: '*' }],
  ['x', { t: 'op', v: '*' }],
  ['over', { t: 'op', v: '/' }],
  ['squared', { t: 'post', v: 2 }],
  ['cubed', { t: 'post', v: 3 }],
  ['sqrt', { t: 'fn', v: 'sqrt' }],
  ['percent', { t: 'percent' }],
  ['of', { t: 'of' }],
  ['and', { t: 'and' }],
  ['negative', { t: 'neg' }],
  ['twice', { t: 'scale', v: '2' }],
  ['double', { t: 'scale', v: '2' }],
  ['triple', { t: 'scale', v: '3' }],
];

/** words that carry no arithmetic and are dropped wherever they appear */
const FILLER = new Set(['the', 'a', 'an', 'by', 'value', 'result', 'number']);

const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: Record<string, bigint> = { thousand: 1000n, million: 1000000n };

function numberWord(w: string): { kind: 'unit' | 'hundred' | 'scale'; v: bigint } | null {
  const u = UNITS.indexOf(w);
  if (u >= 0) return { kind: 'unit', v: BigInt(u) };
  const t = TENS.indexOf(w);
  if (t >= 2) return { kind: 'unit', v: BigInt(t * 10) };
  if (w === 'hundred') return { kind: 'hundred', v: 100n };
  if (w in SCALES) return { kind: 'scale', v: SCALES[w] };
  return null;
}

/**
 * "one hundred twenty three thousand" → 123000; returns the value and how many words it used. The
 * words must follow the grammar of an English numeral — a tens word before at most one digit word,
 * "hundred" once per group and after a word under twenty, each scale once and falling, "zero" alone —
 * or the number ends where the grammar breaks: "twenty twenty" and "nineteen ninety" are two numbers
 * side by side (which no expression accepts), never 40 or 109.
 */
function readNumberWords(words: string[], i: number): { v: string; used: number } | null {
  let total = 0n;
  let group = 0n;
  let hundreds = false;
  let tens = false;
  let units = false;
  let lastScale = 0n;
  let j = i;
  for (; j < words.length; j++) {
    const n = numberWord(words[j]);
    if (!n) {
      // "and" inside a number ("one hundred and five") right after "hundred", when a number under 100 follows
      const next = numberWord(words[j + 1] ?? '');
      if (words[j] === 'and' && hundreds && !tens && !units && next?.kind === 'unit' && next.v > 0n) continue;
      break;
    }
    if (n.kind === 'unit') {
      if (n.v === 0n) {
        if (j === i) j++;
        break;
      }
      if (n.v >= 20n ? tens || units : units || (tens && n.v >= 10n)) break;
      if (n.v >= 20n) tens = true;
      else units = true;
      group += n.v;
    } else if (n.kind === 'hundred') {
      // "hundred" alone ("a hundred") or after one to nineteen ("twelve hundred"), once per group
      if (hundreds || tens || (!units && j !== i)) break;
      group = (units ? group : 1n) * 100n;
      hundreds = true;
      units = false;
    } else {
      if ((lastScale !== 0n && n.v >= lastScale) || (group === 0n && j !== i)) break;
      total += (group === 0n ? 1n : group) * n.v;
      lastScale = n.v;
      group = 0n;
      hundreds = tens = units = false;
    }
  }
  return j === i ? null : { v: String(total + group), used: j - i };
}

const NUMBER = /^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|^\.\d+/;

/** Tokens of one side of the text, or null when any part of it is outside the vocabulary. */
export function tokenize(text: string): Tok[] | null {
  const out: Tok[] = [];
  let s = text;
  while (s.length) {
    // a comma outside a number is refused, not skipped: "2 plus 3, times 4" groups the sum, which the grammar cannot say
    const ws = /^\s+/.exec(s);
    if (ws) {
      s = s.slice(ws[0].length);
      continue;
    }
    const num = NUMBER.exec(s);
    if (num) {
      let v = num[0].replace(/,/g, '');
      if (v.startsWith('.')) v = '0' + v;
      out.push({ t: 'num', v });
      s = s.slice(num[0].length);
      continue;
    }
    if (s.startsWith('**')) {
      out.push({ t: 'op', v: '^' });
      s = s.slice(2);
      continue;
    }
    const c = s[0];
    if ('+-*/^'.includes(c)) out.push({ t: 'op', v: c as '+' });
    else if (c === '(' || c === ')') out.push({ t: c });
    else if (c === '%') out.push({ t: 'percent' });
    if ('+-*/^()%'.includes(c)) {
      s = s.slice(1);
      continue;
    }
    const word = /^[a-z]+/.exec(s);
    if (!word) return null;
    // phrases and number words read over the rest of the text as words
    const words = s.split(/\s+/);
    const phrase = PHRASES.find(([p]) => (s === p || s.startsWith(p + ' ') || s.startsWith(p + '(')) && p.split(' ').length <= words.length);
    if (phrase) {
      out.push(phrase[1]);
      s = s.slice(phrase[0].length);
      continue;
    }
    const nw = words[0] === word[0] ? readNumberWords(words, 0) : null;
    if (nw) {
      out.push({ t: 'num', v: nw.v });
      s = words.slice(nw.used).join(' ');
      continue;
    }
    if (FILLER.has(word[0])) {
      s = s.slice(word[0].length);
      continue;
    }
    return null;
  }
  return out;
}
