import type { JsNode } from '../parser.js';
import { type JEnv, joinJ, joinJEnv, lineOf } from './value.js';
import { type V, mix, sameShape, truthy } from '../../python/flow/index.js';

/** A statement `break`/`continue` may leave: the states they left it in. */
export interface Jump {
  kind: 'loop' | 'switch' | 'block';
  labels: string[];
  breaks: JEnv[];
  continues: JEnv[];
}

/**
 * The statements a `break` or `continue` of the code being run may target, innermost last: an
 * unlabelled `break` ends the innermost loop or switch, `continue` goes back to the innermost loop's
 * head, a labelled one to the statement so labelled. Each records the state it jumps with and ends
 * its path, so what follows it in the body does not run on it.
 */
export class Jumps {
  private readonly stack: Jump[] = [];
  private pending: string[] = [];

  /** Labels of the loop or switch statement about to run. */
  label(name: string): void {
    this.pending.push(name);
  }

  /** The labels given to the statement about to run (taken before its head is evaluated, which may run other loops). */
  take(): string[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  open(kind: Jump['kind'], labels: string[] = this.take()): Jump {
    const j: Jump = { kind, labels, breaks: [], continues: [] };
    this.stack.push(j);
    return j;
  }

  close(j: Jump): void {
    const at = this.stack.lastIndexOf(j);
    if (at >= 0) this.stack.splice(at, 1);
  }

  /** Where the jumps recorded so far end: those after it jumped from inside what runs next. */
  mark(): number[] {
    return this.stack.flatMap((j) => [j.breaks.length, j.continues.length]);
  }

  /** A `finally` runs on the way out of every jump recorded since `mark`. */
  through(mark: number[], fin: (e: JEnv) => JEnv | null): void {
    this.stack.forEach((j, i) => {
      for (const [list, k] of [[j.breaks, 0], [j.continues, 1]] as const) {
        const moved = list.splice(mark[2 * i + k] ?? 0).map((e) => fin(e.fork()));
        for (const e of moved) if (e) list.push(e);
      }
    });
  }

  /** Records a break or continue; false when it has no target here (it then runs as a no-op, which over-approximates). */
  jump(s: JsNode, env: JEnv): boolean {
    const label = (s.label as JsNode | null)?.name as string | undefined;
    const isBreak = s.type === 'BreakStatement';
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const j = this.stack[i];
      const hit = label ? j.labels.includes(label) && (isBreak || j.kind === 'loop') : j.kind === 'loop' || (isBreak && j.kind === 'switch');
      if (!hit) continue;
      (isBreak ? j.breaks : j.continues).push(env.fork());
      return true;
    }
    return false;
  }
}

export function joinAll(first: JEnv | null, rest: readonly JEnv[]): JEnv | null {
  let out = first;
  for (const e of rest) out = out ? joinJEnv(out, e) : e;
  return out;
}

export interface LoopParts {
  before?: (e: JEnv) => void;
  after?: (e: JEnv) => void;
  test?: JsNode | null;
  runs?: boolean;
}

export interface LoopHost {
  readonly jumps: Jumps;
  loopBody(s: JsNode, env: JEnv): JEnv | null;
  ev(n: JsNode, env: JEnv): V;
}

/**
 * A loop body runs until the state at its head has the same shape after a pass as before it (at least
 * two passes, at most four; `passes` 1: one), each from the join of the states it may start from. The
 * loop ends where its test may be false after a pass (before the first only when it may run none: a
 * do-while or a test true on entry runs it) and at each `break`; a `continue` goes back to the head
 * (through the update of a `for`). When the cap comes first, every name the body changed may hold what
 * any of them held (before the last pass, or after the only one).
 */
export function runLoop(h: LoopHost, s: JsNode, env: JEnv, labels: string[], o: LoopParts, passes: number): JEnv | null {
  let head = env;
  let ends: JEnv | null = o.runs ? null : env;
  const cap = passes === 1 ? 0 : 4;
  const j = h.jumps.open('loop', labels);
  try {
    for (let i = 0; i <= cap; i++) {
      const e = head.fork();
      o.before?.(e);
      const end = joinAll(h.loopBody(s, e), j.continues.splice(0));
      if (!end) break;
      o.after?.(end);
      const t = o.test ? truthy(h.ev(o.test, end)) : null;
      if (t !== true) ends = ends ? joinJEnv(ends, end) : end;
      if (t === false || i === cap) break;
      const nextHead = joinJEnv(head, end);
      if (i > 0 && sameShape(head, nextHead)) break;
      head = nextHead;
      if (i === cap - 1) widen(head, env, lineOf(s));
    }
  } finally {
    h.jumps.close(j);
  }
  const out = joinAll(ends, j.breaks);
  if (passes === 1 && out) widen(out, env, lineOf(s));
  return out;
}

function widen(e: JEnv, before: JEnv, line: number): void {
  const changed = [...e].filter(([k, v]) => before.get(k) !== v);
  const all = mix(changed.map(([, v]) => v), line);
  for (const [k, v] of changed) e.set(k, joinJ(v, all));
}
