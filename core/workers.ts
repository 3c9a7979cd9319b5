import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';

export type EngineErrorKind = 'timeout' | 'crashed' | 'failed' | 'unavailable' | 'cancelled';

/** Every way a worker task can fail, as one error type engines' routes map to BLOCKED or 503. */
export class EngineError extends Error {
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** the young generation a worker thread gets unless workers.young_generation_mb says otherwise */
export const DEFAULT_YOUNG_GENERATION_MB = 8;
/** how long a shared-pool thread beyond the first may idle before it exits, unless workers.idle_timeout_ms says otherwise */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/**
 * The same for a dedicated pool's threads: its engine's start-up (z3: seconds on a loaded machine)
 * is what the pool exists to keep warm, and a thread restarted by a burst would pay it inside a query.
 */
const DEDICATED_IDLE_TIMEOUT_MS = 10 * 60_000;

// a path, not a URL: piscina converts a file URL back to a path on every task
const ENTRY = fileURLToPath(new URL('./worker-entry.js', import.meta.url));
const TIMEOUT = Symbol('timeout');

/** what worker-entry.ts reads from `workerData` */
export interface ThreadWarmups {
  warmups: Array<{ module: string; fn: string }>;
}

/**
 * The abort signal piscina gets for one task (it accepts an emitter of 'abort' with `aborted` and
 * `reason`): the deadline and the caller's signal both end in it. An AbortController per task costs
 * several times more on the event loop, for every engine call.
 */
class TaskSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/**
 * Named piscina pools: a shared one for parsing and algebra, and dedicated ones engines ask for
 * (one warm z3 thread). A deadline aborts the task, and piscina then terminates the thread that ran
 * it, so a runaway computation costs one thread restart, never a hung request.
 */
export class WorkerPools {
  private readonly pools = new Map<string, Piscina>();
  /**
   * Per pool, the warm-ups each thread it starts runs before it takes a task (worker-entry.ts). The
   * object is the pool's `workerData`: piscina hands the same object to every Worker it creates, and
   * a Worker clones it when it starts, so warm-ups declared after the pool exists reach every thread
   * started later (a burst's extra threads, a thread replaced after a deadline).
   */
  private readonly warmData = new Map<string, ThreadWarmups>();
  private closed = false;

  constructor(
    private readonly defaultThreads: number,
    private readonly log: Logger,
    /** V8 young generation of each worker thread (MB); see workers.young_generation_mb */
    private readonly youngGenerationMb = DEFAULT_YOUNG_GENERATION_MB,
    /** a shared-pool thread beyond the first exits after this long without a task; see workers.idle_timeout_ms */
    private readonly idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
  ) {}

  /** threads a pool has now (0 for a pool not created yet) */
  threads(name: string): number {
    return this.pools.get(name)?.threads.length ?? 0;
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
    this.warmData.get(name)?.warmups.push({ module: module.href, fn });
  }

  /** `threads` given: an engine's dedicated pool; absent: a pool of workers.threads (the shared one) */
  private pool(name: string, sized?: number): Piscina {
    const threads = sized ?? this.defaultThreads;
    let p = this.pools.get(name);
    if (!p) {
      const workerData: ThreadWarmups = { warmups: [] };
      this.warmData.set(name, workerData);
      p = new Piscina({
        filename: ENTRY,
        workerData,
        // svc_engine_task_duration_seconds times tasks already; piscina's own histograms are unread
        recordTiming: false,
        // workers must not inherit a test runner's or profiler's loader hooks: they slow every thread start
        execArgv: [],
        // V8 lets a thread's young generation grow to 32 MB, all of it resident once an engine's warm-up
        // has allocated through it; engine tasks allocate short-lived objects in small amounts, so a
        // smaller nursery costs a few more scavenges and saves ~24 MB per thread (docs: performance)
        resourceLimits: { maxYoungGenerationSizeMb: this.youngGenerationMb },
        // one thread stays (it holds the warm engine modules); the others a burst started hold a
        // heap and every module their tasks loaded, so they go after idleTimeoutMs without work
        minThreads: Math.min(1, threads),
        maxThreads: threads,
        idleTimeout: sized === undefined ? this.idleTimeoutMs : DEDICATED_IDLE_TIMEOUT_MS,
        // queue bounded so overload answers 503 quickly instead of building an unbounded backlog
        maxQueue: threads * 256,
      });
      p.on('error', (err: Error) => this.log.error({ err, pool: name }, 'worker pool error'));
      this.pools.set(name, p);
    }
    return p;
  }

  async run<O>(
    opts: { pool: string; threads?: number; module: URL; fn: string; input: unknown; timeoutMs: number; signal?: AbortSignal },
  ): Promise<O> {
    if (this.closed) throw new EngineError('unavailable', 'worker pool is closed');
    const pool = this.pool(opts.pool, opts.threads);
    const sig = new TaskSignal();
    const timer = setTimeout(() => sig.abort(TIMEOUT), opts.timeoutMs);
    const onOuterAbort = () => sig.abort(opts.signal?.reason);
    if (opts.signal?.aborted) onOuterAbort();
    // no { once }: an abort fires once, the listener is removed in finally either way, and an options
    // object costs its validation on every task
    else opts.signal?.addEventListener('abort', onOuterAbort);
    try {
      return (await pool.run({ module: opts.module.href, fn: opts.fn, input: opts.input }, { signal: sig })) as O;
    } catch (err) {
      if (sig.aborted) {
        if (sig.reason === TIMEOUT) throw new EngineError('timeout', `engine task exceeded ${opts.timeoutMs} ms`);
        throw new EngineError('cancelled', 'engine task cancelled');
      }
      const msg = (err as Error)?.message ?? String(err);
      if (/queue is full/i.test(msg)) throw new EngineError('unavailable', 'engine queue is full');
      if (/worker.*(exit|terminat)|terminat.*worker/i.test(msg)) throw new EngineError('crashed', 'engine worker exited');
      this.log.warn({ err, fn: opts.fn }, 'engine task failed');
      throw new EngineError('failed', 'engine task failed');
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onOuterAbort);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.pools.values()].map((p) => p.destroy()));
  }
}
