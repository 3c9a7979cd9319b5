import type { Formula, Term } from './dsl.js';
import { type Edge, ZERO, conjunctEdges, differenceEdges, modelOf, shortestPaths } from './differences.js';
import { conjuncts, literalAtom } from './shape.js';

/**
 * Disjunctive scheduling over Int: tasks `s` with bounds (`s ≥ r`, `s + d ≤ D`) and, for every pair,
 * a conjunct `(OR (s_i + a ≤ s_j) (s_j + b ≤ s_i))` with gaps a, b ≥ 1. Two pre-solvers:
 *
 * - **Overload (UNSAT, with its proof).** Let d_i be the smallest gap task i must leave when it goes
 *   first. In any solution no two starts are equal (both disjuncts would need a gap ≤ 0), and the
 *   earlier of two tasks keeps its gap: if s_i < s_j, `s_j + b ≤ s_i` is false, so `s_i + a ≤ s_j`.
 *   Ordering the tasks by start, the last one starts at least Σ_{others} d after the first, which
 *   starts at or after min r; so it ends (start + its d) at min r + Σ d or later, and no later than
 *   max(upper bound of s + d). If Σ d > max(u + d) − min r, no assignment exists. The proof names
 *   every conjunct it uses; `checkOverload` re-derives each fact from those conjuncts alone.
 * - **A schedule (SAT, re-checked).** Tasks ordered by earliest start then latest end; each pair's
 *   disjunct is the one this order picks, and shortest paths over those atoms and the other
 *   difference conjuncts give a model, which the engine's evaluator must accept.
 */
export interface OverloadProof {
  rule: 'disjoint_intervals';
  tasks: Array<{ variable: string; duration: string; earliest: string; latest_end: string; lower: string; upper: string }>;
  pairs: string[];
  sum: string;
}

interface Task {
  v: string;
  d: bigint;
  lo?: { value: bigint; part: number };
  hi?: { value: bigint; part: number };
}

interface Pair {
  part: number;
  /** edge `to − from ≤ w`: `to` goes first, `from` starts at least −w later */
  first: Edge;
  second: Edge;
}

/** `(OR A B)` whose atoms are opposite difference constraints between two tasks, each a gap ≥ 1. */
function pairOf(t: Term, part: number, isInt: (v: string) => boolean): Pair | null {
  if (t.kind !== 'app' || t.op !== 'OR' || t.args.length !== 2) return null;
  const es = t.args.map((x) => {
    const a = literalAtom(x);
    const e = a && differenceEdges(a, part, isInt);
    return e && e.length === 1 && e[0].from !== ZERO && e[0].to !== ZERO && e[0].weight <= -1n ? e[0] : null;
  });
  const [a, b] = es;
  if (!a || !b || a.from !== b.to || a.to !== b.from) return null;
  return { part, first: a, second: b };
}

function scan(f: Formula): { tasks: Map<string, Task>; pairs: Pair[]; parts: Term[] } | null {
  const ints = new Set(f.vars.filter((v) => v.sort === 'Int').map((v) => v.name));
  const isInt = (v: string) => ints.has(v);
  const parts = conjuncts(f.body);
  const pairs: Pair[] = [];
  parts.forEach((t, i) => {
    const p = pairOf(t, i, isInt);
    if (p) pairs.push(p);
  });
  if (!pairs.length) return null;
  const tasks = new Map<string, Task>();
  for (const { first, second } of pairs) {
    for (const e of [first, second]) {
      const task = tasks.get(e.to) ?? { v: e.to, d: -e.weight };
      if (-e.weight < task.d) task.d = -e.weight;
      tasks.set(e.to, task);
    }
  }
  for (const e of conjunctEdges(f).edges) {
    // ZERO → x of weight w: x ≤ w; x → ZERO of weight w: x ≥ −w
    const up = e.from === ZERO ? tasks.get(e.to) : undefined;
    const down = e.to === ZERO ? tasks.get(e.from) : undefined;
    if (up && (!up.hi || e.weight < up.hi.value)) up.hi = { value: e.weight, part: e.part };
    if (down && (!down.lo || -e.weight > down.lo.value)) down.lo = { value: -e.weight, part: e.part };
  }
  return { tasks, pairs, parts };
}

const key = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

