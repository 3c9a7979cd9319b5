import type { Store } from '../../core/store/store.js';
import type { Role, Scope } from '../../core/types.js';
import { DEFAULT_SCOPES, KEY_COLLECTIONS, KEY_FORMAT, KEY_PATTERN, type ApiKeyRecord, type ApiKeys } from './keys.js';

/**
 * API keys declared before start (the bootstrap file): create-or-update by a chosen id, from a
 * plaintext the pod receives in a Secret or from a digest computed offline. The digest is
 * HMAC-SHA256(SVC_API_KEY_LOOKUP_SECRET, key) — the same one `POST /auth/api-keys` stores — so two
 * data directories started with the same lookup secret and the same file accept the same key, and
 * a digest computed under another lookup secret matches nothing (401).
 */
export interface DeclaredKey {
  id: string;
  orgId: string;
  userId: string;
  role: Role;
  name: string;
  scopes?: Scope[];
  a2aSenders?: string[];
  /** exactly one of key / digest */
  key?: string;
  digest?: string;
  prefix?: 'svc_live_' | 'svc_test_';
}

export type ProvisionedKeyRecord = ApiKeyRecord & { a2a_senders?: string[]; provisioned?: true };

export type KeyOutcome = 'created' | 'updated' | 'unchanged' | 'replaced' | 'revoked_kept';

export async function provisionApiKey(store: Store, keys: ApiKeys, k: DeclaredKey): Promise<KeyOutcome> {
  let digest: string;
  let prefix: 'svc_live_' | 'svc_test_';
  if (k.key !== undefined) {
    if (!KEY_PATTERN.test(k.key)) throw new Error(`API key ${k.id}: the value is not a v7.2 key (svc_live_ or svc_test_ and 43 base64url characters; \`proofgate keys new\` makes one)`);
    digest = keys.digest(k.key);
    prefix = k.key.startsWith('svc_test_') ? 'svc_test_' : 'svc_live_';
  } else if (k.digest !== undefined) {
    digest = k.digest;
    prefix = k.prefix ?? 'svc_live_';
  } else throw new Error(`API key ${k.id}: neither key_env nor digest`);

  const records = store.collection<ProvisionedKeyRecord>(KEY_COLLECTIONS.byDigest);
  const ids = store.collection<string>(KEY_COLLECTIONS.ids);
  const byOrg = store.collection<string>(KEY_COLLECTIONS.byOrg);
  const oldDigest = await ids.get(k.id);
  const old = oldDigest ? await records.get(oldDigest) : undefined;
  if (old && old.org_id !== k.orgId) throw new Error(`API key ${k.id} belongs to another organisation`);
  const holder = await records.get(digest);
  if (holder && holder.id !== k.id) throw new Error(`API key ${k.id}: this key is already the key ${holder.id}`);

  const desired = {
    org_id: k.orgId,
    user_id: k.userId,
    role: k.role,
    name: k.name,
    scopes: [...new Set(k.scopes?.length ? k.scopes : DEFAULT_SCOPES)],
    prefix,
    digest,
    format: KEY_FORMAT,
    ...(k.a2aSenders ? { a2a_senders: [...new Set(k.a2aSenders)] } : {}),
  };

  if (holder) {
    // a revoked key stays revoked: a restart must not bring back a key an administrator revoked
    if (holder.revoked_at !== null) return 'revoked_kept';
    let changed = false;
    await records.update(digest, (cur) => {
      if (!cur || cur.revoked_at !== null) return undefined;
      const next: ProvisionedKeyRecord = { ...cur, ...desired, provisioned: true };
      if (!desired.a2a_senders) delete next.a2a_senders;
      changed = JSON.stringify(next) !== JSON.stringify(cur);
      return changed ? next : undefined;
    });
    return changed ? 'updated' : 'unchanged';
  }

  const rec: ProvisionedKeyRecord = { id: k.id, ...desired, created_at: new Date().toISOString(), revoked_at: null, provisioned: true };
  if (!(await records.insert(digest, rec))) throw new Error(`API key ${k.id}: digest collision`);
  await ids.put(k.id, digest);
  await byOrg.put(`${k.orgId}/${k.id}`, digest);
  // the Secret changed: the key of the same id with the old value stops working
  if (old && old.revoked_at === null) {
    await records.update(old.digest, (cur) => (cur && cur.revoked_at === null ? { ...cur, revoked_at: new Date().toISOString() } : undefined));
    return 'replaced';
  }
  return 'created';
}

/** Prune: revokes the active keys of `orgId` whose ids are not in `keep`. Returns the revoked ids. */
export async function revokeUndeclaredKeys(keys: ApiKeys, orgId: string, keep: ReadonlySet<string>): Promise<string[]> {
  const out: string[] = [];
  for (const k of await keys.listActive(orgId)) {
    if (keep.has(k.id)) continue;
    if (await keys.revoke(orgId, k.id)) out.push(k.id);
  }
  return out;
}
