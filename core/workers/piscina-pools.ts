import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import { EngineError } from './engine-error.js';
import type { PiscinaReply, PiscinaTask, PiscinaThreadData } from './piscina-entry.js';
import type { OnRan } from './pool.js';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_YOUNG_GENERATION_MB, SLOTS_PER_THREAD, type WorkerPools } from './pools.js';
import { REPLY_OK, REPLY_SKIPPED, SLOT_CANCELLED, SLOT_DONE, SLOT_FREE, SLOT_PENDING, SLOT_RUNNING } from './protocol.js';

/** what the kernel uses of a set of pools: WorkerPools, or this bench variant */
export type Pools = Pick<WorkerPools, keyof WorkerPools>;

const ENTRY = fileURLToPath(new URL('./piscina-entry.js', import.meta.url));
const DEDICATED_IDLE_TIMEOUT_MS = 10 * 60_000;

interface Task {
  slot: number;
  message: PiscinaTask;
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(err: EngineError): void;
  settled: boolean;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  onRan: OnRan | undefined;
}

/**
 * One piscina pool run WITHOUT per-task abort signals (piscina runs a task that has one alone on
 * its thread, which is why the kernel left it; docs/architecture.md "Why our own worker pool").
 * The deadline is kept here instead, with the own pool's guarantees: a task not started when its
 * deadline passes or its caller goes is taken back through its shared state and skipped by the
 * thread; a task still running at its deadline has its thread terminated (found through the
 * threadId the thread wrote), piscina replaces the thread, and the tasks it held that never started
 * are sent again. Bench-only: the product runs core/workers/pool.ts.
 */
class PiscinaPool {
  readonly piscina: Piscina;
  private readonly states: Int32Array;
  private readonly runners: Int32Array;
  private readonly free: number[];
  readonly data: PiscinaThreadData;
  closed = false;

  constructor(o: { threads: number; idleTimeoutMs: number; youngGenerationMb: number; oldGenerationMb: number | null; log: Logger; name: string }) {
    const maxQueue = o.threads * 256;
    // every task holds a slot from submission until piscina answers for it (the thread has then let go of it)
    const slots = maxQueue + o.threads * SLOTS_PER_THREAD;
    this.data = { warmups: [], states: new SharedArrayBuffer(4 * slots), runners: new SharedArrayBuffer(4 * slots) };
    this.states = new Int32Array(this.data.states);
    this.runners = new Int32Array(this.data.runners);
    this.free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
    const { NODE_OPTIONS: _dropped, ...env } = process.env;
    this.piscina = new Piscina({
      filename: ENTRY,
      workerData: this.data,
      recordTiming: false,
      execArgv: [],
      env,
      resourceLimits: { maxYoungGenerationSizeMb: o.youngGenerationMb, ...(o.oldGenerationMb ? { maxOldGenerationSizeMb: o.oldGenerationMb } : {}) },
      minThreads: Math.min(1, o.threads),
      maxThreads: o.threads,
      idleTimeout: o.idleTimeoutMs,
      maxQueue,
      concurrentTasksPerWorker: SLOTS_PER_THREAD,
    });
    this.piscina.on('error', (err: Error) => o.log.error({ err, pool: o.name }, 'worker pool error'));
  }

