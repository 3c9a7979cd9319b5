/** weight of the latest sample in each mean (an exponential average over ~16 tasks) */
const WEIGHT = 1 / 16;

/**
 * Whether a pool takes a task given now, on how long it would wait before a thread starts it,
 * learnt from the pool's answers (issue 45). Admission is decided on this, not on the queue's length alone: a queue of
 * cheap tasks may be long, and a request that would wait past its deadline is better refused now
 * (503, retry elsewhere or later) than answered a timeout after holding its client and a slot.
 *
 * Two means, and the estimate takes the larger: the threads' own run times, and the time between two
 * answers read while every ready thread had work (the main thread's clock). The run times alone
 * undercount when the cores are shared: they leave out the hand-offs, the cores' other work and the
 * event loop's delay in reading an answer; under load z3's answers came ~1.5x slower than its run
 * times said, and a 150 ms budget admitted waits of ~200 ms.
 */
export class Admission {
  /** mean run time of a task on a thread (ms); 0 until the first */
  private runMs = 0;
  /** mean time between two answers while the pool was busy (ms); 0 until measured */
  private busyIntervalMs = 0;
  private lastAnswerAt = 0;
  /** whether every ready thread still had work right after the last answer */
  private busyAfterLast = false;

  /** a task ran `ms` on its thread (warm-ups are not given: their run time says nothing of the pool's tasks) */
  ran(ms: number): void {
    this.runMs = this.runMs === 0 ? ms : this.runMs + (ms - this.runMs) * WEIGHT;
  }

  /**
   * An answer was read; `busy`: every ready thread still has work after it. The time since the
   * previous answer counts only when the pool was busy throughout, so idle time between bursts is
   * never taken for service. One sample counts at most four mean run times (plus 1 ms), so a single
   * stall (a full GC on the main thread) cannot close the pool to every request for ~16 answers.
   */
  answered(busy: boolean, now = performance.now()): void {
    if (this.busyAfterLast) {
      const sample = Math.min(now - this.lastAnswerAt, 4 * this.runMs + 1);
      this.busyIntervalMs = this.busyIntervalMs === 0 ? sample : this.busyIntervalMs + (sample - this.busyIntervalMs) * WEIGHT;
    }
    this.lastAnswerAt = now;
    this.busyAfterLast = busy;
  }

  /** the wait of a task that finds `ahead` tasks (waiting and in the threads' slots) and `ready` threads */
  waitMs(ready: number, ahead: number): number {
    // no thread ready yet (start-up, a restart): the wait is the thread's warm-up, which no query pays
    // for by refusal; the pool's queue bound still holds
    if (ready === 0 || ahead < ready) return 0;
    return (ahead - ready + 1) * Math.max(this.runMs / ready, this.busyIntervalMs);
  }

  /**
   * Whether a task that finds `ahead` tasks and `ready` threads is taken: never when its wait would
   * pass its own deadline; with a wait budget (a route's own call its client waits on alone), not
   * past the budget either, once it would wait behind more than one task per ready thread. The
   * budget bounds a queue that grows under overload; a task behind one running query per thread (two
   * clients' queries at once, each longer than the budget) waits for it, as a 503 with a whole second
   * of Retry-After would cost that client far more.
   */
  admits(ready: number, ahead: number, deadlineMs: number, budgetMs?: number): boolean {
    const wait = this.waitMs(ready, ahead);
    if (wait > deadlineMs) return false;
    return budgetMs === undefined || wait <= budgetMs || ahead - ready + 1 <= ready;
  }
}
