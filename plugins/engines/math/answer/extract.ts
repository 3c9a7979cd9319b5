import { C, MathRefusal } from '../errors.js';
import type { DecimalSeparator } from '../latex/index.js';

export type Source = 'boxed' | 'answer_phrase' | 'whole' | 'last_math' | 'last_number';

/** the braced argument starting at `open` (the index of `{`), or null when unbalanced */
function bracedAt(text: string, open: number): { inner: string; end: number } | null {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return { inner: text.slice(open + 1, i), end: i + 1 };
  }
  return null;
}

/**
 * A unit written right after the box — `\boxed{5}\text{ cm}`, `\boxed{15} cm^2.` (a word then the end
 * of the sentence) — belongs to the answer: without it, `\boxed{5} cm` would be compared as a bare 5.
 */
const UNIT_AFTER = /^\$?\s*(\\(?:text|mbox|mathrm)\s*\{[^{}]*\}(?:\^\{?\d\}?)?|[A-Za-z]{1,12}(?:\^\{?\d\}?)?(?=\s*(?:[.,;:!?$]|$)))/;
const NOT_UNITS = /^(?:\\[a-z]+\s*\{\s*)?(?:and|or|is|so|as|if|the|we|for|to|of|in|it|this|that|then|thus|here|which)\b/i;

/** the content of the last `\boxed{…}` (or `\fbox{…}`) with a unit written right after it, or null when there is none */
export function lastBoxed(text: string): string | null {
  const re = /\\(?:boxed|fbox)\s*\{/g;
  let found: string | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const b = bracedAt(text, m.index + m[0].length - 1);
    if (!b) throw new MathRefusal(C.parseError, "A '\\boxed{' is never closed.", { error: 'parse_error' });
    const unit = UNIT_AFTER.exec(text.slice(b.end, b.end + 200));
    found = unit && !NOT_UNITS.test(unit[1]) ? `${b.inner} ${unit[1]}` : b.inner;
    re.lastIndex = b.end;
  }
  return found;
}

/**
 * The content of the last math span — `$…$`, `$$…$$`, `\(…\)`, `\[…\]` — of a text (an escaped
 * `\$` is a dollar sign, not a delimiter), or null when it has none.
 */
function lastMath(text: string): string | null {
  const masked = text.replace(/\\\$/g, '\u0000\u0000');
  const re = /\$\$([\s\S]+?)\$\$|\$([^$]+?)\$|\\\(([\s\S]+?)\\\)|\\\[([\s\S]+?)\\\]/g;
  let found: string | null = null;
  for (let m = re.exec(masked); m; m = re.exec(masked)) {
    const inner = m[1] ?? m[2] ?? m[3] ?? m[4];
    const at = m.index + m[0].indexOf(inner);
    const raw = text.slice(at, at + inner.length).trim();
    if (raw !== '') found = raw;
  }
  return found;
}

const PHRASE = /\b(?:final answer|answer)\s*(?:is|:)\s*:?\s*/gi;

/** after the last "answer is" / "answer:": up to the line's end or the first sentence end */
function afterPhrase(text: string): string | null {
  let at = -1;
  for (let m = PHRASE.exec(text); m; m = PHRASE.exec(text)) at = m.index + m[0].length;
  PHRASE.lastIndex = 0;
  if (at < 0) return null;
  let rest = text.slice(at).split('\n')[0];
  // a full stop ends the sentence unless a digit follows it (3.5)
  const stop = /\.(?=\s|$)/.exec(rest);
  if (stop) rest = rest.slice(0, stop.index);
  rest = rest.replace(/^\*+|\*+$/g, '').trim();
  return rest === '' ? null : rest;
}

/** the text reads as one formula: no run of three letters outside commands and `\text{…}` */
function looksLikeFormula(text: string): boolean {
  const bare = text.replace(/\\(?:text|mathrm|mbox|textbf|textrm|operatorname|begin|end)\s*\{[^{}]*\}/g, ' ').replace(/\\[A-Za-z]+/g, ' ');
  // a `$` left inside once the whole text's own delimiters are off opens a math span among words
  const inner = text.trim().replace(/^\$\$?|\$?\$$/g, '');
  if (/(?<!\\)\$/.test(inner)) return false;
  return !/[A-Za-z]{3,}/.test(bare.replace(/\b(?:sqrt|cbrt|sin|cos|tan|log|ln|exp|abs|pi)\b/g, ' ')) && !/\n/.test(text.trim());
}

function lastNumber(text: string, dec: DecimalSeparator): string | null {
  // a number glued to letters (`AZ2A`, `x2`) is part of a word, not a number of the text
  const re = dec === '.' ? /(?<![\d.,A-Za-z])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\dA-Za-z])/g : /(?<![\d.,A-Za-z])-?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?(?![\dA-Za-z])/g;
  let found: RegExpExecArray | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) found = m;
  if (!found) return null;
  // a number inside a formula (`\frac{5}{36}`, `5/36`, `x^2`) is not the formula's value: refused, never taken
  const before = text.slice(Math.max(0, found.index - 1), found.index);
  const after = text.slice(found.index + found[0].length, found.index + found[0].length + 1);
  if (/[{}^_/\\*]/.test(before) || /[{}^_/*\\]/.test(after)) {
    throw new MathRefusal(C.parseError, `No final answer found: the last number (${found[0]}) is part of a formula written outside math delimiters; box the answer or say "the answer is …".`, { error: 'parse_error' });
  }
  // `… are 2 and 3`, `2, 3 or 4`: the text ends in several numbers, not in one
  if (/\d\s*(?:,|\band\b|\bor\b|&)\s*$/i.test(text.slice(Math.max(0, found.index - 40), found.index))) {
    throw new MathRefusal(C.parseError, `No final answer found: the text ends in a list of numbers (… ${found[0]}); box the answer or say "the answer is …".`, { error: 'parse_error' });
  }
  return found[0];
}

/**
 * The final answer in a model's text, by fixed rules in this order (docs/engines/math.md,
 * "Answer equivalence"): the last `\boxed{…}`; else what follows the last "answer is" or
 * "answer:" up to the end of its sentence; else the whole text when it reads as one formula or is
 * one short line of words; else the last math span (`$…$`, `\(…\)`); else the last number. Never a language model, never a guess beyond these.
 */
export function extractAnswer(text: string, dec: DecimalSeparator): { text: string; source: Source } {
  const boxed = lastBoxed(text);
  if (boxed !== null) return { text: boxed, source: 'boxed' };
  const phrase = afterPhrase(text);
  if (phrase !== null) return { text: phrase, source: 'answer_phrase' };
  // one short line of words alone (`Monday`, `no solution`) is a text answer as a whole
  // a formula, one short line of words (`Monday`), or a number and its unit words (`28 percent`)
  const line = text.trim();
  if (looksLikeFormula(text) || /^[A-Za-z][A-Za-z ,.'-]{0,99}$/.test(line) || /^-?\d[\d.,]*\s+[A-Za-z]+(?: [A-Za-z]+){0,3}\.?$/.test(line)) return { text, source: 'whole' };
  const math = lastMath(text);
  if (math !== null) return { text: math, source: 'last_math' };
  const n = lastNumber(text, dec);
  if (n !== null) return { text: n, source: 'last_number' };
  throw new MathRefusal(C.parseError, 'No final answer found: no \\boxed{…}, no "the answer is …", and no number in the text.', { error: 'parse_error' });
}
