import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import math from '../../plugins/engines/math/index.js';
import attestation from '../../plugins/attestation/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import ops from '../../plugins/ops/index.js';
import consolePlugin from '../../plugins/console/index.js';
import { startServer } from '../helpers/server.js';
import { createKey, signup } from '../helpers/tenancy.js';
import { waitFor } from '../helpers/wait.js';
import { auditStream, MAX_BUFFERED, openStreams, STREAMS_PER_ORG } from '../../plugins/audit/stream.js';
import type { Readable } from 'node:stream';
import type { RequestContext } from '../../core/types.js';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser.js';

/**
 * Issue 41, slice 2 in a real browser: the audit chain (newest entries by JWT, paged and verified
 * with a key, the whole chain's integrity) and attestations (look up, decode and verify in the page
 * against the served JWKS, revoke), each scoped to the signed-in user's organisation; an automated
 * accessibility check (axe-core) of each view.
 */
declare const window: any;

const PLUGINS: Plugin[] = [health, auth, math, attestation, a2a, audit, ops, consolePlugin];
const PASSWORD = 'correct horse battery';

const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 1000 } } });
t.teardown(() => s.close());
const a = await signup(s, { password: PASSWORD });
const b = await signup(s, { password: PASSWORD });
const aKey = await createKey(s, a.token, { name: 'main', scopes: ['verify:read', 'attestation:read', 'admin:all'] });
const verdicts: Array<Record<string, any>> = [];
const logIds: string[] = [];
for (const expression of ['(x+1)^2 = x^2+2*x+1', '2+2=4', '2+2=5']) {
  const r = await s.request('POST', '/verify/math', { apiKey: aKey.key, body: { expression } });
  if (r.status !== 200) throw new Error(`verify/math: ${r.status} ${r.text}`);
  verdicts.push(r.body);
  logIds.push(r.headers.get('x-audit-log-id') ?? '');
}
// past one page of the console (20): the rest of the chain is reached by its cursor
for (let i = 0; i < 20; i++) {
  const r = await s.request('POST', '/verify/math', { apiKey: aKey.key, body: { expression: `${i}+1=${i + 1}` } });
  if (r.status !== 200) throw new Error(`verify/math: ${r.status} ${r.text}`);
}
const issued = verdicts.find((v) => typeof v.attestation_id === 'string');
if (!issued) throw new Error('no attestation issued');
const browser = await launchBrowser(t);
const shots = screenshotDir();

