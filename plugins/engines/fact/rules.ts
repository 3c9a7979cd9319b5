/**
 * The deterministic core of fact checking: what a context *literally* states, read by two rules
 * over normalised sentences. Pure functions, no I/O.
 *
 * - exact_sentence: a claim sentence equals an assertive context sentence after normalisation.
 * - numeric_conflict: a claim sentence with exactly one number equals an assertive context
 *   sentence word for word except for that number, whose value differs, and the shared wording
 *   has none of the words that make a number inexact or conditional (INEXACT below).
 *
 * Nothing else is inferred: paraphrases, units, synonyms, arithmetic and world knowledge are out.
 */
import { isQuestion, splitSentences } from './split.js';

export const ENGINE_NAME = 'fact';
/**
 * 1.1.0: symbols and words of every script are tokens, more negations and bounds (what the rules prove changed).
 * 1.2.0: no sentence ends at a single line break, an abbreviation or before a lower-case letter; any question mark
 * makes a question; `.5` is the number 0.5.
 */
export const ENGINE_VERSION = '1.2.0';

export const LIMITS = { claimChars: 4000, contextChars: 200_000 } as const;

/** Words that make a stated number a bound, an estimate, a negation or a hypothesis, not a value. */
export const INEXACT: ReadonlySet<string> = new Set([
  'not', 'no', 'never', 'neither', 'nor', 'without', 'except', 'none',
  'about', 'approximately', 'approx', 'around', 'roughly', 'nearly', 'almost', 'circa', 'ca', 'some', 'several', 'estimated', 'estimate', 'est',
  'over', 'under', 'above', 'below', 'more', 'less', 'fewer', 'greater', 'least', 'most', 'than', 'between', 'within', 'beyond', 'up',
  'exceed', 'exceeds', 'exceeded', 'exceeding', 'times', 'fold', 'twice', 'half', 'or', 'plus', 'minus',
  'if', 'unless', 'whether', 'may', 'might', 'could', 'would', 'should', 'perhaps', 'possibly', 'probably', 'likely', 'unlikely',
  'reportedly', 'allegedly', 'claimed', 'claims', 'claim', 'said', 'says', 'believed', 'thought', 'rumored', 'rumoured', 'expected', 'projected', 'forecast',
  // negations spelt without "n't": "cannot carry 500 kg" and "cannot carry 600 kg" do not conflict
  'cannot', 'nobody', 'nothing', 'nowhere', 'hardly', 'barely', 'scarcely',
  'isnt', 'arent', 'wasnt', 'werent', 'dont', 'doesnt', 'didnt', 'cant', 'wont', 'couldnt', 'shouldnt', 'wouldnt',
  'hasnt', 'havent', 'hadnt', 'aint', 'mustnt', 'neednt', 'mightnt', 'shant',
  // bounds in time and size: "founded before 1990" and "founded before 2000" can both hold
  'before', 'after', 'since', 'until', 'till', 'prior', 'earlier', 'later', 'max', 'maximum', 'min', 'minimum', 'upto',
  // the same, as symbols (tokens() keeps them)
  '<', '>', '≤', '≥', '≦', '≧', '⩽', '⩾', '≪', '≫', '≲', '≳', '~', '∼', '≈', '≃', '≅', '±', '∓', '≠', '¬',
]);

const ARTICLES = new Set(['a', 'an', 'the']);
const SCALE: Record<string, number> = { thousand: 3, million: 6, billion: 9, trillion: 12 };

export interface Sentence {
  /** index in the context's sentence list */
  index: number;
  text: string;
  /** normalised tokens; numbers are `#<canonical decimal>` */
  tokens: string[];
  /** a question is not an assertion */
  assertive: boolean;
}

/** canonical decimal: no sign on zero, no leading zeros, no trailing fractional zeros */
export function canonicalDecimal(raw: string, shift = 0): string {
  let s = raw.replace(/,/g, '');
  const neg = s.startsWith('-');
  if (neg) s = s.slice(1);
  let [int, frac = ''] = s.split('.');
  // a scale word moves the decimal point (2.5 million → 2500000) exactly, on the digit string
  if (shift > 0) {
    const moved = frac.padEnd(shift, '0');
    int += moved.slice(0, shift);
    frac = moved.slice(shift);
  }
  int = int.replace(/^0+(?=\d)/, '') || '0';
  frac = frac.replace(/0+$/, '');
  const out = frac ? `${int}.${frac}` : int;
  return neg && out !== '0' ? `-${out}` : out;
}

