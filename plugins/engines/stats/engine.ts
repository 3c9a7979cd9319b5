/**
 * The statistics engine's worker side (issue 12, item 8): everything that grows with the upload —
 * UTF-8 decoding, CSV parsing, the query's check against the header, pulling out the needed
 * columns and serialising them for the sandbox — runs here, in the pool, never on the event loop.
 * The sandbox child then evaluates (decisions §8); this module computes no statistic.
 */
import { CsvError, parseCsv } from './csv.js';
import type { EvalInput, StatsQuery } from './evaluator.js';
import { compileQuery, QueryError } from './query.js';

export interface PrepareInput {
  csv: Uint8Array | string;
  query: string;
  maxCells: number;
  maxColumns: number;
}

export type Prepared =
  | { ok: true; query: StatsQuery; rows: number; /** the sandbox's stdin: JSON of the EvalInput */ stdin: string }
  | { ok: false; kind: 'bad_csv' | 'cell_cap' | 'column_cap' | 'query'; message: string };

export function prepareStats(input: PrepareInput): Prepared {
  let text: string;
  if (typeof input.csv === 'string') text = input.csv;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input.csv);
    } catch {
      return { ok: false, kind: 'bad_csv', message: 'the CSV is not valid UTF-8' };
    }
  }
  let table;
  try {
    table = parseCsv(text, input.maxCells, input.maxColumns);
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const kind = err.kind === 'cell_cap' ? 'cell_cap' : err.kind === 'column_cap' ? 'column_cap' : 'bad_csv';
    return { ok: false, kind, message: err.message };
  }
  let query: StatsQuery;
  try {
    query = compileQuery(input.query, table.header);
  } catch (err) {
    if (!(err instanceof QueryError)) throw err;
    return { ok: false, kind: 'query', message: err.message };
  }
  const needed = new Set([query.column, query.group, ...(query.filter ?? []).map((c) => c.column)].filter((c): c is string => !!c && c !== '*'));
  const index = new Map(table.header.map((h, k) => [h, k]));
  // no prototype: a column named "__proto__" set the object's prototype, vanished from the JSON and failed the evaluation
  const columns: Record<string, string[]> = Object.create(null);
  for (const name of needed) {
    const k = index.get(name)!;
    columns[name] = table.rows.map((r) => r[k]);
  }
  const evalInput: EvalInput = { query, columns, rows: table.rows.length };
  return { ok: true, query, rows: table.rows.length, stdin: JSON.stringify(evalInput) };
}
