import type { Formula } from './dsl.js';
import type { Combination } from './certificate.js';
import { type Atom, conjuncts, literalAtom } from './shape.js';

/**
 * Difference constraints (`x − y ⋈ k`, `x ⋈ k` over Int) as a constraint graph: an edge u → v of
 * weight w reads `v − u ≤ w`, and a virtual node stands for 0 so that bounds are edges too.
 * Shortest paths from a virtual source give a model when there is no negative cycle; a negative
 * cycle is a contradiction (summing its atoms cancels every variable and leaves `0 ≤ w < 0`), and
 * is returned as a linear-combination certificate that certificate.ts checks before it is believed.
 */
export const ZERO = '\u0000zero';
const MAX_WORK = 4_000_000;

export interface Edge {
  from: string;
  to: string;
  weight: bigint;
  /** the conjunct it came from and the certificate multiplier that reads it as this edge */
  part: number;
  times: bigint;
}

const unit = (a: Atom, v: string): bigint | null => {
  const c = a.form.coefs.get(v);
  return c && c.d === 1n && (c.n === 1n || c.n === -1n) ? c.n : null;
};

/** The edges of one difference atom (an EQ gives two), or null when the atom is not one. */
export function differenceEdges(a: Atom, part: number, isInt: (v: string) => boolean): Edge[] | null {
  if (a.op === 'NEQ' || a.form.constant.d !== 1n) return null;
  const vs = [...a.form.coefs.keys()];
  if (!vs.every(isInt)) return null;
  let x: string;
  let y: string;
  if (vs.length === 1 && unit(a, vs[0]) !== null) [x, y] = unit(a, vs[0]) === 1n ? [vs[0], ZERO] : [ZERO, vs[0]];
  else if (vs.length === 2 && unit(a, vs[0]) !== null && unit(a, vs[0]) === -(unit(a, vs[1]) as bigint)) {
    [x, y] = unit(a, vs[0]) === 1n ? [vs[0], vs[1]] : [vs[1], vs[0]];
  } else return null;
  // form = x − y + k ⋈ 0; `x − y ≤ c` is the edge y → x of weight c
  const k = a.form.constant.n;
  const edges: Edge[] = [];
  const le = (p: string, r: string, c: bigint, times: bigint) => edges.push({ from: r, to: p, weight: c, part, times });
  if (a.op === 'LTE' || a.op === 'EQ') le(x, y, -k, 1n);
  if (a.op === 'LT') le(x, y, -k - 1n, 1n);
  if (a.op === 'GTE') le(y, x, k, 1n);
  if (a.op === 'EQ') le(y, x, k, -1n);
  if (a.op === 'GT') le(y, x, k - 1n, 1n);
  return edges;
}

const intVars = (f: Formula) => {
  const ints = new Set(f.vars.filter((v) => v.sort === 'Int').map((v) => v.name));
  return (v: string) => ints.has(v);
};

/** The edges of every top-level conjunct that is a difference atom; `all` says whether every one was. */
export function conjunctEdges(f: Formula): { edges: Edge[]; all: boolean } {
  const isInt = intVars(f);
  const edges: Edge[] = [];
  let all = true;
  conjuncts(f.body).forEach((t, i) => {
    const a = literalAtom(t);
    const e = a && differenceEdges(a, i, isInt);
    if (e) edges.push(...e);
    else all = false;
  });
  return { edges, all };
}

type Paths = { ok: true; dist: Map<string, bigint> } | { ok: false; cycle: Edge[] };

/** Bellman-Ford from a virtual source at distance 0 to every node. */
export function shortestPaths(nodes: string[], edges: Edge[]): Paths {
  const dist = new Map<string, bigint>([[ZERO, 0n], ...nodes.map((n): [string, bigint] => [n, 0n])]);
  const via = new Map<string, Edge>();
  for (const e of edges) for (const n of [e.from, e.to]) if (!dist.has(n)) dist.set(n, 0n);
  const rounds = dist.size;
  // Bellman-Ford is |V|·|E|: a graph too large for a pre-solver is z3's (no model, no cycle)
  if (rounds * edges.length > MAX_WORK) return { ok: false, cycle: [] };
  for (let round = 0; round <= rounds; round++) {
    let last: Edge | null = null;
    for (const e of edges) {
      const d = (dist.get(e.from) as bigint) + e.weight;
      if (d < (dist.get(e.to) as bigint)) {
        dist.set(e.to, d);
        via.set(e.to, e);
        last = e;
      }
    }
    if (!last) return { ok: true, dist };
    if (round === rounds) {
      // still relaxing after |V| rounds: walking back |V| steps lands on the cycle
      let n = last.to;
      for (let i = 0; i < rounds; i++) {
        const e = via.get(n);
        if (!e) return { ok: false, cycle: [] };
        n = e.from;
      }
      const cycle: Edge[] = [];
      let m = n;
      do {
        const e = via.get(m);
        if (!e) return { ok: false, cycle: [] };
        cycle.push(e);
        m = e.from;
      } while (m !== n && cycle.length <= rounds);
      return { ok: false, cycle };
    }
  }
  return { ok: false, cycle: [] };
}

/**
 * A plain conjunction of difference atoms: the shortest-path model (re-checked by the engine's
 * evaluator before it is an answer), or null.
 */
export function solveDifferences(f: Formula): Record<string, string> | null {
  if (f.vars.some((v) => v.sort !== 'Int')) return null;
  const { edges, all } = conjunctEdges(f);
  if (!all) return null;
  return modelOf(f, shortestPaths(f.vars.map((v) => v.name), edges));
}

export function modelOf(f: Formula, p: Paths): Record<string, string> | null {
  if (!p.ok) return null;
  const zero = p.dist.get(ZERO) as bigint;
  const model: Record<string, string> = {};
  for (const v of f.vars) model[v.name] = ((p.dist.get(v.name) ?? zero) - zero).toString();
  return model;
}

/**
 * A contradiction among the difference atoms of a conjunction (any other conjuncts are ignored:
 * if a subset has no solution, neither has the whole), as a certificate to check; null if none.
 */
export function negativeCycle(f: Formula): Combination | null {
  const { edges } = conjunctEdges(f);
  if (!edges.length) return null;
  const p = shortestPaths(f.vars.map((v) => v.name), edges);
  if (p.ok || !p.cycle.length) return null;
  return { steps: p.cycle.map((e) => ({ part: e.part, times: e.times })).sort((a, b) => a.part - b.part) };
}
