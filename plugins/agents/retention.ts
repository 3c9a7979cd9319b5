import type { Logger } from 'pino';
import type { Store } from '../../core/store.js';
import { pruneExpiredPrefixes, startSweeps } from '../../core/store-prune.js';
import { ACTIVITY_COLLECTION } from './activity.js';

/**
 * Activity-log retention (`plugin_config.agents.activity_retention_days`; default: keep
 * everything, like the audit chain). Every tool-call decision and screened verify writes an entry,
 * so a busy agent's log grows without end otherwise. Keys are `<agent_id>/<ms, 15 digits>-<random>`:
 * an agent's oldest entries come first.
 */
const agentOf = (key: string): string => key.slice(0, key.lastIndexOf('/'));
const msOf = (key: string): number => Number(key.slice(key.lastIndexOf('/') + 1, key.lastIndexOf('/') + 16));

/** Removes every activity entry older than `retentionDays`; returns how many went. */
export function pruneActivity(store: Store, retentionDays: number, now: () => number = Date.now): Promise<number> {
  const cutoff = now() - retentionDays * 86_400_000;
  return pruneExpiredPrefixes(store, ACTIVITY_COLLECTION, { groupOf: agentOf, expired: (key) => msOf(key) < cutoff });
}

/** The sweep at start and every hour. */
export function startActivityRetention(o: { store: Store; log: Logger; retentionDays: number; onClose(fn: () => void): void }): void {
  startSweeps({
    everyMs: 3_600_000,
    onClose: o.onClose,
    onError: (err) => o.log.error({ err }, 'agents: activity retention failed; the next sweep tries again'),
    async sweep() {
      const removed = await pruneActivity(o.store, o.retentionDays);
      if (removed) o.log.info({ removed, retention_days: o.retentionDays }, 'agents: activity entries past retention removed');
    },
  });
}
