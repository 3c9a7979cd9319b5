import { Worker } from 'node:worker_threads';
import type { ThreadData } from './protocol.js';

/**
 * One engine thread of a pool (worker-pool.ts): its Worker, the shared slots its tasks sit in, and
 * the two moments of its life the pool waits on, started (ready or exited) and ended.
 */
export interface Thread<T> {
  worker: Worker;
  slots: Int32Array;
  tasks: Array<T | undefined>;
  free: number[];
  inFlight: number;
  ready: boolean;
  /** settles when the thread said 'ready' or exited, whichever came first */
  started: Promise<void>;
  markStarted: () => void;
  /** ended by the pool (deadline, idle, close) or exited: nothing it sends counts any more */
  dead: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

export interface ThreadOptions {
  /** worker-entry.js */
  entry: string;
  slots: number;
  warmups: ThreadData['warmups'];
  youngGenerationMb: number;
  /** null: V8's own sizing */
  oldGenerationMb?: number | null;
}

/**
 * How long a pool closing lets a starting thread finish its module loading and warm-ups before it is
 * terminated anyway. V8 aborts the whole process (`Check failed: (location_) != nullptr` in
 * AsyncModuleExecutionFulfilled) when an isolate is terminated while a module with top-level await
 * is evaluating (the math engine's mathjs.ts has one), so a thread is ended only once it is ready.
 */
const STARTING_GRACE_MS = 15_000;

export function spawnThread<T>(o: ThreadOptions): Thread<T> {
  const n = o.slots;
  const data: ThreadData = { warmups: [...o.warmups], slots: new SharedArrayBuffer(4 * n) };
  const worker = new Worker(o.entry, {
    workerData: data,
    // workers must not inherit a test runner's, profiler's or APM agent's preloads: each loads its
    // module hooks per thread and sends every engine module through them. `execArgv: []` drops the
    // command line's; NODE_OPTIONS is re-read by every thread from its env, so it goes too
    execArgv: [],
    env: workerEnv(),
    // V8 lets a thread's young generation grow to 32 MB, all of it resident once an engine's warm-up
    // has allocated through it; engine tasks allocate short-lived objects in small amounts, so a
    // smaller nursery costs a few more scavenges and saves ~24 MB per thread (docs: performance)
    resourceLimits: { maxYoungGenerationSizeMb: o.youngGenerationMb, ...(o.oldGenerationMb ? { maxOldGenerationSizeMb: o.oldGenerationMb } : {}) },
  });
  // a pool never keeps the process alive: pending tasks hold their deadline timers, which do
  worker.unref();
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    worker,
    slots: new Int32Array(data.slots),
    tasks: new Array<T | undefined>(n).fill(undefined),
    free: Array.from({ length: n }, (_, i) => n - 1 - i),
    inFlight: 0,
    ready: false,
    started,
    markStarted,
    dead: false,
    idleTimer: undefined,
  };
}

/** Terminates the thread once it has started, or after the grace period (a hung warm-up must not hold a close forever). */
export async function endWhenStarted<T>(th: Thread<T>): Promise<void> {
  if (!th.ready) {
    // whoever awaits close() must see it settle: the unref'd worker alone would let the process
    // exit mid-wait (a test "unfinished", a shutdown cut short), so the thread and the grace timer
    // hold the loop until the thread starts or exits, 15 s at most
    th.worker.ref();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STARTING_GRACE_MS);
    });
    await Promise.race([th.started, grace]).finally(() => clearTimeout(timer));
  }
  await th.worker.terminate();
}

/** The process's environment without NODE_OPTIONS (see the Worker options above). */
function workerEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _dropped, ...env } = process.env;
  return env;
}
