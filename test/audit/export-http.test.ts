import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { AUDIT_SERVICES, AuditChain, type AuditFields } from '../../plugins/audit/index.js';
import { EXPORT_MAX_ROWS } from '../../plugins/audit/routes.js';
import { startServer, TEST_SECRETS, builtinsWithoutEngines } from '../helpers/server.js';
import { bearer, createKey, signup, tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './fixtures/cli.js';

/**
 * Issue 43: GET /audit/export was the newest ≤ 1,000 entries as CSV, which no one could verify.
 * `format=jsonl` streams the whole chain with what `proofgate audit verify --export FILE` needs,
 * and an operator's admin:all key may fetch it as a signed-in user can. The CSV stays as the spec
 * names it.
 */
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: i % 2 ? 'blocked' : 'verified',
  engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});
const cli = (...args: string[]) => runCli(['audit', 'verify', ...args], { SVC_CONFIG: '/nonexistent/proofgate.yaml' });

t.test('format=jsonl: the whole chain, verified offline by the CLI; CSV unchanged', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin] });
  t.teardown(() => s.close());
  const dir = tempDir(t, 'audit-export-http-');
  const a = await tenant(s);
  const other = await tenant(s);
  // more entries than the CSV's cut, written through the service's own chain
  const chain = s.kernel.app.service(AUDIT_SERVICES.chain)!;
  const n = EXPORT_MAX_ROWS + 150;
  await Promise.all(Array.from({ length: n }, (_, i) => chain.append(a.orgId, fields(i))));
  await s.request('POST', '/test/verify', { apiKey: other.key, body: { outcome: 'verified' } });

  const r = await s.request('GET', '/audit/export?format=jsonl', { headers: bearer(a.token) });
  t.equal(r.status, 200, r.text.slice(0, 300));
  t.match(r.headers.get('content-type'), /^application\/jsonl/);
  t.match(r.headers.get('content-disposition'), /attachment; filename="audit-export-0-\d+\.jsonl"/);
  const lines = r.text.trimEnd().split('\n');
  const header = JSON.parse(lines[0]).svc_audit_export;
  t.equal(header.org_id, a.orgId);
  t.equal(header.first_seq, 0);
  t.ok(header.last_seq >= n, `every entry (${header.last_seq + 1}), not the newest ${EXPORT_MAX_ROWS}`);
  t.equal(lines.length, header.last_seq + 1 + 2, 'header, every entry, closing checkpoint');
  t.notOk(r.text.includes(other.orgId), 'only the caller organisation');
  t.notOk(r.text.includes(TEST_SECRETS.audit_secret_key), 'the HMAC secret is never written');
  const closing = JSON.parse(lines[lines.length - 1]).svc_audit_checkpoint;
  t.equal(closing.reason, 'export');

  const file = join(dir, 'export.jsonl');
  writeFileSync(file, r.text);
  const keyFile = join(dir, 'hmac.key');
  writeFileSync(keyFile, `${TEST_SECRETS.audit_secret_key}\n`);
  const identity = (await s.request('GET', '/health/identity')).body;
  const pin = await calculateJwkThumbprint(identity.attestation.public_jwk as JWK, 'sha256');
  const ok = await cli('--export', file, '--hmac-key-file', keyFile, '--pin', pin);
  t.equal(ok.code, 0, ok.stdout + ok.stderr);
  t.match(ok.stdout, new RegExp(`^OK: ${header.last_seq + 1} entries of org=${a.orgId} \\(seq 0\\.\\.${header.last_seq}\\) verified: .*export checkpoint .*pinned\\); HMACs verified`));

  // the file as a tamperer leaves it: an edited entry, a dropped one, a cut-off stream, another key's pin
  const edited = lines.map((l, i) => (i === 10 ? l.replace('"n 8"', '"n 9"') : l)).join('\n') + '\n';
  writeFileSync(join(dir, 'edited.jsonl'), edited);
  t.equal((await cli('--export', join(dir, 'edited.jsonl'))).code, 1, 'an edited entry is BROKEN');
  writeFileSync(join(dir, 'dropped.jsonl'), lines.filter((_, i) => i !== 500).join('\n') + '\n');
  t.match((await cli('--export', join(dir, 'dropped.jsonl'))).stdout, /^BROKEN .*entry 499 is missing/);
  writeFileSync(join(dir, 'cut.jsonl'), lines.slice(0, 700).join('\n') + '\n');
  t.match((await cli('--export', join(dir, 'cut.jsonl'))).stdout, /^BROKEN .*the export ends at seq/);
  const otherPin = await cli('--export', file, '--pin', 'A'.repeat(43));
  t.equal(otherPin.code, 1, 'a checkpoint of another key than the pinned one');

  // CSV: still the spec's newest ≤ 1,000 rows
  const csv = await s.request('GET', '/audit/export', { headers: bearer(a.token) });
  t.equal(csv.status, 200);
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  t.equal(csv.text.trim().split('\r\n').length, EXPORT_MAX_ROWS + 1);
  t.ok(readFileSync(file, 'utf8').length > csv.text.length);
});

t.test('who may export, and what is refused', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin] });
  t.teardown(() => s.close());
  const a = await tenant(s);
  const admin = await s.request('GET', '/audit/export?format=jsonl', { apiKey: a.key });
  t.equal(admin.status, 200, 'an admin:all API key exports its own organisation');
  t.equal(JSON.parse(admin.text.split('\n')[0]).svc_audit_export.org_id, a.orgId);
  t.equal((await s.request('GET', '/audit/export', { apiKey: a.key })).status, 200, 'CSV too');
  const weak = await createKey(s, a.token, { name: 'reader', scopes: ['verify:read', 'attestation:read'] });
  const refused = await s.request('GET', '/audit/export?format=jsonl', { apiKey: weak.key });
  t.equal(refused.status, 403, 'a key without admin:all');
  t.match(refused.body.detail, /admin:all/);
  t.equal((await s.request('GET', '/audit/export?format=jsonl')).status, 401, 'no credential');
  const filtered = await s.request('GET', '/audit/export?format=jsonl&status=blocked', { headers: bearer(a.token) });
  t.equal(filtered.status, 400, 'a filtered chain cannot be verified');
  t.match(filtered.headers.get('content-type'), /^application\/problem\+json/);
  t.match(filtered.body.detail, /status filter leaves gaps/);
  t.equal((await s.request('GET', '/audit/export?format=xml', { headers: bearer(a.token) })).status, 400, 'unknown format');
  t.equal((await s.request('GET', '/audit/export?format=jsonl&format=csv', { headers: bearer(a.token) })).status, 400, 'format twice');
  // an organisation whose chain is empty: said, not an empty file that would never verify
  const fresh = await signup(s);
  const empty = await s.request('GET', '/audit/export?format=jsonl', { headers: bearer(fresh.token) });
  t.ok(empty.status === 404 || empty.status === 200, `an empty or a one-entry chain (${empty.status})`);
});
