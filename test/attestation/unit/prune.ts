import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { LmdbStore } from '../../../core/store/lmdb.js';
import { createIssuer, uuidv7 } from '../../../plugins/attestation/issue.js';
import { loadSigningKey } from '../../../plugins/attestation/keys.js';
import { RecordPruner } from '../../../plugins/attestation/prune.js';
import type { AttestationRecord } from '../../../plugins/attestation/types.js';
import { createVerifier } from '../../../plugins/attestation/verify.js';
import { attestationConfig, proven } from '../../helpers/attestation/fixtures.js';
import { ATTESTATION_CODECS } from '../../../plugins/attestation/compact.js';

const log = pino({ level: 'silent' });

t.test('record ids sort by issue time', async (t) => {
  const a = uuidv7(1_700_000_000_000);
  const b = uuidv7(1_700_000_000_001);
  t.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.ok(a < b);
  const sameMs = Array.from({ length: 300 }, () => uuidv7(1_700_000_000_500));
  t.same([...sameMs].sort(), sameMs, 'ids of one millisecond sort in issue order');
  t.equal(new Set(sameMs).size, sameMs.length);
});

t.test('expired records are pruned after the grace period; live ones stay revocable', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-prune-'));
  const store = new LmdbStore(dir, { codecs: ATTESTATION_CODECS });
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const cfg = attestationConfig({ lifetime_seconds: 3600 });
  const key = await loadSigningKey(cfg, store, log);
  const records = store.collection<AttestationRecord>('attestations');
  const clock = { t: 1_800_000_000 };
  const now = () => clock.t;
  const issue = createIssuer({ key, lifetimeSeconds: 3600, records, log, now });
  const verify = createVerifier({ keys: new Map([[key.kid, key.publicKey]]), trustedIssuers: cfg.trusted_issuers, records, now });
  const old = [];
  for (let i = 0; i < 30; i++) old.push(await issue(proven(`${i}+0=${i}`), { engine: 'math', query: i, org_id: 'org_a' }));
  clock.t += 1800;
  const fresh = await issue(proven('1+1=2'), { engine: 'math', query: 'x', org_id: 'org_a' });
  const pruner = new RecordPruner(store, 'attestations', 600, now, 7);

  clock.t += 1800 + 300; // the first 30 expired 300 s ago: inside the grace period
  t.equal(await pruner.step(), 0, 'nothing is pruned within the grace period');
  t.equal((await verify(old[0].token)).ok, false);
  t.match(await verify(old[0].token), { reason: 'expired' });

  clock.t += 400; // now 700 s past their expiry, fresh still valid
  t.equal(await pruner.step(), 30, 'expired records pruned, page by page');
  t.equal(await records.count(), 1);
  t.equal(await records.get(old[0].attestation_id!), undefined);
  t.match(await verify(old[0].token), { ok: false, reason: 'expired' }, 'a pruned token is still refused as expired');
  const live = await records.get(fresh.attestation_id!);
  t.ok(live, 'the unexpired record stays, so its revocation is answerable');
  t.match(await verify(fresh.token), { ok: true });

  // a record of an older release (random id) sorts after a record issued now: only the full sweep finds it
  await issue(proven('2+2=4'), { engine: 'math', query: 'y', org_id: 'org_a' });
  await records.put('att_ffffffff-0000-4000-8000-000000000000', { ...live!, id: 'att_ffffffff-0000-4000-8000-000000000000', exp: clock.t - 10_000 });
  t.equal(await pruner.step(), 0, 'step stops at the first record issued after the cut-off');
  t.equal(await pruner.sweep(), 1);
  t.equal(await records.count(), 2);
});

