import type { Logger } from 'pino';
import { EngineError } from './engine-error.js';
import {
  REPLY_ERROR,
  REPLY_OK,
  REPLY_SKIPPED,
  SLOT_CANCELLED,
  SLOT_DONE,
  SLOT_FREE,
  SLOT_PENDING,
  SLOT_RUNNING,
  type ReplyMessage,
  type TaskMessage,
  type ThreadData,
} from './protocol.js';
import { endWhenStarted, spawnThread, type Thread as EngineThread } from './thread.js';
import { Admission } from './admission.js';

type Thread = EngineThread<Task>;

export interface PoolOptions {
  name: string;
  /** worker-entry.js */
  entry: string;
  minThreads: number;
  maxThreads: number;
  /** a thread beyond minThreads exits after this long without a task */
  idleTimeoutMs: number;
  /** tasks waiting for a slot beyond this are refused (503) rather than queued without bound */
  maxQueue: number;
  /** a task given `queueBudget` that would wait longer than this before a thread starts it is refused at once (admission.ts) */
  maxQueueWaitMs: number;
  /** tasks sent to one thread ahead of its answers (see dispatch) */
  slotsPerThread: number;
  youngGenerationMb: number;
  /** null: V8's own sizing */
  oldGenerationMb?: number | null;
  /** the pool's warm-ups; a thread gets the list as it is when the thread starts */
  warmups: ThreadData['warmups'];
  log: Logger;
}

interface Task {
  module: string;
  fn: string;
  input: unknown;
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(err: EngineError): void;
  settled: boolean;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** set while the task sits in one of the thread's slots */
  thread: Thread | undefined;
  slot: number;
  /** told when and on which thread the task ran (tracing draws the in-thread span from it) */
  onRan: OnRan | undefined;
  /** a warm-up: its run time (a module load, z3's wasm compile) says nothing of the pool's tasks */
  warmup: boolean;
}

export interface RunOptions {
  signal?: AbortSignal;
  onRan?: OnRan;
  warmup?: boolean;
  /** refused past maxQueueWaitMs as well as past its deadline: a request its client waits on alone */
  queueBudget?: boolean;
}

export type OnRan = (startMs: number, endMs: number, threadId: number) => void;

/** after a thread dies before it was ready (a broken engine module), the next start waits this long */
const RESTART_BACKOFF_MS = 1000;

/**
 * One named pool of worker threads.
 *
 * A deadline or a cancelled request takes back a task that has not started (its slot's state in
 * shared memory says so, see worker-protocol.ts); a task that overruns its deadline while running
 * ends its thread, and the tasks queued behind it on that thread, which never started, run
 * elsewhere. So a runaway computation costs one thread restart, never a hung request, and tasks can
 * be sent to a thread ahead of its answers: under load a thread finds its next task waiting and
 * the main thread reads several answers per wake-up, where one task per thread per round trip cost
 * both sides a full sleep-and-wake cycle (docs/operations.md, "The worker hop").
 */
