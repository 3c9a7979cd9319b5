import { Ajv, type ValidateFunction } from 'ajv';
import { ProviderError, type FactOpinion, type LogicTranslation, type MathTranslation, type TranslationOf, type TranslationTarget } from './types.js';

/**
 * A model's reply is untrusted text. It must be one JSON object of the target's shape (checked
 * with ajv) or the translation fails as `malformed_output`; nothing is repaired or guessed.
 */
const DECIMAL = '^-?(?:0|[1-9][0-9]{0,299})(?:\\.[0-9]{1,300})?$';

const MATH_OUTPUT = {
  type: 'object',
  required: ['is_math', 'expression', 'claimed_answer', 'reasoning', 'confidence'],
  properties: {
    is_math: { type: 'boolean' },
    expression: { type: ['string', 'null'], maxLength: 5000 },
    claimed_answer: {
      oneOf: [{ type: 'number' }, { type: 'string', pattern: DECIMAL }, { type: 'null' }],
    },
    reasoning: { type: 'string', maxLength: 4000 },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
  },
  if: { properties: { is_math: { const: true } } },
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
    confidence: { type: 'number', minimum: 0, maximum: 1 },
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
let ajv: Ajv | undefined;
const compiled = new Map<Shape, ValidateFunction>();
function validator(kind: Shape): ValidateFunction {
  let v = compiled.get(kind);
  if (!v) {
    ajv ??= new Ajv({ allErrors: false, strict: false });
    v = ajv.compile(SHAPES[kind]);
    compiled.set(kind, v);
  }
  return v;
}

export function checkEnvelope(kind: 'openai' | 'anthropic', body: unknown, provider: string): void {
  if (!validator(kind)(body)) throw new ProviderError('malformed_output', 'the provider answered with an unexpected response shape', provider);
}

/** The model's text as JSON: the whole text, or the whole text inside one ``` fence. */
function parseJsonText(text: string, provider: string): unknown {
  let s = text.trim();
  const fenced = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i.exec(s);
  if (fenced) s = fenced[1].trim();
  try {
    return JSON.parse(s);
  } catch {
    throw new ProviderError('malformed_output', 'the provider did not answer with JSON', provider);
  }
}

/** An exact decimal for the math engine: strings as given, numbers through their shortest form. */
function exactOf(v: number | string | null): string | null {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return null;
  // shortest round-trip form; an exponent form (1e21) that the math engine refuses fails closed there
  return String(v);
}

export function parseOutput<T extends TranslationTarget>(target: T, text: string, provider: string): TranslationOf[T] {
  const value = parseJsonText(text, provider);
  if (!validator(target)(value)) {
    throw new ProviderError('malformed_output', `the provider's JSON does not match the ${target} translation schema`, provider);
  }
  if (target === 'fact_opinion') {
    const v = value as { verdict: FactOpinion['verdict']; reasoning: string; confidence: number };
    const out: FactOpinion = { verdict: v.verdict, reasoning: v.reasoning, confidence: v.confidence, provider };
    return out as TranslationOf[T];
  }
  if (target === 'logic_dsl') {
    const v = value as { expression: string };
    const out: LogicTranslation = { expression: v.expression, provider };
    return out as TranslationOf[T];
  }
  const v = value as { is_math: boolean; expression: string | null; claimed_answer: number | string | null; reasoning: string; confidence: number };
  const exact = v.is_math ? exactOf(v.claimed_answer) : null;
  const out: MathTranslation = {
    is_math: v.is_math,
    expression: v.is_math ? v.expression : null,
    claimed_answer: exact === null ? null : Number(exact),
    claimed_answer_exact: exact,
    reasoning: v.reasoning,
    confidence: v.confidence,
    provider,
  };
  return out as TranslationOf[T];
}
