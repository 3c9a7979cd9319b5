import t from 'tap';
import { open } from 'lmdb';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain, type AuditEntry } from '../../plugins/audit/index.js';
import { entryKey } from '../../plugins/audit/payload.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { runCli } from './fixtures/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

const SECRET = TEST_SECRETS.audit_secret_key;
const bin = (ref: string | null) => (ref === null ? null : Buffer.from(ref.slice(7), 'hex'));

/** what the previous release wrote for an entry (layout 1: every field, payload_hash included) */
function previousLayout(e: AuditEntry): unknown[] {
  return [1, Date.parse(e.timestamp), e.route, e.method, e.key_id, e.user_id, bin(e.request_hash), e.status, e.engine, e.http_status,
    bin(e.proof_ref), e.constraint_id, e.raw_llm_output, bin(e.prev_hash), bin(e.payload_hash), Buffer.from(e.hmac, 'hex')];
}

const fields = (i: number) => ({
  route: '/verify/math', method: i % 2 ? 'GET' : 'POST', key_id: 'key_1', user_id: null, request_hash: 'sha256:' + 'ab'.repeat(32),
  status: i % 3 ? ('verified' as const) : ('blocked' as const), engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: null,
});

t.test('a data directory written by the previous release still opens, verifies and grows', async (t) => {
  const dir = tempDir(t, 'pg-prev-layout-');
  let store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  let chain = new AuditChain(store, SECRET);
  const sealed: AuditEntry[] = [];
  for (let i = 0; i < 4; i++) sealed.push(await chain.append('org_old', fields(i)));
  await store.close();

  // rewrite every entry as the previous release stored it
  const root = open({ path: dir, maxDbs: 64, compression: false });
  const raw = root.openDB({ name: AUDIT_COLLECTION, keyEncoding: 'ordered-binary' });
  t.equal((raw.get(entryKey('org_old', 1)) as unknown[])[0], 2, 'this release writes layout 2');
  const leanBytes = raw.getBinary(entryKey('org_old', 1))!.length;
  for (const e of sealed) await raw.put(entryKey('org_old', e.seq), previousLayout(e));
  t.equal((raw.get(entryKey('org_old', 1)) as unknown[])[0], 1);
  t.ok(leanBytes < raw.getBinary(entryKey('org_old', 1))!.length, 'layout 2 is smaller');
  await root.close();

  const before = await runCli(['audit', 'verify', '--org', 'org_old', '--data-dir', dir]);
  t.equal(before.code, 0, before.stderr);
  t.match(before.stdout, /^OK: 4 entries in 1 chain/);

  store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  chain = new AuditChain(store, SECRET);
  for (const e of sealed) t.same(await store.collection(AUDIT_COLLECTION).get(entryKey('org_old', e.seq)), e, `entry ${e.seq} reads back unchanged`);
  const next = await chain.append('org_old', fields(4));
  t.equal(next.prev_hash, sealed[3].payload_hash, 'the chain continues from an entry of the previous layout');
  await store.close();

  const after = await runCli(['audit', 'verify', '--org', 'org_old', '--data-dir', dir]);
  t.equal(after.code, 0, after.stderr);
  t.match(after.stdout, /^OK: 5 entries in 1 chain/);
});

t.test('an edit to an entry stored without its payload hash still breaks the chain', async (t) => {
  const dir = tempDir(t, 'pg-lean-edit-');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  const chain = new AuditChain(store, SECRET);
  for (let i = 0; i < 3; i++) await chain.append('org_e', fields(i));
  await store.close();
  // flip the status index in the stored array: the reader recomputes a hash the HMAC does not match
  const root = open({ path: dir, maxDbs: 64, compression: false });
  const raw = root.openDB({ name: AUDIT_COLLECTION, keyEncoding: 'ordered-binary' });
  const v = raw.get(entryKey('org_e', 1)) as unknown[];
  t.equal(v[0], 2);
  v[7] = v[7] === 0 ? 1 : 0;
  await raw.put(entryKey('org_e', 1), v);
  await root.close();
  const r = await runCli(['audit', 'verify', '--org', 'org_e', '--data-dir', dir]);
  t.equal(r.code, 1);
  t.match(r.stdout, /BROKEN .* seq=1 /);
});
