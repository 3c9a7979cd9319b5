import { hmacSha256Hex, SHA256_REF, sha256Hex, sha256Ref } from '../../core/json/canonical.js';
import type { AuditEntry } from '../../schemas/gen/index.js';

/**
 * The audit entry and its two canonical payload forms. The payload commits to the entry's
 * position (org, seq, log_id) and to its predecessor (prev_hash), so the payload hash alone binds
 * content, order and chain; the HMAC over the payload hash proves the secret holder wrote it.
 *
 *  - current (v2): every field of AuditEntry except payload_hash and hmac, plus `v: 2`;
 *  - legacy (v1): the same without `v` and `raw_llm_output` — what the pre-7.2 logger hashed.
 *
 * hmac = HMAC-SHA256(SVC_AUDIT_SECRET_KEY, payload_hash) as hex.
 */
export type { AuditEntry };
/** the entry's shape is schemas/audit/entry.json's (generated: schemas/gen/audit.gen.ts), the one the API serves */
export type AuditStatus = AuditEntry['status'];
// the order is stored (compact.ts keeps a status as its index here): append, never reorder
const LISTED = ['verified', 'blocked', 'unverifiable', 'admin', 'refused'] as const satisfies readonly AuditStatus[];
export const AUDIT_STATUSES: readonly AuditStatus[] = LISTED;
// a status the schema adds is a compile error here until it is appended above
export const EVERY_STATUS_LISTED: [Exclude<AuditStatus, (typeof LISTED)[number]>] extends [never] ? true : never = true;

export type AuditFields = Omit<AuditEntry, 'log_id' | 'org_id' | 'seq' | 'timestamp' | 'prev_hash' | 'payload_hash' | 'hmac'>;

const SEQ_WIDTH = 12;

export function entryKey(orgId: string, seq: number): string {
  return `${orgId}/${String(seq).padStart(SEQ_WIDTH, '0')}`;
}

export function logIdOf(orgId: string, seq: number): string {
  return `lg_${String(seq).padStart(SEQ_WIDTH, '0')}_${orgId}`;
}

/** (org, seq) named by a log id, or null when it is not one of ours. */
export function parseLogId(logId: string): { orgId: string; seq: number } | null {
  const m = /^lg_(\d{12})_([A-Za-z0-9_-]{1,64})$/.exec(logId);
  return m ? { orgId: m[2], seq: Number(m[1]) } : null;
}

export class MalformedEntryError extends Error {}

const str = (v: unknown) => typeof v === 'string';
const strOrNull = (v: unknown) => v === null || typeof v === 'string';

/** Throws MalformedEntryError unless `v` has exactly the shape of a stored entry. */
export function assertEntry(v: unknown): asserts v is AuditEntry {
  const fail = (why: string): never => {
    throw new MalformedEntryError(`malformed audit entry: ${why}`);
  };
  if (!v || typeof v !== 'object' || Array.isArray(v)) fail('not an object');
  const e = v as Record<string, unknown>;
  if (!str(e.log_id) || !str(e.org_id) || !str(e.route) || !str(e.method) || !str(e.timestamp)) fail('identity fields');
  if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 0) fail('seq');
  if (Number.isNaN(Date.parse(e.timestamp as string))) fail('timestamp');
  for (const k of ['key_id', 'user_id', 'request_hash', 'engine', 'proof_ref', 'constraint_id', 'raw_llm_output']) if (!strOrNull(e[k])) fail(k);
  if (!AUDIT_STATUSES.includes(e.status as AuditStatus)) fail('status');
  if (!Number.isInteger(e.http_status)) fail('http_status');
  if (e.prev_hash !== null && !(str(e.prev_hash) && SHA256_REF.test(e.prev_hash as string))) fail('prev_hash');
  if (!str(e.payload_hash) || !SHA256_REF.test(e.payload_hash as string)) fail('payload_hash');
  if (!str(e.hmac) || !/^[0-9a-f]{64}$/.test(e.hmac as string)) fail('hmac');
}

export function currentPayload(e: AuditEntry): Record<string, unknown> {
  const { payload_hash: _h, hmac: _m, ...rest } = e;
  return { v: 2, ...rest };
}

