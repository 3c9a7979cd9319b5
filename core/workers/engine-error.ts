export type EngineErrorKind = 'timeout' | 'crashed' | 'failed' | 'unavailable' | 'cancelled';

/** Every way a worker task can fail, as one error type engines' routes map to BLOCKED or 503. */
export class EngineError extends Error {
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