async function signIn(page: Page, email: string, view: string): Promise<void> {
  await page.goto(`${s.url}/console/#/${view}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
}

t.test('the audit chain: newest by JWT, paged and verified with a key, the whole chain checked', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signIn(page, a.user.email, 'audit');
  t.same(await seriousViolations(page), [], 'sign-in and audit views: no serious accessibility violation');
  await page.getByTestId('audit-table').waitFor();
  const jwtRows = await page.getByTestId('audit-row').allTextContents();
  t.equal(jwtRows.length, 20, 'the newest 20 entries, through GET /audit/logs');
  await page.getByLabel('Status').selectOption('admin');
  await page.waitForFunction(() => {
    const rows = [...window.document.querySelectorAll('[data-testid="audit-row"]')];
    return rows.length > 0 && rows.every((r: any) => r.children[2].textContent === 'admin');
  });

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-export').click()]);
  t.equal(download.suggestedFilename(), 'audit-export.csv');
  const csv = readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
  t.match(csv[0], /^log_id,org_id,seq,/, 'the export is GET /audit/export, as CSV');
  t.ok(csv.length > 1 && csv.slice(1).every((l) => l.includes(',admin,')), 'filtered by the chosen status');
  await page.getByLabel('Status').selectOption('');
  await page.getByTestId('create-key').click();
  await page.getByTestId('key-state').waitFor();
  await page.getByTestId('audit-older').waitFor();
  const api = await s.request('GET', '/logs?limit=20', { apiKey: aKey.key });
  const want = api.body.logs.map((l: { log_id: string }) => l.log_id);
  await page.waitForFunction((n: number) => window.document.querySelectorAll('[data-testid="audit-row"]').length === n, want.length);
  t.same(await page.getByTestId('log-id').allTextContents(), want, 'the key-paged listing shows the page GET /logs returns, in its order');
  t.equal(want.length, 20);
  await page.getByTestId('audit-older').click();
  const older = await s.request('GET', `/logs?limit=20&cursor=${encodeURIComponent(api.body.next_cursor)}`, { apiKey: aKey.key });
  const wantOlder = older.body.logs.map((l: { log_id: string }) => l.log_id);
  await page.waitForFunction((first: string) => window.document.querySelector('[data-testid="log-id"]')?.textContent === first, wantOlder[0]);
  t.same(await page.getByTestId('log-id').allTextContents(), wantOlder, 'Older shows the page after the cursor');
  t.ok(wantOlder.length > 0 && !wantOlder.some((id: string) => want.includes(id)), 'and none of the first page');
  await page.getByTestId('verify-entries').click();
  await page.waitForFunction(() => /checked, \d+ failed/.test(window.document.querySelector('[data-testid="verify-progress"]')?.textContent ?? ''));
  t.match(await page.getByTestId('verify-progress').textContent(), /checked, 0 failed$/);
  const checks = await page.getByTestId('entry-check').allTextContents();
  t.ok(checks.length > 0 && checks.every((c) => c === 'valid'), 'each shown entry verifies (GET /admin/compliance/verify)');
  await page.getByTestId('verify-chain').click();
  await page.waitForFunction(() => /chain (intact|broken)/.test(window.document.querySelector('[data-testid="chain-result"]')?.textContent ?? ''));
  t.match(await page.getByTestId('chain-result').textContent(), /^chain intact: \d+ entries verified$/);
  await page.screenshot({ path: join(shots, 'audit.png'), fullPage: true });
});

t.test('attestations: looked up, decoded and verified in the page, revoked; the API agrees', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signIn(page, a.user.email, 'attestations');
  await page.getByLabel('Attestation token').fill(issued.attestation);
  await page.getByRole('button', { name: 'Decode and verify' }).click();
  await page.getByTestId('att-decoded').waitFor();
  t.equal(await page.getByTestId('att-local').textContent(), 'In this page: signature valid', 'ES256 checked with WebCrypto against the published key');
  t.equal(await page.getByTestId('att-server').textContent(), 'Server: needs an API key');
  const forged = issued.attestation.slice(0, -4) + (issued.attestation.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  await page.getByLabel('Attestation token').fill(forged);
  await page.getByRole('button', { name: 'Decode and verify' }).click();
  await page.waitForFunction(() => window.document.querySelector('[data-testid="att-local"]')?.textContent !== 'In this page: signature valid');
  t.match(await page.getByTestId('att-local').textContent(), /INVALID|could not check/, 'a changed signature does not verify');

  await page.getByTestId('create-key').click();
  await page.getByTestId('key-state').waitFor();
  await page.getByLabel('Attestation id').fill(issued.attestation_id);
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.waitForFunction(() => window.document.querySelector('[data-testid="att-status"], [data-testid="att-error"]'));
  t.equal(await page.getByTestId('att-status').textContent(), 'VALID');
  t.same(await seriousViolations(page), [], 'attestations view: no serious accessibility violation');
  await page.screenshot({ path: join(shots, 'attestations.png'), fullPage: true });
  await page.getByTestId('revoke').click();
  await page.getByTestId('revoke-result').waitFor();
  t.equal(await page.getByTestId('att-status').textContent(), 'REVOKED');
  const after = await s.request('GET', `/attestation/${issued.attestation_id}`, { apiKey: aKey.key });
  t.equal(after.body.status, 'REVOKED', 'the API shows the revocation');
  const v = await s.request('POST', '/attestation/verify', { apiKey: aKey.key, body: { jwt: issued.attestation } });
  t.not(v.status, 200, 'and no longer verifies the token');
});

t.test('a user of another organisation sees none of it', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signIn(page, b.user.email, 'audit');
  t.same(await seriousViolations(page), [], 'an empty audit view: no serious accessibility violation');
  await page.waitForFunction(() => window.document.querySelector('[data-testid="audit-table"], [data-testid="audit-empty"]'));
  t.equal((await page.getByTestId('audit-row').allTextContents()).filter((r) => r.includes('/verify/math')).length, 0, "no entry of the other organisation's chain");
  await page.getByTestId('create-key').click();
  await page.getByTestId('key-state').waitFor();
  await page.waitForFunction(() => window.document.querySelector('[data-testid="audit-table"], [data-testid="audit-empty"]'));
  t.equal((await page.getByTestId('audit-row').allTextContents()).filter((r) => r.includes('/verify/math')).length, 0, 'nor through the paged listing');
  const second = await context.newPage();
  await signIn(second, b.user.email, 'attestations');
  await second.getByTestId('create-key').click();
  await second.getByTestId('key-state').waitFor();
  await second.getByLabel('Attestation id').fill(issued.attestation_id);
  await second.getByRole('button', { name: 'Look up' }).click();
  await second.getByTestId('att-error').waitFor();
  t.match(await second.getByTestId('att-error').textContent(), /HTTP 404/, "another organisation's attestation is not found");
  t.equal(await second.getByTestId('att-record').count(), 0);
  t.match(logIds[0], /.+/, 'the verification was audited');
  t.equal((await s.request('GET', `/audit/logs/${logIds[0]}`, { headers: { authorization: `Bearer ${a.token}` } })).status, 200, "A's JWT reads its entry");
  const hijack = await s.request('GET', `/audit/logs/${logIds[0]}`, { headers: { authorization: `Bearer ${b.token}` } });
  t.equal(hijack.status, 404, "B's JWT reads none of A's entries through the API either");
});

t.test('live verdicts: a /verify/math call appears as it is made; pause holds, resume shows; another organisation sees none', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signIn(page, a.user.email, 'live');
  await page.waitForFunction(() => window.document.querySelector('[data-testid="live-state"]')?.textContent === 'live');
  t.equal(await page.getByTestId('live-row').count(), 0, 'only what is appended after connecting');
  const call = await s.request('POST', '/verify/math', { apiKey: aKey.key, body: { expression: '3*3=9' } });
  await page.getByTestId('live-row').first().waitFor();
  // its latency may come in a `meta` event just after the entry
  await page.waitForFunction(() => window.document.querySelector('[data-testid="live-latency"]')?.textContent.endsWith(' ms'));
  const recorded = (await s.request('GET', `/audit/logs/${call.headers.get('x-audit-log-id')}`, { headers: { authorization: `Bearer ${a.token}` } })).body.timestamp;
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // admission (math answers none), latency, attestation id, proof (test/console/live-fields.test.ts checks the three)
  const row = new RegExp(`^${esc(`${recorded}POST /verify/math 200verifiedmath——`)}\\d+(\\.\\d+)? ms${esc(`${call.body.attestation_id ?? '—'}${call.body.proof_ref ?? '—'}`)}$`);
  t.match(await page.getByTestId('live-row').allTextContents(), [row], 'the verdict, as the chain recorded it');

  await page.getByTestId('live-pause').click();
  await s.request('POST', '/verify/math', { apiKey: aKey.key, body: { expression: '4*4=16' } });
  await page.getByRole('button', { name: 'Resume (1 waiting)' }).waitFor();
  t.equal(await page.getByTestId('live-row').count(), 1, 'paused: held back');
  await page.getByTestId('live-pause').click();
  t.equal(await page.getByTestId('live-row').count(), 2, 'resumed: shown');
  await page.getByLabel('Filter').fill('blocked');
  t.equal(await page.getByTestId('live-row').count(), 0, 'the filter hides what does not match');
  await page.getByLabel('Filter').fill('math');
  t.equal(await page.getByTestId('live-row').count(), 2);
  t.same(await seriousViolations(page), [], 'live view: no serious accessibility violation');
  await page.screenshot({ path: join(shots, 'live.png'), fullPage: true });

  const other = await browser.newContext();
  t.teardown(() => other.close());
  const page2 = await other.newPage();
  await signIn(page2, b.user.email, 'live');
  await page2.waitForFunction(() => window.document.querySelector('[data-testid="live-state"]')?.textContent === 'live');
  await s.request('POST', '/verify/math', { apiKey: aKey.key, body: { expression: '5*5=25' } });
  await createKey(s, b.token, { name: 'b-key' });
  await page2.waitForFunction(() => window.document.querySelector('[data-testid="live-row"]'));
  t.match(await page2.getByTestId('live-row').allTextContents(), [/POST \/auth\/api-keys/], "B's stream shows B's own entry, none of A's verdicts");
});

t.test('GET /audit/stream over HTTP: a JWT only, the organisation cap, released when the client leaves', async (t) => {
  t.equal((await s.request('GET', '/audit/stream')).status, 401, 'no credential');
  t.equal((await s.request('GET', '/audit/stream', { apiKey: aKey.key })).status, 401, 'an API key is not a sign-in');
  t.equal((await s.request('GET', '/audit/stream?status=nope', { headers: { authorization: `Bearer ${a.token}` } })).status, 400);
  // the pages of the tests before have closed; their streams are released as their sockets close
  await waitFor(() => openStreams() === 0, { what: 'the pages\' streams to be released' });
  const acs = Array.from({ length: STREAMS_PER_ORG }, () => new AbortController());
  const held = await Promise.all(acs.map((ac) => fetch(`${s.url}/audit/stream`, { headers: { authorization: `Bearer ${a.token}` }, signal: ac.signal })));
  t.ok(held.every((r) => r.status === 200 && r.headers.get('content-type')?.startsWith('text/event-stream')));
  const refused = await s.request('GET', '/audit/stream', { headers: { authorization: `Bearer ${a.token}` } });
  t.equal(refused.status, 429, `past ${STREAMS_PER_ORG} streams of one organisation`);
  const otherOrg = new AbortController();
  const bStream = await fetch(`${s.url}/audit/stream`, { headers: { authorization: `Bearer ${b.token}` }, signal: otherOrg.signal });
  t.equal(bStream.status, 200, "another organisation's cap is its own");
  for (const ac of [...acs, otherOrg]) ac.abort();
  await waitFor(() => openStreams() === 0, { what: 'the streams to be released' });
  t.pass('every stream released once its client left');
});

t.test('a stream whose client does not read holds a bounded buffer, and loses nothing once read', async (t) => {
  const app = s.kernel.app;
  const ac = new AbortController();
  t.teardown(() => ac.abort());
  const ctx = { principal: { kind: 'jwt', orgId: b.user.org_id, scopes: [] }, query: {}, signal: ac.signal, log: app.log } as unknown as RequestContext;
  const reply = await auditStream(app, ctx);
  const body = reply.body as Readable;
  let most = 0;
  const N = 400;
  // ten at a time: the chain orders the entries whatever order the requests come in
  for (let i = 0; i < N; i += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => createKey(s, b.token, { name: `burst-${i + j}` })));
    most = Math.max(most, body.readableLength);
  }
  const seqs: number[] = [];
  let text = '';
  let largest = 0;
  for await (const chunk of body) {
    text += String(chunk);
    const cut = text.lastIndexOf('\n\n') + 2;
    for (const ev of text.slice(0, cut).split('\n\n')) {
      const m = /^id: (\d+)$/m.exec(ev);
      if (!m) continue;
      seqs.push(Number(m[1]));
      largest = Math.max(largest, Buffer.byteLength(ev) + 2);
    }
    text = text.slice(cut);
    if (seqs.length >= N) break;
  }
  // the stream stops reading once past the bound, so at most one read (100 entries) lands beyond it;
  // without the bound all N events (well past that) would be held
  t.ok(N * largest > MAX_BUFFERED + 100 * largest, 'the burst is large enough to show the bound');
  t.ok(most <= MAX_BUFFERED + 100 * largest, `never more than the bound and one read unread (${most} bytes)`);
  t.equal(seqs.length, N, 'every entry arrives once the client reads');
  t.ok(seqs.every((q, i) => i === 0 || q === seqs[i - 1] + 1), 'in order, none skipped');
});