export function legacyPayload(e: AuditEntry): Record<string, unknown> {
  const { payload_hash: _h, hmac: _m, raw_llm_output: _r, ...rest } = e;
  return rest;
}

export function entryHmac(secret: string, payloadHash: string): string {
  return hmacSha256Hex(secret, payloadHash);
}

const SORTED = ['constraint_id', 'engine', 'http_status', 'key_id', 'log_id', 'method', 'org_id', 'prev_hash', 'proof_ref', 'raw_llm_output', 'request_hash', 'route', 'seq', 'status', 'timestamp', 'user_id'] as const;

/**
 * RFC 8785 form of the current payload, written directly (the hot path seals every entry): the
 * keys in code-unit order, strings through JSON.stringify (what JCS prescribes), integers as is.
 * Only for values of the expected types; anything else goes through the generic canonicaliser.
 * The verifier always uses the generic one, so a difference could not go unnoticed.
 */
function fastPayloadJson(e: AuditEntry): string | null {
  let out = '{';
  for (const k of SORTED) {
    const v = e[k];
    let j: string;
    if (v === null) j = 'null';
    // a lone surrogate has no JCS form: the generic path refuses it, so must this one
    else if (typeof v === 'string' && (v as unknown as { isWellFormed(): boolean }).isWellFormed()) j = JSON.stringify(v);
    else if (typeof v === 'number' && Number.isSafeInteger(v)) j = String(v);
    else return null;
    out += `"${k}":${j},`;
  }
  return out + '"v":2}';
}

/** the hash of an entry's current (v2) payload: what its payload_hash is when it was sealed by this release */
export function payloadHashOf(e: AuditEntry): string {
  const fast = fastPayloadJson(e);
  return fast !== null ? 'sha256:' + sha256Hex(fast) : sha256Ref(currentPayload(e));
}

/**
 * Entries sealed by this process that the store's codec has not checked yet, with the field values
 * their payload hash was computed over. The codec asks whether payload_hash is still the hash of
 * the fields right after sealing; an entry whose fields are all unchanged is answered without
 * hashing its payload again. Each is checked once; entries sealed but never stored are dropped
 * when the map is full. (A Map, not a WeakMap: V8's ephemeron tables cost more than the hash.)
 */
const justSealed = new Map<AuditEntry, unknown[]>();
const JUST_SEALED_MAX = 4096;
const HASHED = [...SORTED, 'payload_hash'] as const;

/** whether `e.payload_hash` is the hash of `e`'s current (v2) payload */
export function hasCurrentPayloadHash(e: AuditEntry): boolean {
  const s = justSealed.get(e);
  if (s !== undefined) {
    justSealed.delete(e);
    let same = true;
    for (let i = 0; i < HASHED.length && same; i++) same = e[HASHED[i]] === s[i];
    if (same) return true;
  }
  return e.payload_hash === payloadHashOf(e);
}

/** Builds a sealed entry (payload hash and HMAC) at position `seq` after `prevHash`. */
export function sealEntry(secret: string, orgId: string, seq: number, prevHash: string | null, f: AuditFields, now = new Date()): AuditEntry {
  const e: AuditEntry = {
    log_id: logIdOf(orgId, seq),
    org_id: orgId,
    seq,
    timestamp: now.toISOString(),
    route: f.route,
    method: f.method,
    key_id: f.key_id,
    user_id: f.user_id,
    request_hash: f.request_hash,
    status: f.status,
    engine: f.engine,
    http_status: f.http_status,
    proof_ref: f.proof_ref,
    constraint_id: f.constraint_id,
    raw_llm_output: f.raw_llm_output,
    prev_hash: prevHash,
    payload_hash: '',
    hmac: '',
  };
  e.payload_hash = payloadHashOf(e);
  e.hmac = entryHmac(secret, e.payload_hash);
  const snapshot = new Array<unknown>(HASHED.length);
  for (let i = 0; i < HASHED.length; i++) snapshot[i] = e[HASHED[i]];
  if (justSealed.size >= JUST_SEALED_MAX) justSealed.clear();
  justSealed.set(e, snapshot);
  return e;
}
