import type { JsNode } from '../parser.js';
import { type JEnv, joinJEnv, lineOf } from './value.js';
import { type V, unknownOrigin } from '../../python/flow/index.js';
import type { Jumps } from './jumps.js';

/** A try body being run: the join of the states any of its statements started or ended in. */
export interface TryCtx {
  frame: number;
  at: JEnv | null;
}

export interface TryHost {
  readonly tries: TryCtx[];
  readonly jumps: Jumps;
  readonly frames: readonly unknown[];
  block(stmts: readonly JsNode[], env: JEnv): JEnv | null;
  assignTo(target: JsNode, v: V, env: JEnv, line: number): void;
}

/** Runs statements as a try body: where they end, and the join of every state a throw may leave them in. */
function guarded(h: TryHost, stmts: readonly JsNode[], env: JEnv): { end: JEnv | null; thrown: JEnv } {
  const t: TryCtx = { frame: h.frames.length, at: null };
  h.tries.push(t);
  let end: JEnv | null;
  try {
    end = h.block(stmts, env);
  } finally {
    h.tries.pop();
  }
  const thrown = t.at ?? env.fork();
  // what no handler here catches goes on to the enclosing try of this function
  const outer = h.tries[h.tries.length - 1];
  if (outer && outer.frame === t.frame) outer.at = outer.at ? joinJEnv(outer.at, thrown) : thrown.fork();
  return { end, thrown };
}

/** Called by the block runner before each statement and at its end. */
export function seen(h: TryHost, env: JEnv): void {
  const t = h.tries[h.tries.length - 1];
  if (t && t.frame === h.frames.length) t.at = t.at ? joinJEnv(t.at, env) : env.fork();
}

/**
 * try/catch/finally: the catch may start from any statement of the body (`c = req.query.c; risky();
 * c = 'ls'` reaches it with the request value), so from the join of all their states; the finally runs
 * after every way out — the body's end, the catch's, and a throw none caught — so its sinks see all of
 * them, and what follows the statement sees it after the ways that go on.
 */
export function tryStatement(h: TryHost, s: JsNode, env: JEnv): JEnv | null {
  const mark = h.jumps.mark();
  const body = guarded(h, ((s.block as JsNode).body as JsNode[]) ?? [], env.fork());
  let out = body.end;
  let escaped = joinJEnv(env, body.thrown);
  if (s.handler) {
    const c = s.handler as JsNode;
    const start = joinJEnv(env, body.thrown);
    if (c.param) h.assignTo(c.param as JsNode, unknownOrigin('a caught exception', lineOf(c)), start, lineOf(c));
    const handled = guarded(h, ((c.body as JsNode).body as JsNode[]) ?? [], start);
    escaped = joinJEnv(escaped, handled.thrown);
    out = out && handled.end ? joinJEnv(out, handled.end) : (out ?? handled.end);
  }
  if (!s.finalizer) return out;
  const fin = ((s.finalizer as JsNode).body as JsNode[]) ?? [];
  h.block(fin, out ? joinJEnv(out, escaped) : escaped);
  // a break or continue out of the body or the catch leaves through the finally too
  h.jumps.through(mark, (e) => h.block(fin, e));
  return out && h.block(fin, out);
}
