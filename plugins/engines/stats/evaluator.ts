/**
 * The statistics evaluator: the one file the sandbox child may read (node --experimental-permission
 * --allow-fs-read=<this file>). It therefore imports nothing, not even decimal.js: exact decimal
 * arithmetic is done here on BigInt fractions. It receives an already validated declarative query
 * and the needed columns on stdin, and writes one JSON result on stdout. No code is ever evaluated.
 */

export type Aggregate = 'count' | 'sum' | 'mean' | 'min' | 'max' | 'median';
export type Op = '=' | '!=' | '<' | '<=' | '>' | '>=';

export interface Condition {
  column: string;
  op: Op;
  value: string;
}

export interface StatsQuery {
  aggregate: Aggregate;
  /** `*` (count only) counts rows */
  column: string;
  filter?: Condition[];
  group?: string;
}

export interface EvalInput {
  query: StatsQuery;
  /** column name → cells (only the columns the query names) */
  columns: Record<string, string[]>;
  rows: number;
}

export interface EvalValue {
  /** exact: an integer, a terminating decimal, or p/q */
  exact: string;
  /** decimal rendering, rounded half-even to 20 places when not terminating */
  decimal: string;
  /** sample size the aggregate ran over */
  n: number;
}

export type EvalOutput =
  | { ok: true; value: EvalValue | null; groups: Record<string, EvalValue> | null }
  | { ok: false; error: string };

