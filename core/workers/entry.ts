import { parentPort, workerData } from 'node:worker_threads';
import {
  REPLY_ERROR,
  REPLY_OK,
  REPLY_SKIPPED,
  SLOT_DONE,
  SLOT_PENDING,
  SLOT_RUNNING,
  type ReplyMessage,
  type TaskMessage,
  type ThreadData,
} from './protocol.js';

/**
 * The one module a worker thread runs. It knows no engine: a task names the engine module (a file
 * URL the kernel got from a plugin's `app.engine()` declaration) and the exported function to call.
 * Modules are imported once per thread and stay warm for the thread's life.
 *
 * Tasks run one at a time, in the order they came. The kernel keeps a few in flight per thread, so
 * under load the next task is already here when one ends, and the thread drains them without
 * sleeping in between (docs/operations.md, "The worker hop").
 */
const data = workerData as ThreadData;
const slots = new Int32Array(data.slots);
const port = parentPort!;
const loading = new Map<string, Promise<Record<string, unknown>>>();
const loaded = new Map<string, Record<string, unknown>>();

function load(module: string): Promise<Record<string, unknown>> {
  let p = loading.get(module);
  if (!p) {
    p = import(module) as Promise<Record<string, unknown>>;
    loading.set(module, p);
    p.then(
      (m) => loaded.set(module, m),
      () => loading.delete(module),
    );
  }
  return p;
}

function call(mod: Record<string, unknown>, fn: string, input: unknown): unknown {
  const f = mod[fn];
  if (typeof f !== 'function') throw new Error(`engine module does not export ${fn}()`);
  return (f as (input: unknown) => unknown)(input);
}

async function runTask(module: string, fn: string, input: unknown): Promise<unknown> {
  // a loaded module is called without a promise in between: most engine functions are synchronous
  const mod = loaded.get(module) ?? (await load(module));
  const out = call(mod, fn, input);
  return out instanceof Promise ? await out : out;
}

function reply(msg: Exclude<ReplyMessage, 'ready'>): void {
  try {
    port.postMessage(msg);
  } catch {
    // a value structured clone cannot carry (a function, a class instance with private state)
    port.postMessage([msg[0], REPLY_ERROR, 'engine result could not be sent to the main thread', msg[3]] satisfies ReplyMessage);
  }
}

const queue: TaskMessage[] = [];
let draining = false;

async function drain(): Promise<void> {
  draining = true;
  for (let task = queue.shift(); task; task = queue.shift()) {
    const [slot, module, fn, input] = task;
    // the kernel took it back (deadline, cancelled request) before it started: nothing ran
    if (Atomics.compareExchange(slots, slot, SLOT_PENDING, SLOT_RUNNING) !== SLOT_PENDING) {
      reply([slot, REPLY_SKIPPED]);
      continue;
    }
    let msg: Exclude<ReplyMessage, 'ready'>;
    const start = performance.timeOrigin + performance.now();
    try {
      const value = await runTask(module, fn, input);
      msg = [slot, REPLY_OK, value, [start, performance.timeOrigin + performance.now()]];
    } catch (err) {
      msg = [slot, REPLY_ERROR, (err as Error)?.message ?? String(err), [start, performance.timeOrigin + performance.now()]];
    }
    Atomics.store(slots, slot, SLOT_DONE);
    reply(msg);
  }
  draining = false;
}

/**
 * A thread started after its pool's warm-ups were declared (a burst's extra thread, a replacement
 * after a deadline) runs them before it says 'ready' and gets its first task. Otherwise its first
 * tasks would load the engines and run them JIT-cold, inside their own deadlines, while the warm
 * threads wait. A failing warm-up is left to the engine's own tasks to report.
 */
async function warmUp(): Promise<void> {
  for (const w of data.warmups) {
    try {
      await runTask(w.module, w.fn, null);
    } catch {
      // reported by the first task that needs the engine
    }
  }
}

// Not a top-level await: V8 aborts the whole process (`Check failed: (location_) != nullptr` in
// AsyncModuleExecutionFulfilled) when a thread is terminated while a module with top-level await is
// still evaluating. The pool ends a starting thread only once it is ready (worker-thread.ts
// STARTING_GRACE_MS); this module itself finishes evaluating before its first warm-up runs.
void warmUp().then(() => {
  port.on('message', (task: TaskMessage) => {
    queue.push(task);
    if (!draining) void drain();
  });
  port.postMessage('ready' satisfies ReplyMessage);
});
