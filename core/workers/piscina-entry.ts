import { threadId, workerData } from 'node:worker_threads';
import { REPLY_ERROR, REPLY_OK, REPLY_SKIPPED, SLOT_DONE, SLOT_PENDING, SLOT_RUNNING, type ThreadData } from './protocol.js';

/**
 * The module piscina runs in the bench-only piscina variant of the worker pool
 * (core/workers/piscina-pools.ts, selected by BENCH_POOL=piscina). Tasks carry no abort signal, so
 * piscina may send several to one thread; the deadline is kept by the kernel through the shared
 * states below instead: a task taken back before it started is skipped here, and the kernel ends
 * the thread of one still running past its deadline, which it finds in `runners`.
 */
export interface PiscinaThreadData {
  warmups: ThreadData['warmups'];
  /** Int32Array over it: one SLOT_* state per task slot of the whole pool */
  states: SharedArrayBuffer;
  /** Int32Array over it: the threadId that started the task in each slot */
  runners: SharedArrayBuffer;
}

/** what the kernel sends: [slot, engine module URL, exported function, input] */
export type PiscinaTask = [slot: number, module: string, fn: string, input: unknown];
/** what a task returns to the kernel (a value, not a throw: piscina clones thrown errors at a cost) */
export type PiscinaReply =
  | [kind: typeof REPLY_OK, value: unknown, start: number, end: number, threadId: number]
  | [kind: typeof REPLY_ERROR, message: string, start: number, end: number, threadId: number]
  | [kind: typeof REPLY_SKIPPED];

const data = workerData as PiscinaThreadData;
const states = new Int32Array(data.states);
const runners = new Int32Array(data.runners);
const loaded = new Map<string, Record<string, unknown>>();

async function load(module: string): Promise<Record<string, unknown>> {
  let mod = loaded.get(module);
  if (!mod) {
    mod = (await import(module)) as Record<string, unknown>;
    loaded.set(module, mod);
  }
  return mod;
}

async function call(module: string, fn: string, input: unknown): Promise<unknown> {
  const mod = loaded.get(module) ?? (await load(module));
  const f = mod[fn];
  if (typeof f !== 'function') throw new Error(`engine module does not export ${fn}()`);
  const out = (f as (input: unknown) => unknown)(input);
  return out instanceof Promise ? await out : out;
}

const now = () => performance.timeOrigin + performance.now();

async function runOne([slot, module, fn, input]: PiscinaTask): Promise<PiscinaReply> {
  // the runner is written before the state says RUNNING: the kernel reads it only after seeing RUNNING
  Atomics.store(runners, slot, threadId);
  if (Atomics.compareExchange(states, slot, SLOT_PENDING, SLOT_RUNNING) !== SLOT_PENDING) return [REPLY_SKIPPED];
  const start = now();
  let reply: PiscinaReply;
  try {
    reply = [REPLY_OK, await call(module, fn, input), start, now(), threadId];
  } catch (err) {
    reply = [REPLY_ERROR, (err as Error)?.message ?? String(err), start, now(), threadId];
  }
  Atomics.store(states, slot, SLOT_DONE);
  return reply;
}

let tail: Promise<unknown> = Promise.resolve();
/**
 * One task at a time, in the order they came, as core/workers/entry.ts runs them: piscina starts
 * every task it has sent to a thread at once, and an async engine (z3) would interleave them.
 */
function runTask(task: PiscinaTask): Promise<PiscinaReply> {
  const p = tail.then(() => runOne(task));
  tail = p.catch(() => undefined);
  return p;
}

async function warmUp(): Promise<typeof runTask> {
  for (const w of data.warmups) {
    try {
      await call(w.module, w.fn, null);
    } catch {
      // reported by the first task that needs the engine
    }
  }
  return runTask;
}

/**
 * piscina awaits a default export that is a promise before it says the thread is ready, so the
 * warm-ups run before the first task without a top-level await (V8 aborts the process when a thread
 * is terminated while a module with top-level await evaluates; see thread.ts).
 */
export default warmUp();
