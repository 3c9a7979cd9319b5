import { randomBytes } from 'node:crypto';
import { hmacSha256Hex, safeEqual } from '../../core/json/canonical.js';
import type { Collection, Store } from '../../core/store/store.js';
import type { Role, Scope } from '../../core/types.js';
import { newId } from './accounts.js';

/**
 * API keys (decisions §5). The plaintext exists only in the creation response; the store holds the
 * HMAC-SHA256(SVC_API_KEY_LOOKUP_SECRET, key) digest as the record's key, so checking a presented
 * key is one HMAC and one get. Two immutable indexes (key id → digest, org/key id → digest) serve
 * listing and revocation; the one mutable record is the digest-keyed one, so revocation is a single
 * atomic update that every replica sees on its next get — there is no cache to invalidate.
 */
export const KEY_FORMAT = 'v7.2';
export const KEY_PATTERN = /^svc_(live|test)_[A-Za-z0-9_-]{43}$/;
export const DEFAULT_SCOPES: Scope[] = ['verify:read', 'attestation:read'];
export const PRIVILEGED_SCOPES: Scope[] = ['agent:write', 'admin:all'];

export interface ApiKeyRecord {
  id: string;
  org_id: string;
  /** creator; the key acts for this user (metrics operator check, role) */
  user_id: string;
  role: Role;
  name: string;
  scopes: Scope[];
  prefix: 'svc_live_' | 'svc_test_';
  digest: string;
  created_at: string;
  revoked_at: string | null;
  /** records written before v7.2 lack it and are refused (spec: re-issue) */
  format?: string;
  rotated_from?: string;
  /** A2A sender ids this key may speak as on /a2a/intercept (issue 12: authenticated, not claimed) */
  a2a_senders?: string[];
}

export interface PublicKey {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  created_by: string;
  a2a_senders?: string[];
}

/**
 * The scopes a key keeps when its creator holds `role` (null: deleted), or null when it keeps none
 * and is to be revoked. decisions §5: a key acts for its creator and the privileged scopes belong
 * to owners and admins only, so a demotion to member takes them away (and a key's A2A sender
 * binding, followedRecord); a promotion restores
 * nothing, since the key holds what was asked for when it was created.
 */
export function scopesUnder(scopes: readonly Scope[], role: Role | null): Scope[] | null {
  if (role === null) return null;
  const kept = role === 'member' ? scopes.filter((s) => !PRIVILEGED_SCOPES.includes(s)) : [...scopes];
  return kept.length ? kept : null;
}

/** What an active `rec` becomes when its creator now holds `role` (null: deleted); undefined when it stays as it is. */
export function followedRecord(rec: ApiKeyRecord, role: Role | null, now: string): ApiKeyRecord | undefined {
  if (rec.revoked_at !== null) return undefined;
  const scopes = scopesUnder(rec.scopes, role);
  if (scopes === null) return { ...rec, ...(role ? { role } : {}), revoked_at: now };
  // a binding to A2A sender ids lets a key speak as them, which only owners and admins may grant
  // (routes.ts): a member's key speaks for nobody
  const unbind = role === 'member' && !!rec.a2a_senders?.length;
  if (rec.role === role && scopes.length === rec.scopes.length && !unbind) return undefined;
  const next: ApiKeyRecord = { ...rec, role: role!, scopes };
  if (unbind) delete next.a2a_senders;
  return next;
}

export interface Followed {
  before: ApiKeyRecord;
  after: ApiKeyRecord;
}

export const KEY_COLLECTIONS = { byDigest: 'auth.keys', ids: 'auth.key_ids', byOrg: 'auth.org_keys' } as const;

export class ApiKeys {
  constructor(
    private readonly store: Store,
    private readonly lookupSecret: string,
  ) {}