export class WorkerPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Task[] = [];
  private closed = false;
  private restartAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  /** whether a task given now is taken (admission.ts) */
  private readonly admission = new Admission();

  constructor(private readonly o: PoolOptions) {
    for (let i = 0; i < o.minThreads; i++) this.start();
  }

  /** threads alive, including those still starting */
  get size(): number {
    return this.threads.length;
  }

  /** threads ready, and the tasks a task given now would find ahead of it (waiting and in the threads' slots) */
  private occupancy(): { ready: number; ahead: number } {
    let ready = 0;
    let ahead = this.queue.length;
    for (const th of this.threads) {
      if (!th.ready) continue;
      ready++;
      ahead += th.inFlight;
    }
    return { ready, ahead };
  }

  run(module: string, fn: string, input: unknown, timeoutMs: number, o: RunOptions = {}): Promise<unknown> {
    const { signal, onRan } = o;
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new EngineError('unavailable', 'worker pool is closed'));
      if (this.queue.length >= this.o.maxQueue) return reject(new EngineError('unavailable', 'engine queue is full'));
      if (signal?.aborted) return reject(new EngineError('cancelled', 'engine task cancelled'));
      if (!o.warmup) {
        const { ready, ahead } = this.occupancy();
        if (!this.admission.admits(ready, ahead, timeoutMs, o.queueBudget ? this.o.maxQueueWaitMs : undefined)) return reject(new EngineError('unavailable', 'engine queue is full'));
      }
      const task: Task = { module, fn, input, timeoutMs, resolve, reject, settled: false, timer: undefined, signal, onAbort: undefined, thread: undefined, slot: -1, onRan, warmup: o.warmup === true };
      task.timer = setTimeout(() => this.expire(task), timeoutMs);
      if (signal) {
        task.onAbort = () => this.cancel(task);
        signal.addEventListener('abort', task.onAbort);
      }
      this.queue.push(task);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    const gone = new EngineError('unavailable', 'worker pool is closed');
    for (const task of this.queue.splice(0)) {
      clearTimeout(task.timer);
      this.end(task, gone);
    }
    const exits: Array<Promise<unknown>> = [];
    for (const th of this.threads.splice(0)) {
      th.dead = true;
      clearTimeout(th.idleTimer);
      for (const task of th.tasks) {
        if (!task) continue;
        clearTimeout(task.timer);
        this.end(task, gone);
      }
      exits.push(endWhenStarted(th));
    }
    await Promise.allSettled(exits);
  }

  /** hands queued tasks to threads with a free slot; starts a thread when a task has none to go to */
  private pump(): void {
    while (this.queue.length > 0) {
      const th = this.pick();
      if (!th) return;
      this.dispatch(th, this.queue.shift()!);
    }
  }

  /**
   * An idle thread first. Otherwise a task waits for a thread that is starting (one is started for
   * it if the pool may grow) rather than stack behind a busy thread's task; only tasks beyond what
   * the starting threads will take go to the least-loaded busy thread with a free slot. A burst on a
   * pool whose second thread is still running its warm-ups (a second or more) is then not served
   * one task per round trip meanwhile.
   */
  private pick(): Thread | undefined {
    let best: Thread | undefined;
    let starting = 0;
    for (const th of this.threads) {
      if (!th.ready) {
        starting++;
        continue;
      }
      if (th.inFlight === 0) return th;
      if (th.inFlight < this.o.slotsPerThread && (!best || th.inFlight < best.inFlight)) best = th;
    }
    if (this.threads.length < this.o.maxThreads && starting < this.queue.length) {
      this.start();
      starting++;
    }
    // more waiting than starting threads will take: the surplus shares the busy threads meanwhile
    return this.queue.length > starting ? best : undefined;
  }

  private dispatch(th: Thread, task: Task): void {
    const slot = th.free.pop()!;
    th.tasks[slot] = task;
    th.inFlight++;
    task.thread = th;
    task.slot = slot;
    if (th.idleTimer) {
      clearTimeout(th.idleTimer);
      th.idleTimer = undefined;
    }
    Atomics.store(th.slots, slot, SLOT_PENDING);
    try {
      th.worker.postMessage([slot, task.module, task.fn, task.input] satisfies TaskMessage);
    } catch (err) {
      // an input structured clone cannot carry: nothing reached the thread
      this.release(th, slot);
      clearTimeout(task.timer);
      this.o.log.warn({ err, fn: task.fn }, 'engine task input could not be sent to a worker');
      this.end(task, new EngineError('failed', 'engine task failed'));
    }
  }

  private start(): void {
    if (this.closed) return;
    const wait = this.restartAt - Date.now();
    if (wait > 0) {
      this.restartTimer ??= setTimeout(() => {
        this.restartTimer = undefined;
        if (this.threads.length < this.o.minThreads) this.start();
        this.pump();
      }, wait);
      return;
    }
    const th: Thread = spawnThread<Task>({ entry: this.o.entry, slots: this.o.slotsPerThread, warmups: this.o.warmups, youngGenerationMb: this.o.youngGenerationMb, oldGenerationMb: this.o.oldGenerationMb });
    const worker = th.worker;
    this.threads.push(th);
    worker.on('message', (msg: ReplyMessage) => this.onReply(th, msg));
    worker.on('error', (err) => this.o.log.error({ err, pool: this.o.name }, 'engine worker error'));
    worker.on('exit', (code) => this.onExit(th, code));
  }

  private onReply(th: Thread, msg: ReplyMessage): void {
    if (msg === 'ready') th.markStarted();
    if (th.dead) return;
    if (msg === 'ready') {
      th.ready = true;
      this.pump();
      if (th.inFlight === 0) this.steal(th);
      if (th.inFlight === 0) this.idle(th);
      return;
    }
    const slot = msg[0];
    const task = th.tasks[slot];
    this.release(th, slot);
    if (task) {
      clearTimeout(task.timer);
      if (msg[1] !== REPLY_SKIPPED && !task.warmup) {
        if (msg[3]) this.admission.ran(msg[3][1] - msg[3][0]);
        const { ready, ahead } = this.occupancy();
        this.admission.answered(ready > 0 && ahead >= ready);
      }
      if (task.onRan && msg[1] !== REPLY_SKIPPED && msg[3] && !task.settled) task.onRan(msg[3][0], msg[3][1], th.worker.threadId);
      if (msg[1] === REPLY_OK) this.end(task, undefined, msg[2]);
      else if (msg[1] === REPLY_ERROR) {
        if (!task.settled) this.o.log.warn({ err: { message: msg[2] }, fn: task.fn }, 'engine task failed');
        this.end(task, new EngineError('failed', 'engine task failed'));
      }
      // REPLY_SKIPPED: the task was taken back and already answered
    }
    if (this.queue.length > 0) this.pump();
    if (th.inFlight === 0 && !th.dead) this.steal(th);
    if (th.inFlight === 0 && !th.dead) this.idle(th);
  }

  /**
   * A thread with nothing to do takes over a task waiting behind another thread's running one:
   * tasks sent ahead to a busy thread must not wait out a slow task there while this one idles.
   * The task is taken back from its slot first (the worker answers SKIPPED for it, which frees the
   * slot), so it runs exactly once.
   */
  private steal(into: Thread): void {
    for (const th of this.threads) {
      if (th === into || th.inFlight < 2) continue;
      for (let slot = 0; slot < th.tasks.length; slot++) {
        const task = th.tasks[slot];
        if (!task || task.settled || Atomics.compareExchange(th.slots, slot, SLOT_PENDING, SLOT_CANCELLED) !== SLOT_PENDING) continue;
        // the old slot stays counted in flight until its SKIPPED answer; nothing there refers to the task now
        th.tasks[slot] = undefined;
        this.dispatch(into, task);
        return;
      }
    }
  }

  private release(th: Thread, slot: number): void {
    th.tasks[slot] = undefined;
    th.free.push(slot);
    th.inFlight--;
    Atomics.store(th.slots, slot, SLOT_FREE);
  }

  /** a deadline: a task not started is taken back; a running one ends its thread */
  private expire(task: Task): void {
    task.timer = undefined;
    const th = task.thread;
    const late = new EngineError('timeout', `engine task exceeded ${task.timeoutMs} ms`);
    if (!th) return this.unqueue(task, late);
    const was = Atomics.compareExchange(th.slots, task.slot, SLOT_PENDING, SLOT_CANCELLED);
    this.end(task, late);
    if (was === SLOT_RUNNING) this.retire(th, false);
  }

  /**
   * The caller gave up (client gone, consensus deadline). A task not started is taken back; one
   * already running is left to finish, its answer unread: its deadline timer stays armed and still
   * ends the thread if it overruns. Ending a warm thread for every dropped connection would let any
   * client make the pool restart engines (z3's start-up takes seconds) at will.
   */
  private cancel(task: Task): void {
    if (task.settled) return;
    const stop = new EngineError('cancelled', 'engine task cancelled');
    const th = task.thread;
    if (!th) {
      clearTimeout(task.timer);
      return this.unqueue(task, stop);
    }
    if (Atomics.compareExchange(th.slots, task.slot, SLOT_PENDING, SLOT_CANCELLED) === SLOT_PENDING) clearTimeout(task.timer);
    this.end(task, stop);
  }

  private unqueue(task: Task, err: EngineError): void {
    const i = this.queue.indexOf(task);
    if (i >= 0) this.queue.splice(i, 1);
    this.end(task, err);
  }

  private end(task: Task, err: EngineError | undefined, value?: unknown): void {
    if (task.settled) return;
    task.settled = true;
    if (task.onAbort) task.signal!.removeEventListener('abort', task.onAbort);
    if (err) task.reject(err);
    else task.resolve(value);
  }

  private onExit(th: Thread, code: number): void {
    th.markStarted();
    if (th.dead) return;
    this.o.log.error({ pool: this.o.name, code, ready: th.ready }, 'engine worker exited');
    if (!th.ready) this.restartAt = Date.now() + RESTART_BACKOFF_MS;
    this.retire(th, true);
  }

  /**
   * Takes a thread out of the pool (deadline, crash, idle). Tasks that never started on it go back
   * to the front of the queue; a task that had started gets `crashed` when the thread died under it
   * (a deadline has answered its task already).
   */
  private retire(th: Thread, crashed: boolean): void {
    th.dead = true;
    clearTimeout(th.idleTimer);
    const i = this.threads.indexOf(th);
    if (i >= 0) this.threads.splice(i, 1);
    if (!crashed) void th.worker.terminate();
    const again: Task[] = [];
    th.tasks.forEach((task, slot) => {
      if (!task) return;
      if (task.settled) return clearTimeout(task.timer);
      // never started, or finished with its answer lost with the thread: engines are deterministic, so run it again
      const state = Atomics.load(th.slots, slot);
      if (state === SLOT_PENDING || state === SLOT_DONE) {
        task.thread = undefined;
        task.slot = -1;
        again.push(task);
        return;
      }
      clearTimeout(task.timer);
      this.end(task, new EngineError('crashed', 'engine worker exited'));
    });
    this.queue.unshift(...again);
    if (this.closed) return;
    if (this.threads.length < this.o.minThreads) this.start();
    this.pump();
  }

  private idle(th: Thread): void {
    if (th.idleTimer || this.threads.length <= this.o.minThreads) return;
    th.idleTimer = setTimeout(() => {
      th.idleTimer = undefined;
      if (th.inFlight === 0 && this.threads.length > this.o.minThreads) this.retire(th, false);
    }, this.o.idleTimeoutMs);
    th.idleTimer.unref();
  }
}
