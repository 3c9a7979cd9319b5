import type { ValidateFunction } from 'ajv';
import { compileSchema } from '../../core/json/validate.js';
import { exactMember } from '../../core/json/exact.js';
import { ProviderError, type FactOpinion, type LogicTranslation, type MathTranslation, type TranslationOf, type TranslationTarget } from './types.js';

/**
 * A model's reply is untrusted text. Real models wrap their JSON in prose or code fences, omit
 * `is_math`, and write numbers as strings, so the reply is read leniently in exactly those ways —
 * the first balanced JSON object in the text, `is_math` inferred from a non-null expression,
 * numeric strings for numbers — and must then match the target's shape (checked with ajv) or the
 * translation fails as `malformed_output`, carrying what the model said as untrusted data.
 */
const DECIMAL = '^-?(?:0|[1-9][0-9]{0,299})(?:\\.[0-9]{1,300})?$';
/** a confidence in 0..1 written as a string ("0.9", "1", ".75") */
const UNIT_STRING = '^(?:0(?:\\.[0-9]{1,20})?|1(?:\\.0{1,20})?|\\.[0-9]{1,20})$';
const CONFIDENCE = { oneOf: [{ type: 'number', minimum: 0, maximum: 1 }, { type: 'string', pattern: UNIT_STRING }] } as const;

const MATH_OUTPUT = {
  type: 'object',
  // the spec's translation object; is_math is optional and inferred from the expression
  required: ['expression', 'claimed_answer', 'reasoning', 'confidence'],
  properties: {
    is_math: { type: 'boolean' },
    expression: { type: ['string', 'null'], maxLength: 5000 },
    claimed_answer: {
      oneOf: [{ type: 'number' }, { type: 'string', pattern: DECIMAL }, { type: 'null' }],
    },
    reasoning: { type: 'string', maxLength: 4000 },
    confidence: CONFIDENCE,
  },
  if: { required: ['is_math'], properties: { is_math: { const: true } } },
  then: { properties: { expression: { type: 'string', minLength: 1 } } },
} as const;

const LOGIC_OUTPUT = {
  type: 'object',
  required: ['expression'],
  properties: { expression: { type: 'string', minLength: 1, maxLength: 65536 } },
} as const;

const FACT_OUTPUT = {
  type: 'object',
  required: ['verdict', 'reasoning', 'confidence'],
  properties: {
    verdict: { enum: ['SUPPORTED', 'REFUTED', 'INCONCLUSIVE'] },
    reasoning: { type: 'string', maxLength: 4000 },
    confidence: CONFIDENCE,
  },
} as const;

/** chat envelopes: only the parts read are checked */
export const OPENAI_ENVELOPE = {
  type: 'object',
  required: ['choices'],
  properties: {
    choices: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['message'], properties: { message: { type: 'object', required: ['content'], properties: { content: { type: 'string' } } } } },
    },
  },
} as const;

export const ANTHROPIC_ENVELOPE = {
  type: 'object',
  required: ['content'],
  properties: {
    content: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, text: { type: 'string' } } },
    },
  },
} as const;

const SHAPES = { math: MATH_OUTPUT, logic_dsl: LOGIC_OUTPUT, fact_opinion: FACT_OUTPUT, openai: OPENAI_ENVELOPE, anthropic: ANTHROPIC_ENVELOPE };
type Shape = keyof typeof SHAPES;
// compiled on first use: a sidecar that never calls a model should not pay for them at start-up
const compiled = new Map<Shape, ValidateFunction>();
function validator(kind: Shape): ValidateFunction {
  let v = compiled.get(kind);
  if (!v) {
    v = compileSchema(SHAPES[kind]);
    compiled.set(kind, v);
  }
  return v;
}

export function checkEnvelope(kind: 'openai' | 'anthropic', body: unknown, provider: string): void {
  if (!validator(kind)(body)) throw new ProviderError('malformed_output', 'the provider answered with an unexpected response shape', provider);
}

/** how far past its opening brace an object is looked for: a translation is a few hundred bytes */
export const MAX_OBJECT_CHARS = 64 * 1024;
/** how much of a refused reply is handed back to the caller as untrusted data */
export const MAX_ECHO_CHARS = 4000;

