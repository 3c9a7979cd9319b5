import t, { type Test } from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import { join } from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { Metrics } from '../../core/obs/metrics.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import { PgStore } from '../../core/store/pg.js';
import type { Store } from '../../core/store/store.js';
import { AuditChain, AUDIT_COLLECTION, checkpointAnchor, walkChains, type AuditEntry, type AuditFields } from '../../plugins/audit/index.js';
import { CHECKPOINT_COLLECTION, checkpointKey, makeCheckpoint, type CheckpointSigner } from '../../plugins/audit/checkpoint.js';
import { entryKey, sealEntry } from '../../plugins/audit/payload.js';
import { pruneAudit } from '../../plugins/audit/retention.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { createTestDatabase, freshSchema, pgUnavailable } from '../helpers/pg.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './fixtures/cli.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

/**
 * The retention gate (prune-gate.ts) on both backends: a chain whose expired prefix does not verify
 * — a gap, a bad HMAC, a broken link to the first kept entry, a start deleted without a prune
 * checkpoint — keeps every entry, is logged once with the reason and counted; the other chains of
 * the same sweep are pruned as usual.
 */
const SECRET = TEST_SECRETS.audit_secret_key;
const OLD = new Date('2026-01-01T00:00:00Z');
const NOW = new Date('2026-01-20T00:00:00Z');
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'blocked',
  engine: 'math', http_status: 403, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

async function testSigner(): Promise<CheckpointSigner> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = 'did:svc:node:test#gate';
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return {
    kid,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
    sign(typ, payload) {
      const input = `${b64({ alg: 'ES256', typ, kid })}.${b64(payload)}`;
      return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    },
  };
}

/** org_bad and org_good: 8 old entries each (seq 0..7) and 2 recent ones (seq 8, 9) */
async function seed(store: Store) {
  let clock = OLD;
  const chain = new AuditChain(store, SECRET, 20, 512, () => clock);
  for (const org of ['org_bad', 'org_good']) for (let i = 0; i < 8; i++) await chain.append(org, fields(i));
  clock = NOW;
  for (const org of ['org_bad', 'org_good']) for (let i = 8; i < 10; i++) await chain.append(org, fields(i));
  return chain;
}

function capture() {
  const errors: Array<Record<string, unknown>> = [];
  const log = { error: (o: Record<string, unknown>) => void errors.push(o), info: () => undefined, warn: () => undefined } as unknown as Logger;
  return { log, errors };
}

const seqs = async (store: Store, org: string) => (await store.collection<AuditEntry>(AUDIT_COLLECTION).list({ prefix: `${org}/` })).map((e) => e.value.seq);

const CASES: Array<{ name: string; reason: string; seq: number; tamper: (store: Store) => Promise<void> }> = [
  {
    name: 'a gap (an old entry deleted)',
    reason: 'sequence_gap',
    seq: 3,
    tamper: (s) => s.collection(AUDIT_COLLECTION).delete(entryKey('org_bad', 3)).then(() => undefined),
  },
  {
    name: 'a bad HMAC',
    reason: 'hmac_mismatch',
    seq: 5,
    tamper: (s) => s.collection<AuditEntry>(AUDIT_COLLECTION).update(entryKey('org_bad', 5), (e) => ({ ...e!, hmac: 'f'.repeat(64) })).then(() => undefined),
  },
  {
    name: 'a broken link to the first kept entry',
    reason: 'chain_link_broken',
    seq: 8,
    // the first entry that would stay is resealed (valid hash and HMAC) after another predecessor
    tamper: (s) => s.collection<AuditEntry>(AUDIT_COLLECTION).put(entryKey('org_bad', 8), sealEntry(SECRET, 'org_bad', 8, `sha256:${'0'.repeat(64)}`, fields(8), NOW)),
  },
  {
    name: 'the start of the chain deleted behind a prune checkpoint signed with a key of its own',
    reason: 'no_prune_anchor',
    seq: 3,
    tamper: async (s) => {
      const col = s.collection<AuditEntry>(AUDIT_COLLECTION);
      const at3 = (await col.get(entryKey('org_bad', 3)))!;
      for (let seq = 0; seq <= 3; seq++) await col.delete(entryKey('org_bad', seq));
      // a valid signature over the right hash: only the key gives it away
      const forged = makeCheckpoint(await testSigner(), 'org_bad', { seq: 3, hash: at3.payload_hash }, 'prune', OLD);
      await s.collection(CHECKPOINT_COLLECTION).put(checkpointKey('org_bad', 3), forged);
    },
  },
  {
    name: 'the start of the chain deleted without a prune checkpoint',
    reason: 'no_prune_anchor',
    seq: 1,
    tamper: async (s) => {
      await s.collection(AUDIT_COLLECTION).delete(entryKey('org_bad', 0));
      await s.collection(AUDIT_COLLECTION).delete(entryKey('org_bad', 1));
    },
  },
];

