import { workerData } from 'node:worker_threads';
import type { ThreadWarmups } from './workers.js';

/**
 * The one module piscina runs. It knows no engine: a task names the engine module (a file URL the
 * kernel got from a plugin's `app.engine()` declaration) and the exported function to call. Modules
 * are imported once per thread and stay warm for the thread's life.
 */
const modules = new Map<string, Promise<Record<string, unknown>>>();

export interface WorkerTask {
  module: string;
  fn: string;
  input: unknown;
}

export default async function runTask(task: WorkerTask): Promise<unknown> {
  let loading = modules.get(task.module);
  if (!loading) {
    loading = import(task.module) as Promise<Record<string, unknown>>;
    modules.set(task.module, loading);
    loading.catch(() => modules.delete(task.module));
  }
  const mod = await loading;
  const fn = mod[task.fn];
  if (typeof fn !== 'function') throw new Error(`engine module does not export ${task.fn}()`);
  return await (fn as (input: unknown) => unknown)(task.input);
}

/**
 * A thread started after its pool's warm-ups were declared (a burst's extra thread, a replacement
 * after a deadline) runs them before piscina hands it a task: piscina waits for this module to
 * finish loading. Otherwise its first tasks would load the engines and run them JIT-cold, inside
 * their own deadlines, while the warm threads wait. A failing warm-up is left to the engine's own
 * tasks to report: a module that throws here would stop the thread from ever starting.
 */
for (const w of (workerData as ThreadWarmups | undefined)?.warmups ?? []) {
  try {
    await runTask({ module: w.module, fn: w.fn, input: null });
  } catch {
    // reported by the first task that needs the engine
  }
}
