import { createPublicKey, verify as cryptoVerify, type JsonWebKey } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Logger } from 'pino';
import { safeEqual, SHA256_REF } from '../../core/json/canonical.js';
import type { Store, WriteOp } from '../../core/store/store.js';
import type { AuditChain, Head } from './chain.js';
import { entryKey, type AuditEntry } from './payload.js';
import { AUDIT_COLLECTION } from './compact.js';
import type { Anchor, WalkResult } from './verify.js';

/**
 * Signed checkpoints of chain heads. The HMAC chain proves that entries were written by the
 * secret holder and in order, but not that the newest ones are still there: deleting the tail
 * leaves a shorter chain that verifies. A checkpoint signs (org, seq, head hash) with the
 * attestation key (ES256); `proofgate audit verify` reports a chain that ends before — or differs
 * at — its latest checkpoint as truncated. Written every `audit.checkpoint_interval_seconds`
 * (≤ 60) for every head that moved, at shutdown, and at a retention prune point (where it is
 * also the anchor the verifier starts from).
 *
 * The public JWK and kid are stored with each checkpoint so it verifies offline; a key stored
 * beside the data proves nothing against someone who can rewrite the data, so operators pin the
 * key's RFC 7638 thumbprint (`audit verify --pin`), which needs the persistent key policy.
 */
export const CHECKPOINT_COLLECTION = 'audit.checkpoints';
export const CHECKPOINT_TYP = 'svc-audit-checkpoint+jws';

/** `export`: signed for one GET /audit/export?format=jsonl, never stored and never an anchor */
export type CheckpointReason = 'periodic' | 'shutdown' | 'prune' | 'export';

export interface Checkpoint {
  org_id: string;
  seq: number;
  head_hash: string;
  created_at: string;
  reason: CheckpointReason;
  kid: string;
  public_jwk: Record<string, unknown>;
  /** compact JWS (ES256) whose payload is {org_id, seq, head_hash, created_at, reason} */
  jws: string;
}

/** What the attestation plugin's `attestation.signer` service offers (structurally). */
export interface CheckpointSigner {
  readonly kid: string;
  readonly publicJwk: Record<string, unknown>;
  sign(typ: string, payload: Record<string, unknown>): string;
}

export const checkpointKey = (orgId: string, seq: number) => `${orgId}/${String(seq).padStart(12, '0')}`;

export function makeCheckpoint(signer: CheckpointSigner, orgId: string, head: Head, reason: CheckpointReason, now: Date): Checkpoint {
  const statement = { org_id: orgId, seq: head.seq, head_hash: head.hash, created_at: now.toISOString(), reason };
  return { ...statement, kid: signer.kid, public_jwk: signer.publicJwk, jws: signer.sign(CHECKPOINT_TYP, statement) };
}

const decode = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/**
 * Checks one stored checkpoint on its own: shape, ES256 signature under its stored JWK, and that
 * the signed statement is the stored one. With `pins`, the key's thumbprint must be one of them.
 */
export async function checkCheckpoint(v: unknown, pins?: readonly string[]): Promise<{ ok: true; cp: Checkpoint } | { ok: false; reason: string }> {
  const c = v as Checkpoint;
  if (!c || typeof c !== 'object' || typeof c.jws !== 'string' || typeof c.org_id !== 'string' || !Number.isSafeInteger(c.seq) || c.seq < 0) {
    return { ok: false, reason: 'malformed checkpoint' };
  }
  if (typeof c.head_hash !== 'string' || !SHA256_REF.test(c.head_hash) || !c.public_jwk || typeof c.public_jwk !== 'object') return { ok: false, reason: 'malformed checkpoint' };
  const parts = c.jws.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed checkpoint signature' };
  try {
    const header = decode(parts[0]) as Record<string, unknown>;
    const payload = decode(parts[1]) as Record<string, unknown>;
    if (header.alg !== 'ES256' || header.typ !== CHECKPOINT_TYP || header.kid !== c.kid) return { ok: false, reason: 'checkpoint header does not match' };
    const key = createPublicKey({ key: c.public_jwk as JsonWebKey, format: 'jwk' });
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return { ok: false, reason: 'checkpoint key is not P-256' };
    const sig = Buffer.from(parts[2], 'base64url');
    if (!cryptoVerify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key, dsaEncoding: 'ieee-p1363' }, sig)) return { ok: false, reason: 'checkpoint signature is invalid' };
    if (payload.org_id !== c.org_id || payload.seq !== c.seq || payload.head_hash !== c.head_hash || payload.created_at !== c.created_at || payload.reason !== c.reason) {
      return { ok: false, reason: 'stored checkpoint differs from its signed statement' };
    }
    if (pins && pins.length) {
      const tp = await calculateJwkThumbprint(c.public_jwk as JWK, 'sha256');
      if (!pins.some((p) => safeEqual(p, tp))) return { ok: false, reason: `checkpoint key ${tp} is not pinned` };
    }
  } catch {
    return { ok: false, reason: 'checkpoint cannot be decoded' };
  }
  return { ok: true, cp: c };
}

