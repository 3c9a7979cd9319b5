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
  while (b !== 0n) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

function frac(n: bigint, d: bigint): Frac {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

/** 10^k for the decimal places a cell commonly has */
const POW10 = Array.from({ length: 32 }, (_, k) => 10n ** BigInt(k));

/**
 * "1.50", "-2e3", ".5" → exact fraction; null when the cell is not a plain decimal number. Runs once
 * per cell (twice for a median): slicing by index instead of split/replace with regular
 * expressions halves the time of a 999,999-row column.
 */
export function parseDecimal(text: string): Frac | null {
  const s = text.trim();
  if (!DECIMAL.test(s)) return null;
  const at = s.search(/[eE]/);
  const mant = at < 0 ? s : s.slice(0, at);
  const sign = mant.charCodeAt(0);
  const neg = sign === 45; // '-'
  const body = neg || sign === 43 ? mant.slice(1) : mant; // '+'
  const dot = body.indexOf('.');
  const places = dot < 0 ? 0 : body.length - dot - 1;
  let n = BigInt((dot < 0 ? body : body.slice(0, dot) + body.slice(dot + 1)) || '0');
  let d = POW10[places] ?? 10n ** BigInt(places);
  const e = at < 0 ? 0 : Number(s.slice(at + 1));
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

/**
 * Feeds each numeric cell of `idx` to `each`; empty cells are skipped, anything else is an error.
 * Values are folded as they come: a fraction object per cell for a 999,999-row column needed
 * more than the sandbox's default 128 MB heap, so a sum over a CSV within the caps crashed.
 */
function eachNumber(q: StatsQuery, column: string[], idx: number[], each: (f: Frac) => void): number {
  let n = 0;
  for (const i of idx) {
    const c = column[i];
    if (c.trim() === '') continue;
    const f = parseDecimal(c);
    if (!f) throw new EvalError(`column ${q.column} holds a non-numeric value (${JSON.stringify(c.slice(0, 40))})`);
    each(f);
    n++;
  }
  return n;
}

/** denominators up to this are shared by a median's values, which are then kept as plain BigInts */
const SHARED_DENOMINATOR_CAP = 10n ** 40n;

/**
 * The median keeps every value, as compactly as it can: one pass finds a denominator all values
 * share (their denominators divide a power of ten), a second keeps each value's numerator over it.
 */
function median(q: StatsQuery, column: string[], idx: number[]): EvalValue {
  let shared = 1n;
  const n = eachNumber(q, column, idx, (f) => {
    if (shared % f.d !== 0n) shared = (shared * f.d) / gcd(shared, f.d);
  });
  if (n === 0) throw new EvalError(`no numeric values in ${q.column} to take the median of`);
  const mid = n >> 1;
  if (shared <= SHARED_DENOMINATOR_CAP) {
    const nums: bigint[] = [];
    eachNumber(q, column, idx, (f) => nums.push(f.n * (shared / f.d)));
    nums.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return value(n % 2 ? frac(nums[mid], shared) : frac(nums[mid - 1] + nums[mid], shared * 2n), n);
  }
  const fracs: Frac[] = [];
  eachNumber(q, column, idx, (f) => fracs.push(f));
  fracs.sort(cmp);
  if (n % 2) return value(fracs[mid], n);
  const s = add(fracs[mid - 1], fracs[mid]);
  return value(frac(s.n, s.d * 2n), n);
}

function aggregate(q: StatsQuery, columns: Record<string, string[]>, idx: number[]): EvalValue {
  if (q.aggregate === 'count') {
    let n = idx.length;
    if (q.column !== '*') for (const i of idx) if (columns[q.column][i].trim() === '') n--;
    return value(frac(BigInt(n), 1n), n);
  }
  const column = columns[q.column];
  if (q.aggregate === 'median') return median(q, column, idx);
  let sum = frac(0n, 1n);
  let best: Frac | null = null;
  const pick = q.aggregate === 'min' ? -1 : 1;
  const n = eachNumber(q, column, idx, (f) => {
    if (q.aggregate === 'sum' || q.aggregate === 'mean') sum = add(sum, f);
    else if (best === null || cmp(f, best) === pick) best = f;
  });
  if (q.aggregate === 'sum') return value(sum, n);
  if (n === 0) throw new EvalError(`no numeric values in ${q.column} to take the ${q.aggregate} of`);
  return q.aggregate === 'mean' ? value(frac(sum.n, sum.d * BigInt(n)), n) : value(best!, n);
}

export function evaluate(input: EvalInput): EvalOutput {
  try {
    const { query: q, columns, rows } = input;
    const keep: number[] = [];
    for (let i = 0; i < rows; i++) if ((q.filter ?? []).every((c) => matches(columns[c.column][i], c))) keep.push(i);
    if (!q.group) return { ok: true, value: aggregate(q, columns, keep), groups: null };
    const groups = new Map<string, number[]>();
    for (const i of keep) {
      const k = columns[q.group][i];
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(i);
    }
    // no prototype: a group named "__proto__" set the object's prototype and vanished from the result
    const out: Record<string, EvalValue> = Object.create(null);
    for (const k of [...groups.keys()].sort()) out[k] = aggregate(q, columns, groups.get(k)!);
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
      const text = chunks.join('');
      chunks.length = 0; // the pieces are not held beside the joined text while the heap is tight
      const input = JSON.parse(text) as EvalInput & { probe?: boolean };
      out = input.probe ? { ok: true, value: null, groups: null } : evaluate(input);
    } catch {
      out = { ok: false, error: 'malformed sandbox input' };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  });
}