  private recordsCollection: Collection<ApiKeyRecord> | undefined;
  /** looked up once: the store checks the name and finds the collection on every call otherwise */
  private get records(): Collection<ApiKeyRecord> {
    return (this.recordsCollection ??= this.store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest));
  }

  digest(key: string): string {
    return hmacSha256Hex(this.lookupSecret, key);
  }

  async create(o: { orgId: string; userId: string; role: Role; name: string; scopes: Scope[]; test?: boolean; rotatedFrom?: string; a2aSenders?: readonly string[] }) {
    const prefix = o.test ? 'svc_test_' : 'svc_live_';
    const key = prefix + randomBytes(32).toString('base64url');
    const rec: ApiKeyRecord = {
      id: newId('key'),
      org_id: o.orgId,
      user_id: o.userId,
      role: o.role,
      name: o.name,
      scopes: [...new Set(o.scopes)],
      prefix,
      digest: this.digest(key),
      created_at: new Date().toISOString(),
      revoked_at: null,
      format: KEY_FORMAT,
      ...(o.rotatedFrom ? { rotated_from: o.rotatedFrom } : {}),
      ...(o.a2aSenders?.length ? { a2a_senders: [...new Set(o.a2aSenders)] } : {}),
    };
    if (!(await this.records.insert(rec.digest, rec))) throw new Error('API key digest collision');
    await Promise.all([
      this.store.collection<string>(KEY_COLLECTIONS.ids).put(rec.id, rec.digest),
      this.store.collection<string>(KEY_COLLECTIONS.byOrg).put(`${rec.org_id}/${rec.id}`, rec.digest),
    ]);
    return { record: rec, key };
  }

  /**
   * The successor of `old` for a rotation: a copy of the whole record — whatever fields it has, so
   * a field added to keys later (bindings, limits) survives rotation without this code knowing it —
   * with a new id, key, digest and creation time, active, and `rotated_from` naming `old`.
   */
  async successor(old: ApiKeyRecord) {
    const prefix = old.prefix === 'svc_test_' ? 'svc_test_' : 'svc_live_';
    const key = prefix + randomBytes(32).toString('base64url');
    const rec: ApiKeyRecord = {
      ...structuredClone(old),
      id: newId('key'),
      prefix,
      digest: this.digest(key),
      created_at: new Date().toISOString(),
      revoked_at: null,
      format: KEY_FORMAT,
      rotated_from: old.id,
    };
    if (!(await this.records.insert(rec.digest, rec))) throw new Error('API key digest collision');
    await Promise.all([
      this.store.collection<string>(KEY_COLLECTIONS.ids).put(rec.id, rec.digest),
      this.store.collection<string>(KEY_COLLECTIONS.byOrg).put(`${rec.org_id}/${rec.id}`, rec.digest),
    ]);
    return { record: rec, key };
  }

  /** The hot path: one HMAC, one get, a constant-time compare of the stored digest. */
  async lookup(key: string): Promise<ApiKeyRecord | undefined> {
    const d = this.digest(key);
    const rec = await this.records.get(d);
    if (!rec || typeof rec.digest !== 'string' || !safeEqual(rec.digest, d)) return undefined;
    return rec;
  }

  /** A key of `orgId` by id, active or revoked; another organisation's key is undefined (→ 404). */
  async byId(orgId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const digest = await this.store.collection<string>(KEY_COLLECTIONS.ids).get(id);
    if (!digest) return undefined;
    const rec = await this.records.get(digest);
    return rec && rec.org_id === orgId ? rec : undefined;
  }

  async listActive(orgId: string): Promise<ApiKeyRecord[]> {
    const idx = await this.store.collection<string>(KEY_COLLECTIONS.byOrg).list({ prefix: `${orgId}/` });
    const recs = await Promise.all(idx.map((e) => this.records.get(e.value)));
    return recs.filter((r): r is ApiKeyRecord => !!r && r.revoked_at === null && r.format === KEY_FORMAT);
  }

  async countActive(orgId: string): Promise<number> {
    return (await this.listActive(orgId)).length;
  }

  /**
   * Brings one key in line with its creator's `role` (null: deleted) — one atomic update of the
   * record as it is now, so a concurrent revocation or rotation is never undone. Undefined when
   * nothing changed.
   */
  async follow(rec: ApiKeyRecord, role: Role | null): Promise<Followed | undefined> {
    let out: Followed | undefined;
    await this.records.update(rec.digest, (cur) => {
      const next = cur && cur.id === rec.id ? followedRecord(cur, role, new Date().toISOString()) : undefined;
      out = next ? { before: cur!, after: next } : undefined;
      return next;
    });
    return out;
  }

  /**
   * Every active key `userId` created in `orgId`, brought in line with the user's new `role` (null:
   * deleted), but those named in `except`. Called after the user record is written: a key written before that is listed here, one
   * written after it is settled by its writer re-reading the user (routes.ts, rotate.ts).
   */
  async followCreator(orgId: string, userId: string, role: Role | null, except?: ReadonlySet<string>): Promise<Followed[]> {
    const out: Followed[] = [];
    for (const k of await this.listActive(orgId)) {
      if (k.user_id !== userId || except?.has(k.id)) continue;
      const f = await this.follow(k, role);
      if (f) out.push(f);
    }
    return out;
  }

  /** Soft delete. Returns the revoked record, or undefined when it is not an active key of `orgId`. */
  async revoke(orgId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const rec = await this.byId(orgId, id);
    if (!rec || rec.revoked_at !== null) return undefined;
    let revoked: ApiKeyRecord | undefined;
    await this.records.update(rec.digest, (cur) => {
      if (!cur || cur.revoked_at !== null) return undefined;
      revoked = { ...cur, revoked_at: new Date().toISOString() };
      return revoked;
    });
    return revoked;
  }
}

export function publicKey(r: ApiKeyRecord): PublicKey {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    scopes: r.scopes,
    created_at: r.created_at,
    created_by: r.user_id,
    ...(r.a2a_senders?.length ? { a2a_senders: r.a2a_senders } : {}),
  };
}