/** Newest checkpoint of every organisation (or one), in org order. */
export async function latestCheckpoints(store: Store, orgId?: string): Promise<Map<string, unknown>> {
  const col = store.collection<unknown>(CHECKPOINT_COLLECTION);
  const out = new Map<string, unknown>();
  let start: string | undefined = orgId ? `${orgId}/` : undefined;
  for (;;) {
    // jump org by org: the newest key of an org is found by a reverse read bounded by the next org
    const first = await col.list({ prefix: orgId ? `${orgId}/` : undefined, start, limit: 1 });
    if (!first.length) return out;
    const org = first[0].key.slice(0, first[0].key.lastIndexOf('/'));
    const last = await col.list({ prefix: `${org}/`, reverse: true, limit: 1 });
    out.set(org, last[0].value);
    if (orgId) return out;
    start = `${org}/\uffff`;
  }
}

/**
 * Walk anchor: a valid `prune` checkpoint at exactly (org, seq) lets a pruned chain start after it.
 * Only `prune`: periodic and shutdown checkpoints sit at nearly every seq, so accepting them would
 * let anyone who deletes the oldest entries up to one of them pass for retention, pins or not.
 */
export function checkpointAnchor(store: Store, pins?: readonly string[]): Anchor {
  return async (org, seq) => {
    const v = await store.collection<unknown>(CHECKPOINT_COLLECTION).get(checkpointKey(org, seq));
    if (v === undefined) return null;
    const r = await checkCheckpoint(v, pins);
    return r.ok && r.cp.org_id === org && r.cp.seq === seq && r.cp.reason === 'prune' ? { hash: r.cp.head_hash } : null;
  };
}

export interface CheckpointProblem {
  org_id: string;
  seq: number;
  reason: string;
}

/**
 * After an intact walk: every organisation's newest checkpoint must be valid and its head must
 * still be in the chain with the same hash — otherwise entries after it were removed or rewritten.
 */
export async function checkAgainstCheckpoints(store: Store, walk: WalkResult, o: { orgId?: string; pins?: readonly string[] } = {}): Promise<CheckpointProblem[]> {
  const problems: CheckpointProblem[] = [];
  for (const [org, v] of await latestCheckpoints(store, o.orgId)) {
    const r = await checkCheckpoint(v, o.pins);
    if (!r.ok) {
      problems.push({ org_id: org, seq: -1, reason: r.reason });
      continue;
    }
    const cp = r.cp;
    if (cp.org_id !== org) {
      problems.push({ org_id: org, seq: cp.seq, reason: 'checkpoint is stored under another organisation' });
      continue;
    }
    const h = walk.heads.get(org);
    if (!h || h.seq < cp.seq) {
      problems.push({ org_id: org, seq: cp.seq, reason: `truncated after the checkpoint: the chain ends at seq ${h && h.seq >= 0 ? h.seq : 'none'} but its head was checkpointed at seq ${cp.seq} (${cp.created_at})` });
      continue;
    }
    // a prune checkpoint is the anchor the walk started after: the walk already linked to it
    if (cp.seq < h.first) {
      if (cp.seq !== h.first - 1) problems.push({ org_id: org, seq: cp.seq, reason: 'the newest checkpoint lies before the start of the stored chain' });
      continue;
    }
    const at = h.seq === cp.seq ? h.hash : ((await store.collection<AuditEntry>(AUDIT_COLLECTION).get(entryKey(org, cp.seq)))?.payload_hash ?? '');
    if (!safeEqual(at, cp.head_hash)) problems.push({ org_id: org, seq: cp.seq, reason: `the entry at the checkpoint (seq ${cp.seq}) is not the one checkpointed: the chain was rewritten` });
  }
  return problems;
}

/**
 * Writes checkpoints for the heads this process knows that moved since their last checkpoint,
 * all in one commit. `tick()` is what the timer calls; tests call it with their own clock.
 */
export class Checkpointer {
  private readonly done = new Map<string, string>();
  private cancel: (() => void) | null = null;

  constructor(
    private readonly store: Store,
    private readonly chain: AuditChain,
    private readonly signer: CheckpointSigner | null,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
    /** the timer (tests inject one they drive themselves) */
    private readonly schedule: (fn: () => void, ms: number) => () => void = (fn, ms) => {
      const t = setInterval(fn, ms);
      t.unref();
      return () => clearInterval(t);
    },
  ) {}

  async checkpoint(reason: CheckpointReason): Promise<number> {
    if (!this.signer) return 0;
    const now = this.now();
    const ops: WriteOp[] = [];
    const wrote: Array<[string, string]> = [];
    for (const [org, head] of this.chain.knownHeads()) {
      const id = `${head.seq}:${head.hash}`;
      if (this.done.get(org) === id) continue;
      ops.push({ collection: CHECKPOINT_COLLECTION, key: checkpointKey(org, head.seq), value: makeCheckpoint(this.signer, org, head, reason, now) });
      wrote.push([org, id]);
    }
    if (!ops.length) return 0;
    await this.store.commit(ops);
    for (const [org, id] of wrote) this.done.set(org, id);
    return ops.length;
  }

  /** one timer tick: never throws (a failed checkpoint is logged and retried next tick) */
  async tick(): Promise<void> {
    try {
      await this.checkpoint('periodic');
    } catch (err) {
      this.log.error({ err }, 'audit checkpoint failed');
    }
  }

  start(intervalSeconds: number): void {
    if (!this.signer) {
      this.log.warn('no attestation signing key: audit chain heads are not checkpointed (truncation cannot be detected)');
      return;
    }
    this.cancel = this.schedule(() => void this.tick(), intervalSeconds * 1000);
  }

  async stop(): Promise<void> {
    this.cancel?.();
    this.cancel = null;
    await this.checkpoint('shutdown');
  }
}