const NUMBER = /^-?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)$/;

/** superscript digits: NFKC would glue "10²" into "102"; they become "^2" first */
const SUPERSCRIPT: Record<string, string> = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9' };
/**
 * One token per occurrence of: a number (canonicalised below), a word in any script (a claim in
 * Greek or Chinese is not reduced to its digits), or a symbol (\p{S}: `<`, `≥`, `$`, `€`, `°`, `^`,
 * `±`…), which changes what a sentence states and so is never dropped as punctuation would be.
 * A prime after a digit is a unit (5′ feet, 5″ inches, which NFKC spells ′′), not a quote.
 */
const TOKEN = /(?<![\p{L}\p{M}\p{N}])-?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)|(?<=\d)′+|[\p{L}\p{M}\p{N}]+(?:'[\p{L}\p{M}]+)?|\p{S}/gu;

/** Normalised tokens of one sentence (NFKC, lower case, punctuation dropped, articles dropped, numbers canonical). */
export function tokens(sentence: string): string[] {
  const s = sentence
    // invisible characters (zero-width space, soft hyphen, bidi controls) must not split "not" into "n ot"
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .replace(/[⁰¹²³⁴-⁹]+/g, (m) => '^' + [...m].map((c) => SUPERSCRIPT[c]).join(''))
    // a vulgar fraction is not glued to the digits before it by NFKC ("1½" is not "11⁄2")
    .replace(/(?<=\d)(?=[¼-¾⅐-⅟↉])/g, ' ')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’`´ʼ]/g, "'")
    .replace(/(?<=\d)'/g, '′')
    .replace(/(?<=\d)"/g, '′′')
    .replace(/[−‐‑‒]/g, '-')
    // an en or em dash right before a digit, after no letter or digit, is a minus sign ("–5 °C")
    .replace(/(?<![\p{L}\p{M}\p{N}])[–—](?=\d)/gu, '-')
    .replace(/[–—]/g, ' ')
    .replace(/%/g, ' percent ')
    .replace(/\bper cent\b/g, 'percent');
  // numbers keep their comma groups and decimal point; everything else splits on punctuation and space
  // a minus sign counts only where no letter or digit precedes it ("2010-2020" is a range, not -2020)
  const raw = s.match(TOKEN) ?? [];
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const w = raw[i];
    if (NUMBER.test(w)) {
      const scale = SCALE[raw[i + 1] ?? ''];
      if (scale !== undefined) i++;
      out.push('#' + canonicalDecimal(w, scale ?? 0));
    } else if (!ARTICLES.has(w)) out.push(w);
  }
  return out;
}

/** Sentences of a text (split.ts says where one ends and which ones ask). */
export function sentences(text: string): Sentence[] {
  return splitSentences(text)
    .map((t, index) => ({ index, text: t, tokens: tokens(t), assertive: !isQuestion(t) }))
    .filter((s) => s.tokens.length > 0)
    .map((s, index) => ({ ...s, index }));
}

const isNum = (t: string) => t.startsWith('#');
const template = (toks: string[]) => toks.map((t) => (isNum(t) ? '#' : t)).join(' ');
const hasInexact = (toks: string[]) => toks.some((t) => INEXACT.has(t) || t.endsWith("n't"));

export type SentenceOutcome =
  | { kind: 'supported'; claim: string; sentence: Sentence }
  | { kind: 'refuted'; claim: string; sentence: Sentence; claim_value: string; context_value: string }
  | { kind: 'contradictory'; claim: string; values: string[]; sentences: Sentence[] }
  | { kind: 'unknown'; claim: string };

/**
 * The context's assertive sentences indexed by wording, built once per request: each claim
 * sentence is then two map lookups, not a pass over the context (a 4,000-character claim of short
 * sentences against a 200,000-character context was ~10^8 comparisons on the event loop).
 */
export interface ContextIndex {
  /** normalised wording → first assertive sentence with it */
  byKey: Map<string, Sentence>;
  /** number-blind wording of one-number sentences → every such sentence with its value, in order */
  byTemplate: Map<string, Array<{ s: Sentence; value: string }>>;
}

export function indexContext(context: Sentence[]): ContextIndex {
  const byKey = new Map<string, Sentence>();
  const byTemplate = new Map<string, Array<{ s: Sentence; value: string }>>();
  for (const s of context) {
    if (!s.assertive) continue;
    const key = s.tokens.join(' ');
    if (!byKey.has(key)) byKey.set(key, s);
    const nums = s.tokens.filter(isNum);
    if (nums.length !== 1) continue;
    const tpl = template(s.tokens);
    let list = byTemplate.get(tpl);
    if (!list) byTemplate.set(tpl, (list = []));
    list.push({ s, value: nums[0].slice(1) });
  }
  return { byKey, byTemplate };
}

/**
 * One claim sentence against the indexed context. When the claim has one exact number, every
 * context sentence of the same wording is a statement of that quantity: if they give different
 * values the context contradicts itself and decides nothing.
 */
export function judgeSentence(claim: string, context: Sentence[] | ContextIndex): SentenceOutcome {
  const index = Array.isArray(context) ? indexContext(context) : context;
  const c = tokens(claim);
  const nums = c.filter(isNum);
  const numeric = nums.length === 1 && !hasInexact(c);
  const supporting = index.byKey.get(c.join(' '));
  const same = numeric ? (index.byTemplate.get(template(c)) ?? []) : [];
  const values = [...new Set(same.map((x) => x.value))];
  if (values.length > 1) return { kind: 'contradictory', claim, values, sentences: same.map((x) => x.s) };
  if (supporting) return { kind: 'supported', claim, sentence: supporting };
  if (same.length) return { kind: 'refuted', claim, sentence: same[0].s, claim_value: nums[0].slice(1), context_value: same[0].value };
  return { kind: 'unknown', claim };
}

export interface FactOutcome {
  verdict: 'SUPPORTED' | 'REFUTED' | 'INCONCLUSIVE';
  rule: 'exact_sentence' | 'numeric_conflict' | null;
  reasoning: string;
  sentences: SentenceOutcome[];
}

const quote = (s: string) => JSON.stringify(s.length > 200 ? s.slice(0, 197) + '...' : s);

/**
 * A claim of several sentences is a conjunction: REFUTED when one sentence is refuted, SUPPORTED
 * when every sentence is supported, otherwise INCONCLUSIVE.
 */
export function judge(claim: string, context: string): FactOutcome {
  const ctx = indexContext(sentences(context));
  const parts = sentences(claim).map((s) => s.text);
  const outcomes = parts.map((p) => judgeSentence(p, ctx));
  const refuted = outcomes.find((o) => o.kind === 'refuted');
  if (refuted && refuted.kind === 'refuted') {
    return {
      verdict: 'REFUTED',
      rule: 'numeric_conflict',
      reasoning: `Context sentence ${refuted.sentence.index + 1} (${quote(refuted.sentence.text)}) states ${refuted.context_value} where the claim states ${refuted.claim_value}, in otherwise identical wording.`,
      sentences: outcomes,
    };
  }
  if (outcomes.length > 0 && outcomes.every((o) => o.kind === 'supported')) {
    const where = outcomes.map((o) => (o.kind === 'supported' ? o.sentence.index + 1 : 0)).join(', ');
    return {
      verdict: 'SUPPORTED',
      rule: 'exact_sentence',
      reasoning: `The context states the claim literally (context sentence ${where}, after normalising case, punctuation, articles and number formatting).`,
      sentences: outcomes,
    };
  }
  const contradictory = outcomes.find((o) => o.kind === 'contradictory');
  const reasoning = contradictory
    ? 'The context gives different numbers in the same wording as the claim; it contradicts itself, so it decides nothing.'
    : 'The context does not state the claim, or a different number for the same wording, literally; nothing is inferred beyond that.';
  return { verdict: 'INCONCLUSIVE', rule: null, reasoning, sentences: outcomes };
}
