/**
 * Where a sentence of a claim or a context ends, and whether it asks rather than states. A context
 * sentence is evidence on its own, so a cut in the middle of a sentence makes a fragment the context
 * never asserted: "It is false that\nthe sky is green." or "It is a myth that the U.S. economy grew
 * 5%." once gave the claims "The sky is green." and "Economy grew 5%." a VERIFIED SUPPORTED. So a
 * cut is made only where a sentence plainly ends, and a doubtful place is no cut (the text then
 * stays one longer sentence, which matches less, never more).
 */

/** `.`, `!` or `?` then white space; or a blank line (a paragraph break). A single line break is white space. */
const BOUNDARY = /(?<=[.!?])\s+|\n[^\S\n]*\n\s*/g;

/** words whose period is an abbreviation's, not a sentence's end ("Dr. Smith", "approx. 500", "vs. Spain") */
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'mx', 'dr', 'prof', 'rev', 'hon', 'gen', 'col', 'capt', 'lt', 'sgt', 'sen', 'rep', 'gov', 'pres', 'st', 'sr', 'jr',
  'vs', 'cf', 'approx', 'ca', 'incl', 'esp', 'viz', 'resp',
]);
/** abbreviations only before a number ("No. 5", "Fig. 3"): elsewhere "no." ends a sentence ("The answer is no.") */
const BEFORE_NUMBER: ReadonlySet<string> = new Set(['no', 'nos', 'nr', 'fig', 'figs', 'vol', 'pp', 'art', 'sec', 'ch']);

/** Whether the period that ends `before` (the sentence's last characters) is an abbreviation's, given the character after the break. */
function abbreviationEnds(before: string, next: string): boolean {
  const m = /(\S+)\.$/u.exec(before);
  if (!m) return false;
  const word = m[1].replace(/^[^\p{L}\p{N}]+/u, '');
  // an initial or a dotted abbreviation: "J. Smith", "U.S. economy", "e.g. Paris"
  if (/^\p{L}$/u.test(word) || /^\p{L}+(?:\.\p{L}+)+$/u.test(word)) return true;
  const w = word.toLowerCase();
  return ABBREVIATIONS.has(w) || (BEFORE_NUMBER.has(w) && /\p{N}/u.test(next));
}

/** The sentences of a text, each trimmed; empty pieces dropped. */
export function splitSentences(text: string): string[] {
  const src = text.replace(/\r\n?/g, '\n');
  const out: string[] = [];
  let start = 0;
  for (const m of src.matchAll(BOUNDARY)) {
    const end = m.index;
    const next = src[end + m[0].length];
    if (next === undefined) break;
    // a sentence does not begin with a lower-case letter: the break is inside one
    if (/\p{Ll}/u.test(next)) continue;
    if (src[end - 1] === '.' && abbreviationEnds(src.slice(Math.max(start, end - 64), end), next)) continue;
    out.push(src.slice(start, end));
    start = end + m[0].length;
  }
  out.push(src.slice(start));
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * A sentence with a question mark anywhere asks or doubts ("The sky is green?!", "(The sky is
 * green?)", a full-width `？`, Arabic `؟`, the Greek question mark U+037E, `‽`): it is never evidence. Read
 * before NFKC, which turns U+037E into a semicolon (written as an escape: it is canonically equal to `;`).
 */
const QUESTION = /[?？﹖︖⁇⁈⁉‽⸮؟\u037e¿՞፧]/u;

export const isQuestion = (sentence: string): boolean => QUESTION.test(sentence);
