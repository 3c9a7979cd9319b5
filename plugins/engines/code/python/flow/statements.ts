import { type PyNode, field, namedChildren } from '../parser.js';
import type { Resolver } from '../resolve.js';
import { type Env, type V, joinEnv } from './value.js';

/** What the compound statements below need of the interpreter. */
export interface StmtHost {
  readonly r: Resolver;
  block(n: PyNode, env: Env): Env | null;
  tryBody(n: PyNode, env: Env): { end: Env | null; raised: Env };
  jumpMark(): number[];
  throughFinally(mark: number[], fin: (e: Env) => Env | null): void;
  ev(n: PyNode | null, env: Env): V;
}

/**
 * try/except/else/finally: a handler may start from any statement of the body (`cmd = request…;
 * risky(); cmd = 'ls'` reaches it with the request value), so from the join of all their states. The
 * finally runs after each way out — the body's end, a handler's, and an exception none caught — so its
 * sinks see all of those; what follows the statement sees it after the ways that go on.
 */
export function tryStmt(h: StmtHost, s: PyNode, env: Env): Env | null {
  const mark = h.jumpMark();
  const { end: body, raised: atRaise } = h.tryBody(field(s, 'body') as PyNode, new Map(env));
  // the body's end goes on through the else (when there is one); each handler's end goes on as it is
  let normal: Env | null = body;
  let handled: Env | null = null;
  // where an exception leaves a handler or the else (the finally runs then too)
  let escaped: Env = atRaise;
  const run = (blk: PyNode, from: Env): Env | null => {
    const { end, raised } = h.tryBody(blk, from);
    escaped = joinEnv(escaped, raised);
    return end;
  };
  for (const c of namedChildren(s)) {
    if (c.type === 'except_clause' || c.type === 'except_group_clause') {
      const blk = namedChildren(c).find((x) => x.type === 'block');
      if (blk) handled = joinMaybe(handled, run(blk, new Map(atRaise)));
    } else if (c.type === 'else_clause' && body) {
      normal = run(field(c, 'body') as PyNode, body);
    } else if (c.type === 'finally_clause') {
      const blk = namedChildren(c).find((x) => x.type === 'block');
      if (!blk) continue;
      const out = joinMaybe(normal, handled);
      h.block(blk, joinMaybe(out, escaped) as Env);
      // a break or continue out of the body or a handler leaves through the finally too
      h.throughFinally(mark, (e) => h.block(blk, e));
      return out && h.block(blk, out);
    }
  }
  return joinMaybe(normal, handled);
}

export function matchStmt(h: StmtHost, s: PyNode, env: Env): Env | null {
  const subject = h.ev(field(s, 'subject'), env);
  const cases = namedChildren(field(s, 'body') ?? s).filter((c) => c.type === 'case_clause');
  let out: Env | null = null;
  let any = false;
  for (const c of cases) {
    const pats = namedChildren(c).filter((x) => x.type === 'case_pattern');
    const lits = pats.flatMap((p) => (p.text === '_' ? ['_'] : namedChildren(p).flatMap((x) => (x.type === 'union_pattern' ? namedChildren(x) : [x]))).map((x) => (typeof x === 'string' ? x : x.type === 'string' ? h.r.fold(x) : x.type === 'integer' ? x.text : null)));
    const wildcard = lits.includes('_');
    const consequence = field(c, 'consequence') ?? namedChildren(c).find((x) => x.type === 'block');
    if (!consequence) continue;
    if (subject.known && !wildcard && lits.every((l) => l !== null)) {
      if (!lits.includes(String(subject.k))) continue;
      return any ? joinMaybe(out, h.block(consequence, new Map(env))) : h.block(consequence, env);
    }
    if (subject.known && wildcard && !any) return h.block(consequence, env);
    any = true;
    out = joinMaybe(out, h.block(consequence, new Map(env)));
    if (wildcard) return out;
  }
  return any ? joinMaybe(out, env) : env;
}

export function joinMaybe(a: Env | null, b: Env | null): Env | null {
  if (!a) return b;
  if (!b) return a;
  return joinEnv(a, b);
}

export function lastReturn(body: PyNode): PyNode | null {
  const kids = namedChildren(body);
  for (let i = kids.length - 1; i >= 0; i--) if (kids[i].type === 'return_statement') return kids[i];
  return null;
}
