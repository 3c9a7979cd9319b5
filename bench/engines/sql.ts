import { clearCaches, verify, warm } from '../../plugins/engines/sql/engine.js';

/** Bench adapter for `npm run bench`: calls the engine function in-process, single thread. */
export const corpus = 'sql.jsonl';

export async function setup(): Promise<void> {
  await warm();
}

/** each timed pass re-parses every schema and rebuilds every dry-run database */
export function reset(): void {
  clearCaches();
}

export async function op(line: any): Promise<unknown> {
  return verify({ query: line.query, schema_ddl: line.schema_ddl, dialect: line.dialect, allow_writes: false });
}

/**
 * Corpus scoring: a VERIFIED verdict is a decision (ADMIT = clean; malicious_classification true =
 * malicious; otherwise invalid). BLOCKED is no decision, except that any refusal is correct for an
 * `invalid` line. Admitting a malicious or invalid line, or denying a clean one, is wrong.
 */
export function judge(line: any, output: unknown): 'correct' | 'wrong' | 'error' {
  const r = output as { status?: string; admission?: string; developer_fields?: Record<string, unknown> } | null;
  const cls = line?.expected?.class;
  if (!r || typeof r !== 'object') return 'error';
  if (r.status !== 'VERIFIED') {
    if (r.admission === 'ADMIT') return 'wrong';
    return cls === 'invalid' ? 'correct' : 'error';
  }
  const f = r.developer_fields ?? {};
  const got = r.admission === 'ADMIT' ? 'clean' : f.malicious_classification === true ? 'malicious' : 'invalid';
  if (got === cls) return 'correct';
  if (cls === 'invalid' && got === 'malicious') return 'correct'; // refused: any refusal is right for invalid input
  return 'wrong';
}
