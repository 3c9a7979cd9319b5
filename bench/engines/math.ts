import { verify, type MathRequest } from '../../plugins/engines/math/engine.js';

/** Bench adapter for `npm run bench`: the corpus file, a warm-up, the timed call and the README's scoring. */
export const corpus = 'math.jsonl';

interface Line {
  kind: 'equation' | 'evaluate' | 'tolerance';
  expression: string;
  context?: MathRequest['context'];
  expected_value?: string;
  tolerance?: string;
  expected: { holds?: boolean; value?: string; reject?: boolean };
}

function request(line: Line): MathRequest {
  const req: MathRequest = { expression: line.expression };
  if (line.context) req.context = line.context;
  if (line.expected_value !== undefined) req.expected_value = line.expected_value;
  if (line.tolerance !== undefined) req.tolerance = line.tolerance;
  return req;
}

export async function setup(): Promise<void> {
  // loads mathjs and decimal.js and primes the exact, decimal and complex paths
  for (const e of ['(x+1)^2 = x^2+2x+1', 'sin(x)^2+cos(x)^2 = 1', 'log(x*y) = log(x)+log(y)', 'sqrt(2)', 'log(-1)']) verify({ expression: e });
  verify({ expression: 'pi', expected_value: '3.14159', tolerance: '0.00001' });
}

export async function op(line: Line): Promise<unknown> {
  return verify(request(line));
}

/** same number, written either way (`0.5` vs "0.5", "1024" vs 1024) */
function sameValue(a: unknown, b: string): boolean {
  if (a === null || a === undefined) return false;
  if (String(a) === b) return true;
  const x = Number(a);
  return Number.isFinite(x) && typeof a !== 'object' && x === Number(b) && /^-?\d+(\.\d+)?$/.test(String(a));
}

export function judge(line: Line, output: unknown): 'correct' | 'wrong' | 'error' {
  const o = output as { status?: string; developer_fields?: Record<string, unknown> } | null;
  if (!o || typeof o.status !== 'string') return 'error';
  const d = o.developer_fields ?? {};
  if (line.expected.reject) {
    if (o.status === 'BLOCKED') return 'correct';
    // answering a value or a verdict where a refusal is required
    return o.status === 'VERIFIED' || (d.value !== undefined && d.value !== null) ? 'wrong' : 'error';
  }
  if (line.expected.value !== undefined) {
    if (o.status === 'VERIFIED' || d.value === undefined || d.value === null) return o.status === 'BLOCKED' || o.status === 'UNVERIFIABLE' ? 'error' : 'wrong';
    return sameValue(d.value_exact ?? d.value, line.expected.value) || sameValue(d.value, line.expected.value) ? 'correct' : 'wrong';
  }
  if (o.status !== 'VERIFIED') return 'error';
  const decided = line.kind === 'tolerance' ? d.is_correct : d.is_valid;
  if (typeof decided !== 'boolean') return 'error';
  return decided === line.expected.holds ? 'correct' : 'wrong';
}
