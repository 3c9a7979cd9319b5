import type { ValidateFunction } from 'ajv';

/** What one validator makes of a document: its answer, its errors and the document after (defaults filled). */
export interface Outcome {
  ok: boolean;
  errors: unknown;
  data: unknown;
}

/**
 * The outcomes of two validators on copies of the same document: a generated validator is held to
 * a compile's answer, errors and filled defaults.
 */
export function outcomes(generated: ValidateFunction, compiled: ValidateFunction, doc: unknown): { generated: Outcome; compiled: Outcome } {
  const run = (v: ValidateFunction): Outcome => {
    const data = JSON.parse(JSON.stringify(doc)) as unknown;
    const ok = v(data) as boolean;
    return { ok, errors: JSON.parse(JSON.stringify(v.errors ?? null)) as unknown, data };
  };
  return { generated: run(generated), compiled: run(compiled) };
}
