/**
 * What the kernel and a worker thread say to each other (core/workers/pool.ts, core/workers/entry.ts).
 *
 * Each thread has a few task slots. A slot's state lives in shared memory so that both sides can
 * tell, without a message round trip, whether a task has started: a deadline or a cancelled request
 * takes back a task that has not started (the worker skips it), and only a task that is running
 * costs its thread.
 */
export const SLOT_FREE = 0;
/** sent, not started: the kernel may still take it back */
export const SLOT_PENDING = 1;
/** the worker has started it: only ending the thread stops it */
export const SLOT_RUNNING = 2;
/** finished; its reply is on its way */
export const SLOT_DONE = 3;
/** taken back before it started: the worker replies REPLY_SKIPPED without running it */
export const SLOT_CANCELLED = 4;

export const REPLY_OK = 0;
export const REPLY_ERROR = 1;
export const REPLY_SKIPPED = 2;

/** kernel → worker: [slot, engine module URL, exported function, input] */
export type TaskMessage = [slot: number, module: string, fn: string, input: unknown];
/** worker → kernel: 'ready' once its warm-ups ran, then one reply per task message */
export type ReplyMessage = 'ready' | [slot: number, kind: typeof REPLY_OK, value: unknown, ran: Ran] | [slot: number, kind: typeof REPLY_ERROR, message: string, ran?: Ran] | [slot: number, kind: typeof REPLY_SKIPPED];

/**
 * When the thread ran the task, in epoch milliseconds with sub-millisecond digits: the kernel's
 * engine span covers the queue and the hop as well, and the in-thread span is drawn from these
 */
export type Ran = [startMs: number, endMs: number];

/** what worker-entry.ts reads from `workerData` */
export interface ThreadData {
  /** engine warm-ups a thread runs before it says 'ready' */
  warmups: Array<{ module: string; fn: string }>;
  /** Int32Array over it: one SLOT_* state per task slot */
  slots: SharedArrayBuffer;
}
