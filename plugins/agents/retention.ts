import type { App } from '../../core/types.js';
import type { Store } from '../../core/store/store.js';
import { pruneExpiredPrefixes } from '../../core/store/prune.js';
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
export function startActivityRetention(app: Pick<App, 'store' | 'log' | 'every'>, retentionDays: number): void {
  const sweep = async () => {
    const removed = await pruneActivity(app.store, retentionDays);
    if (removed) app.log.info({ removed, retention_days: retentionDays }, 'agents: activity entries past retention removed');
  };
  app.every(3_600_000, sweep, { atStart: true, onError: (err) => app.log.error({ err }, 'agents: activity retention failed; the next sweep tries again') });
}