t.test('records are stored compactly and read back unchanged', async (t) => {
  const { attestationCodec } = await import('../../../plugins/attestation/compact.js');
  const rec: AttestationRecord = {
    id: 'att_x', org_id: 'org_a', iss: 'did:svc:node:staging', kid: 'did:svc:node:staging#key-1', sub: 'sha256:' + '01'.repeat(32), iat: 1, exp: 2,
    result: { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 }, query_hash: 'sha256:' + '02'.repeat(32), proof_hash: 'sha256:' + '03'.repeat(32),
    revoked_at: null, revoked_by: null,
  };
  const stored = attestationCodec.encode(rec, 'att_x');
  t.ok(Array.isArray(stored));
  t.same(attestationCodec.decode(stored, 'att_x'), rec);
  t.same(attestationCodec.encode(rec, 'att_other'), rec, 'a record under another key is kept as it is');
  t.equal((stored as unknown[])[0], 1, 'a sub that is not the hash of the pair is stored as it is (layout 1)');

  // what the issuer writes: sub is the hash of the pair, kid a fragment of iss; none of it is stored
  const { subjectOf } = await import('../../../plugins/attestation/issue.js');
  const issued: AttestationRecord = { ...rec, sub: subjectOf(rec.query_hash, rec.proof_hash), iat: 1_800_000_000, exp: 1_800_003_600 };
  const lean = attestationCodec.encode(issued, 'att_x') as unknown[];
  t.equal(lean[0], 2);
  t.notOk(lean.some((v) => v === issued.kid || v === issued.exp || (v instanceof Uint8Array && Buffer.from(v).equals(Buffer.from(issued.sub.slice(7), 'hex')))));
  t.same(attestationCodec.decode(lean, 'att_x'), issued);
  t.same(attestationCodec.decode(attestationCodec.encode({ ...issued, revoked_at: 5, revoked_by: 'usr_1' }, 'att_x'), 'att_x'), { ...issued, revoked_at: 5, revoked_by: 'usr_1' });
  for (const odd of [{ ...issued, kid: '#k' }, { ...issued, kid: 'other#k' }, { ...issued, result: { ...issued.result, status: 'BLOCKED' as const } }]) {
    t.same(attestationCodec.decode(attestationCodec.encode(odd, 'att_x'), 'att_x'), odd, `round trip of kid ${odd.kid}, status ${odd.result.status}`);
  }
  // a record the previous release wrote (layout 1) reads back unchanged
  const ref = (s: string) => Buffer.from(s.slice(7), 'hex');
  const previous = [1, issued.org_id, issued.iss, issued.kid, ref(issued.sub), issued.iat, issued.exp, 'VERIFIED', true, 'math', 1, ref(issued.query_hash), ref(issued.proof_hash), null, null];
  t.same(attestationCodec.decode(previous, 'att_x'), issued);
});

t.test('a record whose sub or hashes changed after issuance is stored with every field', async (t) => {
  const { attestationCodec } = await import('../../../plugins/attestation/compact.js');
  const dir = mkdtempSync(join(tmpdir(), 'pg-subject-'));
  const store = new LmdbStore(dir, { codecs: ATTESTATION_CODECS });
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const key = await loadSigningKey(attestationConfig({}), store, log);
  const issue = createIssuer({ key, lifetimeSeconds: 3600, records: store.collection<AttestationRecord>('attestations'), log });
  const fresh = async () => (await issue(proven('2+2=4'), { engine: 'math', query: 'q', org_id: 'org_a', deferWrite: true })).record!;
  const r = await fresh();
  const stored = attestationCodec.encode(r, r.id) as unknown[];
  t.equal(stored[0], 3, 'as issued: the lean layout with the key thumbprint');
  t.equal(r.jkt, key.thumbprint, 'the record names the key material that signed it');
  t.same(attestationCodec.decode(stored, r.id), r);
  const { jkt: _jkt, ...older } = r;
  t.equal((attestationCodec.encode(older, r.id) as unknown[])[0], 2, 'a record of an earlier release (no thumbprint): layout 2');
  t.same(attestationCodec.decode(attestationCodec.encode(older, r.id), r.id), older);
  t.same(attestationCodec.encode({ ...r, jkt: 'not a thumbprint' }, r.id), { ...r, jkt: 'not a thumbprint' }, 'a thumbprint that is not 32 bytes is kept as it is');
  for (const edit of [(x: AttestationRecord) => (x.sub = 'sha256:' + '01'.repeat(32)), (x: AttestationRecord) => (x.query_hash = 'sha256:' + '02'.repeat(32))]) {
    const x = await fresh();
    edit(x);
    const stored = attestationCodec.encode(x, x.id) as unknown[];
    t.equal(stored[0], 1, 'a sub that is no longer the hash of the pair is stored as it is');
    t.equal(stored.length, 16, 'with its thumbprint');
    t.same(attestationCodec.decode(stored, x.id), x);
  }
});
