import t from 'tap';
import { open } from 'lmdb';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain, type AuditEntry } from '../../plugins/audit/index.js';
import { entryKey } from '../../plugins/audit/payload.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { auditCodec } from '../../plugins/audit/compact.js';
import { walkChains } from '../../plugins/audit/verify.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

const SECRET = TEST_SECRETS.audit_secret_key;

t.test('entries are stored in the compact layout and read back unchanged', async (t) => {
  const dir = tempDir(t, 'pg-compact-');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  const chain = new AuditChain(store, SECRET);
  const entries: AuditEntry[] = [];
  for (let i = 0; i < 3; i++) {
    entries.push(
      await chain.append('org_a', {
        route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: 'sha256:' + 'ab'.repeat(32), status: 'verified',
        engine: 'math', http_status: 200, proof_ref: 'sha256:' + 'cd'.repeat(32), constraint_id: null, raw_llm_output: null,
      }),
    );
  }
  t.same(await store.collection(AUDIT_COLLECTION).get(entryKey('org_a', 2)), entries[2], 'read back as the entry that was sealed');
  t.equal((await walkChains(store.collection(AUDIT_COLLECTION), SECRET)).broken, null);
  await store.close();

  // what is on disk: an array with raw hashes, much smaller than the object stored as it is
  const root = open({ path: dir, maxDbs: 64, compression: false });
  const raw = root.openDB({ name: AUDIT_COLLECTION, keyEncoding: 'ordered-binary' });
  const plain = root.openDB({ name: 'plain', keyEncoding: 'ordered-binary' });
  await plain.put('k', entries[2]);
  t.ok(Array.isArray(raw.get(entryKey('org_a', 2))));
  const compact = raw.getBinary(entryKey('org_a', 2))!.length;
  const full = plain.getBinary('k')!.length;
  t.ok(compact * 2 < full, `${compact} vs ${full} bytes`);
  await root.close();
});

t.test('values that do not round-trip exactly are stored as they are', async (t) => {
  const e = auditCodec.decode(
    auditCodec.encode({ log_id: 'lg_000000000000_org_a', org_id: 'org_a', seq: 0 } as AuditEntry, 'org_a/000000000000'),
    'org_a/000000000000',
  );
  t.same(e, { log_id: 'lg_000000000000_org_a', org_id: 'org_a', seq: 0 }, 'a malformed entry is kept for the verifier to report');
  const good = {
    log_id: 'lg_000000000001_org_a', org_id: 'org_a', seq: 1, timestamp: '2026-01-01T00:00:00.000Z', route: '/r', method: 'POST', key_id: null,
    user_id: null, request_hash: null, status: 'verified', engine: null, http_status: 200, proof_ref: null, constraint_id: null,
    raw_llm_output: null, prev_hash: 'sha256:' + '00'.repeat(32), payload_hash: 'sha256:' + '11'.repeat(32), hmac: '22'.repeat(32),
  } as AuditEntry;
  t.ok(Array.isArray(auditCodec.encode(good, 'org_a/000000000001')));
  t.same(auditCodec.encode(good, 'org_b/000000000001'), good, 'an entry under another key is not compacted (its position would change)');
  t.same(auditCodec.encode({ ...good, extra: 1 } as AuditEntry, 'org_a/000000000001'), { ...good, extra: 1 }, 'an extra field is not dropped');
});

t.test('sealing writes the same canonical form the verifier recomputes, for awkward strings too', async (t) => {
  const { sealEntry, currentPayload } = await import('../../plugins/audit/payload.js');
  const { sha256Ref } = await import('../../core/json/canonical.js');
  const awkward = ['é"\\', 'a\nb\u2028\u2029', '\u0000\u001f<>&', '😀', '\u007f\ud7ff\ue000', ''];
  for (const [i, s] of awkward.entries()) {
    const e = sealEntry('secret', 'org_a', i, i ? 'sha256:' + '00'.repeat(32) : null, {
      route: s, method: 'POST', key_id: s, user_id: null, request_hash: null, status: 'blocked', engine: s,
      http_status: 403, proof_ref: null, constraint_id: s, raw_llm_output: s,
    });
    t.equal(e.payload_hash, sha256Ref(currentPayload(e)), `awkward string ${i}`);
  }
  t.throws(
    () => sealEntry('secret', 'org_a', 0, null, {
      route: '\ud800', method: 'POST', key_id: null, user_id: null, request_hash: null, status: 'blocked', engine: null,
      http_status: 403, proof_ref: null, constraint_id: null, raw_llm_output: null,
    }),
    'a lone surrogate has no canonical form: refused, as before',
  );
});

t.test('an entry edited after sealing keeps its payload_hash in the stored value, so the edit stays visible', async (t) => {
  const { sealEntry, payloadHashOf } = await import('../../plugins/audit/payload.js');
  const fields = {
    route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'verified' as const,
    engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: null,
  };
  // sealed and stored untouched: the lean layout, payload_hash recomputed on read
  const fresh = sealEntry(SECRET, 'org_a', 1, null, fields);
  const lean = auditCodec.encode(fresh, 'org_a/000000000001') as unknown[];
  t.equal(lean[0], 2);
  t.same(auditCodec.decode(lean, 'org_a/000000000001'), fresh);
  // edited in place between sealing and the store's encode: the sealed hash no longer describes it
  for (const edit of [(e: AuditEntry) => (e.engine = 'sql'), (e: AuditEntry) => (e.http_status = 500), (e: AuditEntry) => (e.payload_hash = 'sha256:' + '00'.repeat(32))]) {
    const e = sealEntry(SECRET, 'org_a', 1, null, fields);
    edit(e);
    const stored = auditCodec.encode(e, 'org_a/000000000001') as unknown[];
    t.equal(stored[0], 1, 'the full layout, with the payload_hash as it is');
    const back = auditCodec.decode(stored, 'org_a/000000000001');
    t.same(back, e);
    t.not(back.payload_hash, payloadHashOf(back), 'the reader still sees a hash that does not match the fields');
  }
});
