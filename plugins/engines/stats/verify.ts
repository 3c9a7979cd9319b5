import { HttpError } from '../../../core/errors.js';
import { blocked, unverifiable, type DiagnosticResult } from '../../../core/verdict.js';
import { CsvError, parseCsv } from './csv.js';
import { C, StatsProblems } from './errors.js';
import type { EvalInput, EvalValue } from './evaluator.js';
import { compileQuery, QueryError } from './query.js';
import type { Sandbox } from './sandbox.js';

export const LIMITS = {
  /** upload byte cap (the route's body limit adds room for the multipart envelope) */
  fileBytes: 10 * 1024 * 1024,
  /** rows × columns, header included, counted while reading */
  cells: 1_000_000,
} as const;

/** CSV text → parsed table; every CSV problem is an HttpError (400 or 413). */
export function readCsv(data: Buffer): { header: string[]; rows: string[][] } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new HttpError(StatsProblems.badCsv, 'the CSV is not valid UTF-8');
  }
  try {
    return parseCsv(text, LIMITS.cells);
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    if (err.kind === 'cell_cap') throw new HttpError(StatsProblems.tooManyCells, `the CSV has more than ${LIMITS.cells} cells (rows × columns)`);
    throw new HttpError(StatsProblems.badCsv, err.message);
  }
}

const num = (v: EvalValue) => Number(v.decimal);

/**
 * Query validation, then evaluation in the sandbox. Success is UNVERIFIABLE (execution is not
 * verification, decisions §1); a refused query or a failed evaluation is BLOCKED; a sandbox that
 * cannot start is a 503 with no in-process fallback.
 */
export async function verifyStats(
  sandbox: Sandbox,
  table: { header: string[]; rows: string[][] },
  queryText: string,
  signal?: AbortSignal,
): Promise<DiagnosticResult> {
  let query;
  try {
    query = compileQuery(queryText, table.header);
  } catch (err) {
    if (!(err instanceof QueryError)) throw err;
    return blocked(`The statistics query was refused: ${err.message}.`, C.validation, { error: 'validation_error', message: err.message });
  }
  const needed = new Set([query.column, query.group, ...(query.filter ?? []).map((c) => c.column)].filter((c): c is string => !!c && c !== '*'));
  const columns: Record<string, string[]> = {};
  for (const name of needed) {
    const k = table.header.indexOf(name);
    columns[name] = table.rows.map((r) => r[k]);
  }
  const input: EvalInput = { query, columns, rows: table.rows.length };
  const outcome = await sandbox.run(input, signal);
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
  const fields: Record<string, unknown> = { query, rows: table.rows.length, execution: 'sandbox' };
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