  run(module: string, fn: string, input: unknown, timeoutMs: number, signal?: AbortSignal, onRan?: OnRan): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new EngineError('cancelled', 'engine task cancelled'));
      const slot = this.free.pop();
      if (slot === undefined) return reject(new EngineError('unavailable', 'engine queue is full'));
      const task: Task = { slot, message: [slot, module, fn, input], timeoutMs, resolve, reject, settled: false, timer: undefined, signal, onAbort: undefined, onRan };
      task.timer = setTimeout(() => this.expire(task), timeoutMs);
      if (signal) {
        task.onAbort = () => this.cancel(task);
        signal.addEventListener('abort', task.onAbort);
      }
      this.send(task);
    });
  }

  private send(task: Task): void {
    Atomics.store(this.runners, task.slot, 0);
    Atomics.store(this.states, task.slot, SLOT_PENDING);
    this.piscina.run(task.message).then(
      (reply: PiscinaReply) => this.answered(task, reply),
      (err: Error) => this.failed(task, err),
    );
  }

  private answered(task: Task, reply: PiscinaReply): void {
    this.release(task);
    if (reply[0] === REPLY_SKIPPED) return;
    if (task.onRan && !task.settled) task.onRan(reply[2], reply[3], reply[4]);
    if (reply[0] === REPLY_OK) this.end(task, undefined, reply[1]);
    else this.end(task, new EngineError('failed', 'engine task failed'));
  }

  /** piscina failed the task: its queue is full, its input could not be cloned, or its thread died */
  private failed(task: Task, err: Error): void {
    const state = Atomics.load(this.states, task.slot);
    const msg = err?.message ?? String(err);
    if (this.closed) {
      this.release(task);
      return this.end(task, new EngineError('unavailable', 'worker pool is closed'));
    }
    if (/queue.*(full|limit)|task queue/i.test(msg)) {
      this.release(task);
      return this.end(task, new EngineError('unavailable', 'engine queue is full'));
    }
    const threadGone = /worker.*(exit|terminat)|terminat/i.test(msg);
    // never started, or finished with its answer lost with the thread: engines are deterministic, so run it again
    if (threadGone && !task.settled && (state === SLOT_PENDING || state === SLOT_DONE)) return this.send(task);
    this.release(task);
    this.end(task, new EngineError(threadGone ? 'crashed' : 'failed', threadGone ? 'engine worker exited' : 'engine task failed'));
  }

  /** piscina has answered for the task: no thread refers to its slot any more */
  private release(task: Task): void {
    clearTimeout(task.timer);
    task.timer = undefined;
    Atomics.store(this.states, task.slot, SLOT_FREE);
    this.free.push(task.slot);
  }

  /** the watchdog: a task not started is taken back; a running one ends its thread */
  private expire(task: Task): void {
    task.timer = undefined;
    const was = Atomics.compareExchange(this.states, task.slot, SLOT_PENDING, SLOT_CANCELLED);
    this.end(task, new EngineError('timeout', `engine task exceeded ${task.timeoutMs} ms`));
    if (was !== SLOT_RUNNING) return;
    const tid = Atomics.load(this.runners, task.slot);
    const worker = this.piscina.threads.find((w) => w.threadId === tid);
    void worker?.terminate();
  }

  /** the caller gave up: a task not started is taken back; a running one finishes unread, its deadline still armed */
  private cancel(task: Task): void {
    if (task.settled) return;
    Atomics.compareExchange(this.states, task.slot, SLOT_PENDING, SLOT_CANCELLED);
    this.end(task, new EngineError('cancelled', 'engine task cancelled'));
  }

  private end(task: Task, err: EngineError | undefined, value?: unknown): void {
    if (task.settled) return;
    task.settled = true;
    if (task.onAbort) task.signal!.removeEventListener('abort', task.onAbort);
    if (err) task.reject(err);
    else task.resolve(value);
  }
}

/** WorkerPools' surface over piscina pools (see PiscinaPool); chosen by BENCH_POOL=piscina only */
export class PiscinaPools implements Pools {
  private readonly pools = new Map<string, PiscinaPool>();
  private closed = false;

  constructor(
    private readonly defaultThreads: number,
    private readonly log: Logger,
    private readonly youngGenerationMb = DEFAULT_YOUNG_GENERATION_MB,
    private readonly idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
    private readonly oldGenerationMb: number | null = null,
  ) {}

  threads(name: string): number {
    return this.pools.get(name)?.piscina.threads.length ?? 0;
  }

  sizes(): Array<[pool: string, threads: number]> {
    return [...this.pools].map(([name, p]) => [name, p.piscina.threads.length]);
  }

  get ready(): boolean {
    return !this.closed;
  }

  prepare(name: string, threads?: number): void {
    if (!this.closed) this.pool(name, threads);
  }

  warmEveryThread(name: string, module: URL, fn: string): void {
    this.pools.get(name)?.data.warmups.push({ module: module.href, fn });
  }

  private pool(name: string, sized?: number): PiscinaPool {
    let p = this.pools.get(name);
    if (!p) {
      p = new PiscinaPool({
        name,
        threads: sized ?? this.defaultThreads,
        idleTimeoutMs: sized === undefined ? this.idleTimeoutMs : DEDICATED_IDLE_TIMEOUT_MS,
        youngGenerationMb: this.youngGenerationMb,
        oldGenerationMb: this.oldGenerationMb,
        log: this.log,
      });
      this.pools.set(name, p);
    }
    return p;
  }

  run<O>(opts: { pool: string; threads?: number; module: URL; fn: string; input: unknown; timeoutMs: number; signal?: AbortSignal; onRan?: OnRan }): Promise<O> {
    if (this.closed) return Promise.reject(new EngineError('unavailable', 'worker pool is closed'));
    return this.pool(opts.pool, opts.threads).run(opts.module.href, opts.fn, opts.input, opts.timeoutMs, opts.signal, opts.onRan) as Promise<O>;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.pools.values()].map((p) => {
        p.closed = true;
        return p.piscina.destroy();
      }));
  }
}