/**
 * The first balanced `{…}` of the text, aware of JSON strings and escapes, in one pass that gives
 * up MAX_OBJECT_CHARS after the opening brace: prose before or after and code fences around it
 * are skipped, and no input makes the scan quadratic.
 */
export function firstObject(text: string): string | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  const end = Math.min(text.length, start + MAX_OBJECT_CHARS);
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

const refused = (message: string, provider: string, text: string) => new ProviderError('malformed_output', message, provider, undefined, text);

/**
 * The model's text as JSON: the whole text when it is JSON, else the first balanced object in it;
 * `json` is the object's text, where a number can still be read as written.
 */
function parseJsonText(text: string, provider: string): { value: unknown; json: string } {
  const s = text.trim();
  let whole: unknown;
  try {
    whole = JSON.parse(s);
  } catch {
    whole = undefined;
  }
  if (whole !== undefined) {
    // a bare array or number is not a translation, and is not searched for one
    if (whole === null || typeof whole !== 'object' || Array.isArray(whole)) throw refused('the provider did not answer with a JSON object', provider, text);
    return { value: whole, json: s };
  }
  const obj = firstObject(s);
  if (obj === null) throw refused('the provider did not answer with JSON', provider, text);
  try {
    return { value: JSON.parse(obj), json: obj };
  } catch {
    throw refused('the provider did not answer with JSON', provider, text);
  }
}

/** a confidence the schema accepted, as a number */
const unit = (v: number | string): number => (typeof v === 'number' ? v : Number(v));

/**
 * An exact decimal for the math engine: strings as given, a JSON number as the model wrote it. Its
 * double would not do: `0.30000000000000001` reads as 0.3, so the claim "0.1 + 0.2 = 0.3…01" was
 * checked as "= 0.3" and held. An exponent form the math engine refuses fails closed there.
 */
function exactOf(v: number | string | null, json: string): string | null {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  return exactMember(json, 'claimed_answer') ?? null;
}

export function parseOutput<T extends TranslationTarget>(target: T, text: string, provider: string): TranslationOf[T] {
  const { value, json } = parseJsonText(text, provider);
  if (!validator(target)(value)) {
    throw refused(`the provider's JSON does not match the ${target} translation schema`, provider, text);
  }
  if (target === 'fact_opinion') {
    const v = value as { verdict: FactOpinion['verdict']; reasoning: string; confidence: number | string };
    const out: FactOpinion = { verdict: v.verdict, reasoning: v.reasoning, confidence: unit(v.confidence), provider };
    return out as TranslationOf[T];
  }
  if (target === 'logic_dsl') {
    const v = value as { expression: string };
    const out: LogicTranslation = { expression: v.expression, provider };
    return out as TranslationOf[T];
  }
  const v = value as { is_math?: boolean; expression: string | null; claimed_answer: number | string | null; reasoning: string; confidence: number | string };
  // absent is_math: the translation is arithmetic exactly when it gives an expression
  const isMath = v.is_math ?? (typeof v.expression === 'string' && v.expression.trim() !== '');
  const exact = isMath ? exactOf(v.claimed_answer, json) : null;
  const out: MathTranslation = {
    is_math: isMath,
    expression: isMath ? v.expression : null,
    claimed_answer: exact === null || !Number.isFinite(Number(exact)) ? null : Number(exact),
    claimed_answer_exact: exact,
    reasoning: v.reasoning,
    confidence: unit(v.confidence),
    provider,
  };
  return out as TranslationOf[T];
}

/** A refused reply as the caller sees it: flagged untrusted, capped, and well-formed Unicode (hashable by RFC 8785). */
export interface UntrustedReply {
  untrusted: true;
  model_output: string;
  truncated: boolean;
}

export function untrustedReply(text: string): UntrustedReply {
  let cut = Math.min(text.length, MAX_ECHO_CHARS);
  // never split a surrogate pair at the cap
  if (cut < text.length && cut > 0 && /[\uD800-\uDBFF]/.test(text[cut - 1])) cut--;
  const wellFormed = (text.slice(0, cut) as string & { toWellFormed(): string }).toWellFormed();
  return { untrusted: true, model_output: wellFormed, truncated: cut < text.length };
}
