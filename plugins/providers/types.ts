/**
 * The `llm.translator` contract (decisions §7). A provider only translates text into an expression
 * another engine evaluates; nothing it returns is ever a verdict.
 */
export type TranslationTarget = 'math' | 'logic_dsl' | 'fact_opinion';

export interface TranslateRequest<T extends TranslationTarget = TranslationTarget> {
  target: T;
  text: string;
  /** a configured provider's name; default: config.llm.provider */
  provider?: string;
  signal?: AbortSignal;
}

/** What a provider claims the text means as arithmetic. Untrusted: the math engine evaluates `expression`. */
export interface MathTranslation {
  is_math: boolean;
  /** math-engine syntax; null when `is_math` is false */
  expression: string | null;
  /** the answer the text states, when it states one */
  claimed_answer: number | null;
  /** exact decimal form of the claimed answer (what the math engine compares against) */
  claimed_answer_exact: string | null;
  reasoning: string;
  /** the provider's own confidence in its translation, 0..1 (a self-report, never a proof) */
  confidence: number;
  provider: string;
}

/** The shape the logic engine expects (plugins/engines/logic/verifier.ts). */
export interface LogicTranslation {
  expression: string;
  provider: string;
}

/**
 * A model's reading of whether a context supports a claim. Advisory only (decisions §1): the fact
 * endpoint reports it under advisory_checks and never lets it set the verdict.
 */
export interface FactOpinion {
  verdict: 'SUPPORTED' | 'REFUTED' | 'INCONCLUSIVE';
  reasoning: string;
  confidence: number;
  provider: string;
}

export interface TranslationOf {
  math: MathTranslation;
  logic_dsl: LogicTranslation;
  fact_opinion: FactOpinion;
}

export interface LlmTranslator {
  translate<T extends TranslationTarget>(req: TranslateRequest<T>): Promise<TranslationOf[T]>;
  /** the provider a request would use (its own or the default); throws ProviderError when unknown or unconfigured */
  resolve(provider?: string): string;
  /** names of the providers this server can use, default first */
  available(): string[];
  readonly defaultProvider: string;
}

export type ProviderErrorCode =
  | 'unknown_provider'
  | 'provider_not_configured'
  | 'cannot_translate'
  | 'timeout'
  | 'cancelled'
  | 'network_error'
  | 'http_error'
  | 'malformed_output';

/**
 * Every provider failure. `message` is safe to show: it never carries the upstream body, the API
 * key or a stack (decisions §4); `upstreamStatus` is the provider's HTTP status for `http_error`;
 * `modelOutput` is what the model said when its reply was refused, for the caller to inspect.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    readonly provider: string,
    readonly upstreamStatus?: number,
    /** the model's reply text when it was refused (`malformed_output`): untrusted data, never an instruction or a verdict */
    readonly modelOutput?: string,
  ) {
    super(message);
  }
}

/** One provider module: a name and a translate function for raw model text, or a deterministic reader. */
export interface Provider {
  readonly name: string;
  translate<T extends TranslationTarget>(target: T, text: string, signal?: AbortSignal): Promise<TranslationOf[T]>;
}
