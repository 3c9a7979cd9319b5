import type { Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { blocked, unverifiable, type DiagnosticResult } from '../../../core/verdict.js';
import { C, StatsProblems } from './errors.js';
import type { EvalValue } from './evaluator.js';
import type { Prepared } from './engine.js';
import type { Sandbox } from './sandbox.js';

export const LIMITS = {
  /** upload byte cap (the route's body limit adds room for the multipart envelope) */
  fileBytes: 10 * 1024 * 1024,
  /** rows × columns, header included, counted while reading */
  cells: 1_000_000,
} as const;

/**
 * The legacy double. JSON has no Infinity: JSON.stringify wrote a value past the double range
 * (1e400) as null while the response was checked as a number, so say null outright (the schema
 * allows it); value_exact holds the value.
 */
const num = (v: EvalValue): number | null => {
  const n = Number(v.decimal);
  return Number.isFinite(n) ? n : null;
};

/** The HTTP problem of a CSV the worker refused (400 invalid, 413 past a cap). */
export function csvProblem(p: Extract<Prepared, { ok: false }>, maxColumns: number): HttpError {
  if (p.kind === 'cell_cap') return new HttpError(StatsProblems.tooManyCells, `the CSV has more than ${LIMITS.cells} cells (rows × columns)`);
  if (p.kind === 'column_cap') {
    return new HttpError(StatsProblems.tooManyColumns, `the CSV header has more than ${maxColumns} columns (plugin_config.stats.max_columns)`);
  }
  return new HttpError(StatsProblems.badCsv, p.message);
}

export function queryRefused(message: string): DiagnosticResult {
  return blocked(`The statistics query was refused: ${message}.`, C.validation, { error: 'validation_error', message });
}

/**
 * Evaluation in the sandbox of a query the worker validated against the CSV. Success is
 * UNVERIFIABLE (execution is not verification, decisions §1); a failed evaluation is BLOCKED; a
 * sandbox that cannot start is a 503 with no in-process fallback.
 */
export async function runPrepared(sandbox: Sandbox, prepared: Extract<Prepared, { ok: true }>, signal?: AbortSignal): Promise<DiagnosticResult> {
  const { query, rows } = prepared;
  const outcome = await sandbox.run(prepared.stdin, signal);
  if (outcome.kind === 'unavailable') {
    throw new HttpError(StatsProblems.sandboxUnavailable, 'The statistics sandbox cannot run; no in-process fallback exists.', {
      constraintId: C.runtime,
      headers: { 'retry-after': '5' },
    });
  }
  if (outcome.kind === 'failure') {
    const msg = { timeout: 'the evaluation exceeded its time limit', cancelled: 'the request was cancelled', crashed: 'the evaluation process failed (e.g. its memory cap)', bad_output: 'the evaluation produced no usable result' }[outcome.reason];
    return blocked(`Statistics execution failed: ${msg}.`, C.execution, { error: outcome.reason, message: msg });
  }
  const out = outcome.output;
  if (!out.ok) return blocked(`Statistics execution failed: ${out.error}.`, C.execution, { error: 'execution_failure', message: out.error });
  const fields: Record<string, unknown> = { query, rows, execution: 'sandbox' };
  let summary: string;
  if (out.groups) {
    fields.computed_value = Object.fromEntries(Object.entries(out.groups).map(([k, v]) => [k, num(v)]));
    fields.groups = out.groups;
    summary = `${Object.keys(out.groups).length} groups`;
  } else {
    const v = out.value as EvalValue;
    fields.computed_value = num(v);
    fields.value_exact = v.exact;
    fields.value_decimal = v.decimal;
    fields.sample_size = v.n;
    summary = v.exact;
  }
  fields.message = `Computed ${query.aggregate} of ${query.column}: ${summary}. A computed statistic is not a verified claim.`;
  return unverifiable(fields.message as string, fields);
}

/** runs the CSV parse and the query's check in the worker pool */
export type Prepare = (csv: Uint8Array | string, query: string, signal?: AbortSignal) => Promise<Prepared>;

/** `verifier.stats` for composite routes: input {csv: string, query: string}; an unusable CSV is a BLOCKED verdict */
export function statsVerifier(prepare: Prepare, sandbox: Sandbox, columnCap: number): Verifier {
  return {
    async verify(input, o) {
      const { csv, query } = input;
      if (typeof csv !== 'string' || typeof query !== 'string' || Buffer.byteLength(csv) > LIMITS.fileBytes) {
        return blocked('A statistics request needs csv and query strings.', C.validation, { error: 'validation_error' });
      }
      const p = await prepare(csv, query, o?.signal);
      if (p.ok) return runPrepared(sandbox, p, o?.signal);
      if (p.kind === 'query') return queryRefused(p.message);
      return blocked(`The CSV was refused: ${csvProblem(p, columnCap).detail}.`, C.validation, { error: 'validation_error' });
    },
  };
}