interface Frac {
  n: bigint;
  d: bigint;
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?$/;

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function frac(n: bigint, d: bigint): Frac {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

/** "1.50", "-2e3", ".5" → exact fraction; null when the cell is not a plain decimal number */
export function parseDecimal(text: string): Frac | null {
  const s = text.trim();
  if (!DECIMAL.test(s)) return null;
  const [mant, expPart] = s.split(/[eE]/);
  const neg = mant.startsWith('-');
  const body = mant.replace(/^[+-]/, '');
  const [int, fr = ''] = body.split('.');
  let n = BigInt((int || '0') + fr);
  let d = 10n ** BigInt(fr.length);
  const e = expPart ? Number(expPart) : 0;
  if (e > 0) n *= 10n ** BigInt(e);
  else if (e < 0) d *= 10n ** BigInt(-e);
  return frac(neg ? -n : n, d);
}

const add = (a: Frac, b: Frac) => frac(a.n * b.d + b.n * a.d, a.d * b.d);
const cmp = (a: Frac, b: Frac) => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};

function terminates(d: bigint): boolean {
  while (d % 2n === 0n) d /= 2n;
  while (d % 5n === 0n) d /= 5n;
  return d === 1n;
}

/** Decimal text of a fraction: exact when it terminates, else rounded half-even at 20 places. */
export function toDecimal(f: Frac, places = 20): string {
  const neg = f.n < 0n;
  const n = neg ? -f.n : f.n;
  let digits = places;
  if (terminates(f.d)) {
    // d = 2^a·5^b needs exactly max(a, b) places
    let a = 0;
    let b = 0;
    for (let d = f.d; d % 2n === 0n; d /= 2n) a++;
    for (let d = f.d; d % 5n === 0n; d /= 5n) b++;
    digits = Math.max(a, b);
  }
  const scale = 10n ** BigInt(digits);
  let q = (n * scale) / f.d;
  const rem = (n * scale) % f.d;
  if (rem * 2n > f.d || (rem * 2n === f.d && q % 2n === 1n)) q += 1n;
  const s = q.toString().padStart(digits + 1, '0');
  const out = digits ? `${s.slice(0, -digits)}.${s.slice(-digits)}` : s;
  return (neg && q !== 0n ? '-' : '') + out;
}

function value(f: Frac, n: number): EvalValue {
  const exact = terminates(f.d) ? toDecimal(f) : `${f.n}/${f.d}`;
  return { exact, decimal: toDecimal(f), n };
}

function matches(cell: string, c: Condition): boolean {
  const a = parseDecimal(cell);
  const b = parseDecimal(c.value);
  if (a && b) {
    const r = cmp(a, b);
    return { '=': r === 0, '!=': r !== 0, '<': r < 0, '<=': r <= 0, '>': r > 0, '>=': r >= 0 }[c.op];
  }
  // text compares only for (in)equality; an ordering over non-numbers matches nothing
  if (c.op === '=') return cell.trim() === c.value.trim();
  if (c.op === '!=') return cell.trim() !== c.value.trim();
  return false;
}

class EvalError extends Error {}

function aggregate(q: StatsQuery, cells: string[]): EvalValue | null {
  if (q.aggregate === 'count') {
    const n = q.column === '*' ? cells.length : cells.filter((c) => c.trim() !== '').length;
    return value(frac(BigInt(n), 1n), n);
  }
  const nums: Frac[] = [];
  for (const c of cells) {
    if (c.trim() === '') continue;
    const f = parseDecimal(c);
    if (!f) throw new EvalError(`column ${q.column} holds a non-numeric value (${JSON.stringify(c.slice(0, 40))})`);
    nums.push(f);
  }
  if (q.aggregate === 'sum') return value(nums.reduce(add, frac(0n, 1n)), nums.length);
  if (nums.length === 0) throw new EvalError(`no numeric values in ${q.column} to take the ${q.aggregate} of`);
  switch (q.aggregate) {
    case 'mean': {
      const s = nums.reduce(add, frac(0n, 1n));
      return value(frac(s.n, s.d * BigInt(nums.length)), nums.length);
    }
    case 'min':
      return value(nums.reduce((a, b) => (cmp(b, a) < 0 ? b : a)), nums.length);
    case 'max':
      return value(nums.reduce((a, b) => (cmp(b, a) > 0 ? b : a)), nums.length);
    case 'median': {
      const sorted = [...nums].sort(cmp);
      const mid = sorted.length >> 1;
      const m = sorted.length % 2 ? sorted[mid] : (() => {
        const s = add(sorted[mid - 1], sorted[mid]);
        return frac(s.n, s.d * 2n);
      })();
      return value(m, nums.length);
    }
  }
  return null;
}

export function evaluate(input: EvalInput): EvalOutput {
  try {
    const { query: q, columns, rows } = input;
    const keep: number[] = [];
    for (let i = 0; i < rows; i++) if ((q.filter ?? []).every((c) => matches(columns[c.column][i], c))) keep.push(i);
    const cellsOf = (idx: number[]) => (q.column === '*' ? idx.map(() => '') : idx.map((i) => columns[q.column][i]));
    if (!q.group) return { ok: true, value: aggregate(q, cellsOf(keep)), groups: null };
    const groups = new Map<string, number[]>();
    for (const i of keep) {
      const k = columns[q.group][i];
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(i);
    }
    // no prototype: a group named "__proto__" set the object's prototype and vanished from the result
    const out: Record<string, EvalValue> = Object.create(null);
    for (const k of [...groups.keys()].sort()) out[k] = aggregate(q, cellsOf(groups.get(k)!)) as EvalValue;
    return { ok: true, value: null, groups: out };
  } catch (err) {
    if (err instanceof EvalError) return { ok: false, error: err.message };
    return { ok: false, error: 'evaluation failed' };
  }
}

/** child-process entry: only when started by the sandbox with its marker argument */
if (process.argv.includes('--proofgate-stats-sandbox')) {
  const chunks: string[] = [];
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d: string) => chunks.push(d));
  process.stdin.on('end', () => {
    let out: EvalOutput;
    try {
      const input = JSON.parse(chunks.join('')) as EvalInput & { probe?: boolean };
      out = input.probe ? { ok: true, value: null, groups: null } : evaluate(input);
    } catch {
      out = { ok: false, error: 'malformed sandbox input' };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  });
}
