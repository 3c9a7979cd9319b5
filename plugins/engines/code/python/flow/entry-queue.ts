import type { PyNode } from '../parser.js';
import { share } from './lists.js';
import { type Env, joinEnv } from './value.js';

/** An entry point to run after the module: the scope where it was defined, and that scope at its end. */
export interface Queued {
  def: PyNode;
  env: Env;
  /** the scope at its end, with the state other functions write shared (made when first read) */
  late?: Late;
}

/** A scope's end state, shared by the functions it defined; the sharing is done once, when one of them runs. */
export interface Late {
  last: Env;
  shared: Env | null;
  line: number;
}

/** The scope `q` runs from, joined with every scope still waiting to run its function (taken off the queue). */
export function joinWaiting(q: Queued, queue: Queued[], written: () => ReadonlySet<string>): Env {
  const scopeOf = (x: Queued): Env => (x.late ? joinEnv(x.env, lateEnv(x.late, written)) : x.env);
  let env = scopeOf(q);
  for (let i = 0; i < queue.length; ) {
    if (queue[i].def !== q.def) i++;
    else env = joinEnv(env, scopeOf(queue.splice(i, 1)[0]));
  }
  return env;
}

/**
 * What one entry point writes into the state it shares with others outlives its call (a handler's
 * request): another may run after it, so that state is of unknown origin for them all.
 */
function lateEnv(l: Late, written: () => ReadonlySet<string>): Env {
  if (l.shared) return l.shared;
  const late = l.last;
  for (const w of written()) for (const [k, v] of late) if (k === w || k.startsWith(`${w}.`)) share(k, v, 'changed by a function of the file, which may have run before', late, l.line);
  return (l.shared = late);
}
