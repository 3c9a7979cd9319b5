import type { Logger } from 'pino';
import type { Store, WriteOp } from '../../core/store.js';
import { ACTIVITY_COLLECTION } from './activity.js';

/**
 * Activity-log retention (`plugin_config.agents.activity_retention_days`; default: keep
 * everything, like the audit chain). Every tool-call decision and screened verify writes an entry,
 * so a busy agent's log grows without end otherwise. Keys are `<agent_id>/<ms, 15 digits>-<random>`:
 * an agent's oldest entries come first, so a sweep reads each agent's expired prefix and jumps to
 * the next agent, never the entries it keeps.
 */
const BATCH = 1000;

const agentOf = (key: string): string => key.slice(0, key.lastIndexOf('/'));
const msOf = (key: string): number => Number(key.slice(key.lastIndexOf('/') + 1, key.lastIndexOf('/') + 16));

/** Removes every activity entry older than `retentionDays`; returns how many went. */
export async function pruneActivity(store: Store, retentionDays: number, now: () => number = Date.now): Promise<number> {
  const col = store.collection<unknown>(ACTIVITY_COLLECTION);
  const cutoff = now() - retentionDays * 86_400_000;
  let removed = 0;
  let start: string | undefined;
  for (;;) {
    const page = await col.list({ start, limit: BATCH });
    if (!page.length) return removed;
    const agent = agentOf(page[0].key);
    const old: WriteOp[] = [];
    for (const { key } of page) {
      // another agent's key, or one inside the window: this agent's expired prefix ends here
      if (agentOf(key) !== agent || !(msOf(key) < cutoff)) break;
      old.push({ collection: ACTIVITY_COLLECTION, key });
    }
    if (old.length) await store.commit(old);
    removed += old.length;
    // a full page of this agent's, all expired: it may have more, read on from its prefix;
    // otherwise the next agent, past everything this one keeps
    start = old.length === BATCH ? `${agent}/` : `${agent}/\uffff`;
  }
}

/** The sweep at start and every hour, one at a time, on a timer that does not hold the process. */
export function startActivityRetention(o: { store: Store; log: Logger; retentionDays: number; onClose(fn: () => void): void }): void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const removed = await pruneActivity(o.store, o.retentionDays);
      if (removed) o.log.info({ removed, retention_days: o.retentionDays }, 'agents: activity entries past retention removed');
    } catch (err) {
      o.log.error({ err }, 'agents: activity retention failed; the next sweep tries again');
    } finally {
      running = false;
    }
  };
  setImmediate(() => void sweep());
  const timer = setInterval(() => void sweep(), 3_600_000);
  timer.unref();
  o.onClose(() => clearInterval(timer));
}