export function findOverload(f: Formula, canonicalOf: (t: Term) => string): OverloadProof | null {
  const s = scan(f);
  if (!s) return null;
  const tasks = [...s.tasks.values()];
  const seen = new Set(s.pairs.map((p) => key(p.first.to, p.first.from)));
  if (tasks.some((t) => !t.lo || !t.hi) || seen.size !== (tasks.length * (tasks.length - 1)) / 2) return null;
  const lo = tasks.reduce((m, t) => (t.lo!.value < m ? t.lo!.value : m), tasks[0].lo!.value);
  const hi = tasks.reduce((m, t) => (t.hi!.value + t.d > m ? t.hi!.value + t.d : m), tasks[0].hi!.value + tasks[0].d);
  const total = tasks.reduce((sum, t) => sum + t.d, 0n);
  if (total <= hi - lo) return null;
  return {
    rule: 'disjoint_intervals',
    tasks: tasks.map((t) => ({
      variable: t.v,
      duration: t.d.toString(),
      earliest: t.lo!.value.toString(),
      latest_end: (t.hi!.value + t.d).toString(),
      lower: canonicalOf(s.parts[t.lo!.part]),
      upper: canonicalOf(s.parts[t.hi!.part]),
    })),
    pairs: s.pairs.map((p) => canonicalOf(s.parts[p.part])),
    sum: `${total} > ${hi} - ${lo}`,
  };
}

/**
 * Re-derives the proof from the formula: every named conjunct must be one of the formula's own and
 * say what the proof claims of it, every pair of tasks must have its disjunction, and the sum must
 * exceed the window. The proof is believed only when this returns true.
 */
export function checkOverload(f: Formula, proof: OverloadProof, canonicalOf: (t: Term) => string): boolean {
  const s = scan(f);
  if (!s) return false;
  const byText = new Map(s.parts.map((t, i) => [canonicalOf(t), i]));
  const claimed = new Map(proof.tasks.map((t) => [t.variable, t]));
  if (claimed.size !== proof.tasks.length || claimed.size < 2) return false;
  const covered = new Set<string>();
  for (const text of proof.pairs) {
    const i = byText.get(text);
    const p = i === undefined ? undefined : s.pairs.find((x) => x.part === i);
    if (!p) return false;
    for (const [e, other] of [[p.first, p.second], [p.second, p.first]]) {
      const t = claimed.get(e.to);
      if (!t || !claimed.has(other.to) || -e.weight < BigInt(t.duration)) return false;
    }
    covered.add(key(p.first.to, p.first.from));
  }
  if (covered.size !== (claimed.size * (claimed.size - 1)) / 2) return false;
  let lo: bigint | null = null;
  let hi: bigint | null = null;
  let total = 0n;
  for (const t of proof.tasks) {
    const d = BigInt(t.duration);
    if (d < 1n) return false;
    const bound = (text: string, upper: boolean): bigint | null => {
      const i = byText.get(text);
      const a = i === undefined ? null : literalAtom(s.parts[i]);
      const es = a && differenceEdges(a, i as number, (v) => f.vars.some((x) => x.name === v && x.sort === 'Int'));
      const e = es?.find((x) => (upper ? x.from === ZERO && x.to === t.variable : x.to === ZERO && x.from === t.variable));
      return e ? (upper ? e.weight : -e.weight) : null;
    };
    const l = bound(t.lower, false);
    const u = bound(t.upper, true);
    if (l === null || u === null || l !== BigInt(t.earliest) || u + d !== BigInt(t.latest_end)) return false;
    lo = lo === null || l < lo ? l : lo;
    hi = hi === null || u + d > hi ? u + d : hi;
    total += d;
  }
  return lo !== null && hi !== null && total > hi - lo;
}

/** A schedule in earliest-start, then latest-end order, as a model to re-check; null if none. */
export function scheduleModel(f: Formula): Record<string, string> | null {
  if (f.vars.some((v) => v.sort !== 'Int')) return null;
  const s = scan(f);
  if (!s) return null;
  const rank = (t: Task): [bigint, bigint] => [t.lo?.value ?? 0n, (t.hi?.value ?? 0n) + t.d];
  const order = [...s.tasks.values()].sort((a, b) => {
    const [la, ea] = rank(a);
    const [lb, eb] = rank(b);
    return la !== lb ? (la < lb ? -1 : 1) : ea !== eb ? (ea < eb ? -1 : 1) : a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  });
  const position = new Map(order.map((t, i) => [t.v, i]));
  const pairParts = new Set(s.pairs.map((p) => p.part));
  const edges = conjunctEdges(f).edges.filter((e) => !pairParts.has(e.part));
  for (const p of s.pairs) {
    // `first.to` goes first in this disjunct: keep the disjunct whose first task comes first in the order
    edges.push((position.get(p.first.to) as number) < (position.get(p.second.to) as number) ? p.first : p.second);
  }
  return modelOf(f, shortestPaths(f.vars.map((v) => v.name), edges));
}
