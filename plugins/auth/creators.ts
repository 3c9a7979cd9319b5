import type { Role } from '../../core/types.js';
import type { Accounts } from './accounts.js';
import type { SecurityEvents } from './events.js';
import type { ApiKeyRecord, ApiKeys, Followed } from './keys.js';

/**
 * API keys follow their creator (decisions §5: a key acts for the user who created it). The rule is
 * applied when the user changes — role set, user deleted — and not when a key is used: the API-key
 * path stays one HMAC and one get, with no user read and no per-process cache that replicas sharing
 * a store would each hold stale. Every writer of a user's role or existence calls `creatorChanged`
 * after writing the user; every writer of a key re-reads its creator afterwards (`creatorRole`), so
 * a key written while a demotion is under way is caught by one side or the other.
 */
export async function creatorChanged(
  keys: ApiKeys,
  events: SecurityEvents | null,
  orgId: string,
  userId: string,
  role: Role | null,
  except?: ReadonlySet<string>,
): Promise<Followed[]> {
  const changed = await keys.followCreator(orgId, userId, role, except);
  recordRevocations(events, orgId, changed, role);
  return changed;
}

/** The role `userId` holds in `orgId` now, or null when the user is gone or belongs elsewhere. */
export async function creatorRole(accounts: Pick<Accounts, 'user'>, orgId: string, userId: string | undefined): Promise<Role | null> {
  const user = userId ? await accounts.user(userId) : undefined;
  return user && user.org_id === orgId ? user.role : null;
}

/**
 * A key just written on the strength of a role read before the write: re-reads its creator and
 * applies the rule to it. Returns the creator's role now and the key as it now stands.
 */
export async function settleNewKey(
  d: { accounts: Pick<Accounts, 'user'>; keys: ApiKeys; events: SecurityEvents | null },
  rec: ApiKeyRecord,
): Promise<{ role: Role | null; record: ApiKeyRecord }> {
  const role = await creatorRole(d.accounts, rec.org_id, rec.user_id);
  const f = await d.keys.follow(rec, role);
  recordRevocations(d.events, rec.org_id, f ? [f] : [], role);
  return { role, record: f?.after ?? rec };
}

function recordRevocations(events: SecurityEvents | null, orgId: string, changed: Followed[], role: Role | null): void {
  for (const f of changed) {
    if (f.after.revoked_at !== null) events?.record(orgId, 'key_revoked', { keyId: f.after.id, detail: role === null ? 'creator deleted' : 'creator demoted' });
  }
}
