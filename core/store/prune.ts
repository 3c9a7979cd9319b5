import type { Store, WriteOp } from './store.js';

/**
 * Removes the expired entries of a collection whose keys are `<group>/<time…>`: within a group
 * (an organisation, an agent) keys sort by time, so the expired ones are each group's first keys.
 * A sweep reads those and jumps to the next group (`<group>/\uffff`), never the entries a group
 * keeps, so it costs the expired entries plus one read per group, not the whole collection.
 * `groupOf` names a key's group; `expired` says whether a key is past its retention.
 */
export async function pruneExpiredPrefixes(
  store: Store,
  collection: string,
  o: { groupOf: (key: string) => string; expired: (key: string) => boolean; batch?: number },
): Promise<number> {
  const col = store.collection<unknown>(collection);
  const batch = o.batch ?? 1000;
  let removed = 0;
  let start: string | undefined;
  for (;;) {
    const page = await col.list({ start, limit: batch });
    if (!page.length) return removed;
    const group = o.groupOf(page[0].key);
    const old: WriteOp[] = [];
    for (const { key } of page) {
      // another group's key, or one inside the window: this group's expired prefix ends here
      if (o.groupOf(key) !== group || !o.expired(key)) break;
      old.push({ collection, key });
    }
    if (old.length) await store.commit(old);
    removed += old.length;
    // a full page of this group's, all expired: it may have more, read on from its prefix;
    // otherwise the next group, past everything this one keeps
    start = old.length === batch ? `${group}/` : `${group}/\uffff`;
  }
}

/**
 * A sweep every `everyMs` (and at start unless `atStart` is false), one at a time, on a timer that
 * does not hold the process. The function given to `onClose` stops the timer and waits for a sweep
 * in progress, so none still reads the store as it closes. Plugins reach this as `app.every`.
 */
export function startSweeps(o: {
  sweep: () => Promise<unknown> | unknown;
  everyMs: number;
  atStart?: boolean;
  onError: (err: unknown) => void;
  onClose: (fn: () => Promise<void>) => void;
}): void {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    const current = (async () => {
      try {
        await o.sweep();
      } catch (err) {
        o.onError(err);
      }
    })();
    running = current;
    // cleared a turn later, never before the assignment above (a sweep may finish synchronously)
    void current.finally(() => {
      if (running === current) running = null;
    });
  };
  if (o.atStart !== false) setImmediate(run);
  const timer = setInterval(run, o.everyMs);
  timer.unref();
  o.onClose(async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  });
}
