/**
 * The one spelling of an expression the engine reads, the proof evidence binds and attestations
 * name. NFKC folds width and compatibility forms (fullwidth digits, the ﹦ sign) but also glues
 * superscripts to their base: "3²" would read as 32 and "10⁻³" as 10−3, so `3² = 32` was proven.
 * A run of superscript digits (with an optional leading sign) is an exponent and is rewritten as
 * one before NFKC; any other character NFKC would turn into digits (subscripts, circled or
 * parenthesised numbers, vulgar fractions) is refused by parseInput (`gluedDigits`).
 */
const SUPERSCRIPT: Readonly<Record<string, string>> = {
  '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁺': '+', '⁻': '-',
};
const EXPONENT = /[⁺⁻]?[⁰¹²³⁴-⁹]+/g;
const ASCII = /^[\x00-\x7f]*$/;

export function normalizeMathInput(raw: string): string {
  if (ASCII.test(raw)) return raw.trim();
  return raw
    .replace(EXPONENT, (m) => `^(${[...m].map((c) => SUPERSCRIPT[c]).join('')})`)
    .normalize('NFKC')
    .trim();
}

/**
 * The first character of `raw` (after the exponent rewrite) that is not a decimal digit yet NFKC
 * turns into one or more ASCII digits, or undefined. A decimal digit of another width or style
 * (fullwidth １, mathematical bold 𝟏) stays a digit of the number it is written in.
 */
export function gluedDigits(raw: string): string | undefined {
  if (ASCII.test(raw)) return undefined;
  for (const ch of raw.replace(EXPONENT, '')) {
    if (ch <= '\x7f' || /\p{Nd}/u.test(ch)) continue;
    if (/[0-9]/.test(ch.normalize('NFKC'))) return ch;
  }
  return undefined;
}