function suite(backend: string, open: (t: Test) => Promise<Store>) {
  for (const c of CASES) {
    t.test(`${backend}: ${c.name} keeps the whole chain, logged once and counted; the other chain is pruned`, async (t) => {
      const store = await open(t);
      await seed(store);
      await c.tamper(store);
      const before = await seqs(store, 'org_bad');
      const metrics = new Metrics();
      const refused = metrics.counter('svc_audit_prune_refused_total', 'test', ['reason']);
      const { log, errors } = capture();
      const exportDir = join(tempDir(t, 'pg-gate-'), 'export');
      const signer = await testSigner();
      const anchorPins = [await calculateJwkThumbprint(signer.publicJwk as JWK, 'sha256')];
      const pruned = await pruneAudit({ store, chain: null as unknown as AuditChain, signer, secret: SECRET, log, retentionDays: 7, exportDir, refused, anchorPins, now: () => NOW, batch: 3 });
      t.equal(pruned, 8, 'org_good lost its 8 old entries');
      t.same(await seqs(store, 'org_bad'), before, 'org_bad lost nothing');
      t.same(await seqs(store, 'org_good'), [8, 9]);
      const signed = await store.collection<{ kid: string; public_jwk: unknown }>(CHECKPOINT_COLLECTION).list({ prefix: 'org_bad/' });
      t.notOk(signed.some((c) => JSON.stringify(c.value.public_jwk) === JSON.stringify(signer.publicJwk)), 'no prune checkpoint was signed for org_bad');
      t.notOk(existsSync(exportDir) && readdirSync(exportDir).some((f) => f.includes('org_bad')), 'nothing of org_bad was exported');
      t.equal(errors.length, 1, 'one error line for the refused chain');
      t.match(errors[0], { org: 'org_bad', reason: c.reason, seq: c.seq });
      t.match((await metrics.text()).body, new RegExp(`svc_audit_prune_refused_total\\{reason="${c.reason}"\\} 1\\b`));
      // what `audit verify --pin <the server's key>` walks
      const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET, { orgId: 'org_bad', anchor: checkpointAnchor(store, anchorPins) });
      t.not(walk.broken, null, 'audit verify --pin still reports org_bad');
    });
  }

  t.test(`${backend}: a valid chain is pruned in batches, each checkpoint anchoring the next, and still verifies`, async (t) => {
    const store = await open(t);
    await seed(store);
    const { log, errors } = capture();
    const exportDir = join(tempDir(t, 'pg-gate-'), 'export');
    // two sweeps: the second starts from the first's prune checkpoint
    // the same (persistent) key both times, pinned: the second sweep continues from the first's anchors
    const signer = await testSigner();
    const anchorPins = [await calculateJwkThumbprint(signer.publicJwk as JWK, 'sha256')];
    const first = await pruneAudit({ store, chain: null as unknown as AuditChain, signer, secret: SECRET, log, retentionDays: 7, exportDir, anchorPins, now: () => NOW, batch: 3 });
    t.equal(first, 16);
    await seed2(store);
    const second = await pruneAudit({ store, chain: null as unknown as AuditChain, signer, secret: SECRET, log, retentionDays: 7, exportDir, anchorPins, now: () => new Date(NOW.getTime() + 30 * 86_400_000), batch: 3 });
    t.equal(second, 4, 'the two kept entries of each chain go, the new head stays');
    t.same(errors, []);
    const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET, { anchor: checkpointAnchor(store) });
    t.equal(walk.broken, null);
    t.equal(walk.entries, 2);
    // the last export of org_good continues from an anchor written by the first sweep; it verifies alone
    const last = readdirSync(exportDir).filter((f) => f.startsWith('audit-org_good-')).sort().pop()!;
    t.equal(last, 'audit-org_good-000000000008-000000000009.jsonl');
    const r = await runCli(['audit', 'verify', '--export', join(exportDir, last), '--pin', anchorPins[0]]);
    t.equal(r.code, 0, r.stdout + r.stderr);
    t.match(r.stdout, /^OK: 2 entries of org=org_good \(seq 8\.\.9\) verified: hash chain from the anchor checkpoint/);
  });
}

/** one more (recent) entry per chain, appended after a prune by a fresh writer */
async function seed2(store: Store) {
  const chain = new AuditChain(store, SECRET, 20, 512, () => new Date(NOW.getTime() + 30 * 86_400_000));
  for (const org of ['org_bad', 'org_good']) await chain.append(org, fields(10));
}

suite('lmdb', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-gate-lmdb-'), { codecs: AUDIT_CODECS });
  t.teardown(() => store.close());
  return store;
});

const why = await pgUnavailable();
if (why) {
  t.comment(`PostgreSQL cases not run: ${why}`);
} else {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  suite('pg', async (t) => {
    const store = new PgStore({ url: db.url, schema: freshSchema(), codecs: AUDIT_CODECS });
    t.teardown(() => store.close());
    return store;
  });
}

t.test('an entry rewritten between the whole-prefix check and the batch read is refused too', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-gate-race-'), { codecs: AUDIT_CODECS });
  t.teardown(() => store.close());
  await seed(store);
  // the store as retention sees it: the second read of org_bad's chain finds entry 1 rewritten
  let reads = 0;
  const racing = new Proxy(store, {
    get(target, prop) {
      if (prop !== 'collection') return Reflect.get(target, prop, target);
      return (name: string) => {
        const col = target.collection(name);
        if (name !== AUDIT_COLLECTION) return col;
        return new Proxy(col, {
          get(c, p) {
            if (p !== 'list') return Reflect.get(c, p, c);
            return async (o: { prefix?: string }) => {
              if (o?.prefix === 'org_bad/' && ++reads === 2) await c.update(entryKey('org_bad', 1), (e) => ({ ...(e as AuditEntry), status: 'verified' }));
              return c.list(o);
            };
          },
        });
      };
    },
  }) as Store;
  const metrics = new Metrics();
  const refused = metrics.counter('svc_audit_prune_refused_total', 'test', ['reason']);
  const { log, errors } = capture();
  const pruned = await pruneAudit({ store: racing, chain: null as unknown as AuditChain, signer: await testSigner(), secret: SECRET, log, retentionDays: 7, exportDir: join(tempDir(t, 'pg-gate-'), 'x'), refused, now: () => NOW, batch: 100 });
  t.equal(reads, 2, 'the prefix was read twice: checked whole, then read for export');
  t.equal(pruned, 8, 'only org_good');
  t.same(await seqs(store, 'org_bad'), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  t.match(errors, [{ org: 'org_bad', reason: 'payload_hash_mismatch', seq: 1 }]);
});
