import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { Logger } from 'pino';
import { EngineError } from './engine-error.js';
import { WorkerPool, type OnRan } from './pool.js';
import type { ThreadData } from './protocol.js';

export { EngineError, type EngineErrorKind } from './engine-error.js';

/** the young generation a worker thread gets unless workers.young_generation_mb says otherwise */
export const DEFAULT_YOUNG_GENERATION_MB = 8;
/** how long a shared-pool thread beyond the first may idle before it exits, unless workers.idle_timeout_ms says otherwise */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/**
 * The same for a dedicated pool's threads: its engine's start-up (z3: seconds on a loaded machine)
 * is what the pool exists to keep warm, and a thread restarted by a burst would pay it inside a query.
 */
const DEDICATED_IDLE_TIMEOUT_MS = 10 * 60_000;
/**
 * Tasks a thread holds at once, one running and the rest waiting their turn (core/workers/pool.ts).
 * Enough that a loaded thread always finds its next task waiting; few enough that a task stuck
 * behind a slow one on its thread is rare and short.
 */
export const SLOTS_PER_THREAD = 4;

/**
 * V8's heap growing factor, for every isolate of the process (main thread and engine threads; V8's
 * flags are process-wide): after a full GC a heap may grow to live × (1 + percent/100) before the
 * next. V8's own factor (up to 4× when GC is cheap against the work) let each engine thread's old
 * generation hold 90-130 MB after 10,000 mixed requests for ~35 MB live (docs/operations.md,
 * "Memory under load"). V8 reads the flag at every GC, so setting it at start-up covers threads
 * started later; it is set rather than passed on the command line so that `npm start`, the image and
 * an operator's own `node` invocation all get it. null leaves V8's own.
 */
export function setHeapGrowingPercent(percent: number | null): void {
  if (percent) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

const ENTRY = fileURLToPath(new URL('./entry.js', import.meta.url));

/**
 * Named worker pools: a shared one for parsing and algebra, and dedicated ones engines ask for
 * (one warm z3 thread). A deadline takes back a task that has not started and ends the thread of
 * one that has, so a runaway computation costs one thread restart, never a hung request.
 */
export class WorkerPools {
  private readonly pools = new Map<string, WorkerPool>();
  /** per pool, the warm-ups each thread it starts runs before its first task (worker-entry.ts) */
  private readonly warmups = new Map<string, ThreadData['warmups']>();
  private closed = false;

  constructor(
    private readonly defaultThreads: number,
    private readonly log: Logger,
    /** V8 young generation of each worker thread (MB); see workers.young_generation_mb */
    private readonly youngGenerationMb = DEFAULT_YOUNG_GENERATION_MB,
    /** a shared-pool thread beyond the first exits after this long without a task; see workers.idle_timeout_ms */
    private readonly idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
    /** V8 old generation cap of each worker thread (MB), null for V8's own; see workers.old_generation_mb */
    private readonly oldGenerationMb: number | null = null,
    /** a task run with `queueBudget` that would wait longer than this for a thread is refused at once (503); see workers.max_queue_wait_ms */
    private readonly maxQueueWaitMs = Infinity,
  ) {}

  /** threads a pool has now (0 for a pool not created yet) */
  threads(name: string): number {
    return this.pools.get(name)?.size ?? 0;
  }

  /** every pool created so far, with its threads now (the svc_engine_pool_threads gauge) */
  sizes(): Array<[pool: string, threads: number]> {
    return [...this.pools].map(([name, p]) => [name, p.size]);
  }

  get ready(): boolean {
    return !this.closed;
  }

  /** Creates the pool now so its first thread starts while the server boots, not on the first request. */
  prepare(name: string, threads?: number): void {
    if (!this.closed) this.pool(name, threads);
  }

  /**
   * Every thread the pool starts from now on runs `fn` of `module` before its first task. The pool's
   * first thread is already starting: the kernel's own warm-up task (what /readyz waits for) warms it.
   */
  warmEveryThread(name: string, module: URL, fn: string): void {
    this.warmups.get(name)?.push({ module: module.href, fn });
  }

  /** `threads` given: an engine's dedicated pool; absent: a pool of workers.threads (the shared one) */
  private pool(name: string, sized?: number): WorkerPool {
    let p = this.pools.get(name);
    if (!p) {
      const threads = sized ?? this.defaultThreads;
      const warmups: ThreadData['warmups'] = [];
      this.warmups.set(name, warmups);
      p = new WorkerPool({
        name,
        entry: ENTRY,
        warmups,
        log: this.log,
        youngGenerationMb: this.youngGenerationMb,
        oldGenerationMb: this.oldGenerationMb,
        // one thread stays (it holds the warm engine modules); the others a burst started hold a
        // heap and every module their tasks loaded, so they go after idleTimeoutMs without work
        minThreads: Math.min(1, threads),
        maxThreads: threads,
        idleTimeoutMs: sized === undefined ? this.idleTimeoutMs : DEDICATED_IDLE_TIMEOUT_MS,
        // queue bounded so overload answers 503 quickly instead of building an unbounded backlog
        maxQueue: threads * 256,
        maxQueueWaitMs: this.maxQueueWaitMs,
        slotsPerThread: SLOTS_PER_THREAD,
      });
      this.pools.set(name, p);
    }
    return p;
  }

  /**
   * `warmup`: the task loads or warms an engine; it is never refused for the queue's wait, and its
   * run time is not the pool's. `queueBudget`: refused past workers.max_queue_wait_ms too, not only
   * past its deadline (see core/workers/admission.ts)
   */
  run<O>(opts: { pool: string; threads?: number; module: URL; fn: string; input: unknown; timeoutMs: number; signal?: AbortSignal; onRan?: OnRan; warmup?: boolean; queueBudget?: boolean }): Promise<O> {
    if (this.closed) return Promise.reject(new EngineError('unavailable', 'worker pool is closed'));
    return this.pool(opts.pool, opts.threads).run(opts.module.href, opts.fn, opts.input, opts.timeoutMs, opts) as Promise<O>;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.pools.values()].map((p) => p.close()));
  }
}

/**
 * The shared pool's size when workers.threads is null: one fewer than the cores. The main thread
 * (HTTP, auth, signing, audit) keeps a core busy under load and a dedicated pool (z3) may hold
 * another, so a second shared thread on two cores adds a heap and every engine's modules (~40 MB
 * after load) for CPU it cannot have (issue 45, docs/operations.md).
 */
export function sharedPoolThreads(cores = availableParallelism()): number {
  return Math.min(64, Math.max(1, cores - 1));
}
