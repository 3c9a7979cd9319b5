import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LmdbStore } from '../../core/store/lmdb.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import attestation from '../../plugins/attestation/index.js';
import audit, { AuditChain, type AuditFields } from '../../plugins/audit/index.js';
import { CHECKPOINT_COLLECTION } from '../../plugins/audit/checkpoint.js';
import consolePlugin from '../../plugins/console/index.js';
import { startServer, TEST_SECRETS } from '../helpers/server.js';
import { bearer, signup } from '../helpers/tenancy.js';
import { waitFor } from '../helpers/wait.js';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

/**
 * Issue 41: the audit view's checkpoints and retention state (GET /audit/state). One organisation's
 * chain is seeded with entries past the retention period; the server prunes them at start behind a
 * signed prune checkpoint and checkpoints the head. The page shows the chain's extent, the prune
 * anchor and each checkpoint's check; another organisation sees none of it; a checkpoint altered
 * in the store reads INVALID.
 */
const PASSWORD = 'correct horse battery';
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: null, user_id: null, request_hash: null, status: 'verified',
  engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

const first = await startServer({ plugins: [health, auth], config: { auth: { anonymous_rate_per_minute: 1000 } }, keepData: true });
const a = await signup(first, { password: PASSWORD });
const b = await signup(first, { password: PASSWORD });
await first.close();
// five entries from sixty days ago, one from now: retention of 30 days prunes the five
const seed = new LmdbStore(first.dataDir, { codecs: AUDIT_CODECS });
let clock = new Date(Date.now() - 60 * 86_400_000);
const chain = new AuditChain(seed, TEST_SECRETS.audit_secret_key, 20, 512, () => clock);
for (let i = 0; i < 5; i++) await chain.append(a.user.org_id, fields(i));
clock = new Date();
await chain.append(a.user.org_id, fields(5));
await seed.close();

const s = await startServer({
  plugins: [health, auth, attestation, audit, consolePlugin],
  dataDir: first.dataDir,
  config: { auth: { anonymous_rate_per_minute: 1000 }, audit: { retention_days: 30, checkpoint_interval_seconds: 1 } },
});
t.teardown(async () => {
  await s.close();
  rmSync(first.dataDir, { recursive: true, force: true });
});
const state = async (token: string) => (await s.request('GET', '/audit/state', { headers: bearer(token) })).body;
await waitFor(async () => (await state(a.token)).retention.pruned_through !== null, { what: 'the start-up prune', timeoutMs: 15_000 });
const browser = await launchBrowser(t);
const shots = screenshotDir();

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${s.url}/console/#/audit`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('audit-state').waitFor();
}

t.test('the route: the extent, the prune anchor, checkpoints, scoped to the organisation', async (t) => {
  const st = await state(a.token);
  t.same([st.chain.first_seq, st.chain.head_seq], [5, 5], 'the five expired entries are pruned, the head stays');
  t.equal(st.retention.days, 30);
  t.ok(Date.parse(st.retention.cutoff) < Date.now() - 29 * 86_400_000, 'the cut-off is thirty days back');
  t.match(st.retention.pruned_through, { seq: 4, reason: 'prune', signature_valid: true, matches_chain: null }, 'the prune anchor is the signed checkpoint at the last pruned entry');
  t.equal(st.checkpoints.enabled, true);
  t.equal(st.checkpoints.interval_seconds, 1);
  t.ok(st.checkpoints.recent.length >= 1 && st.checkpoints.recent.every((c: any) => c.signature_valid), 'every shown checkpoint verifies');
  t.match(st.checkpoints.recent[0].key_thumbprint, /^[A-Za-z0-9_-]{43}$/);

  const other = await state(b.token);
  t.same(other.chain, { first_seq: null, head_seq: null, oldest_at: null, newest_at: null }, 'another organisation sees no entry of it');
  t.same(other.checkpoints.recent, [], 'nor its checkpoints');
  t.equal(other.retention.pruned_through, null);
  t.equal((await s.request('GET', '/audit/state')).status, 401, 'no credential');
  t.equal((await s.request('GET', '/audit/state', { headers: { authorization: 'Bearer not.a.jwt' } })).status, 401, 'a bad token');
});

t.test('the page shows it; another organisation sees nothing; an altered checkpoint reads INVALID', async (t) => {
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  await signIn(page, a.user.email);
  t.match(await page.getByTestId('state-chain').textContent(), /^entries 5 to 5 /);
  t.match(await page.getByTestId('state-retention').textContent(), /^30 days \(entries before \d{4}-/);
  t.match(await page.getByTestId('state-pruned').textContent(), /^through entry 4 at .*; anchor signature valid \(entry pruned\)$/);
  t.ok((await page.getByTestId('checkpoint-check').allTextContents()).every((x) => x.startsWith('signature valid')), 'each checkpoint checked by the server');
  t.same(await seriousViolations(page), [], 'audit view with its state: no serious accessibility violation');
  await page.screenshot({ path: join(shots, 'audit-state.png'), fullPage: true });

  const other = await browser.newContext();
  t.teardown(() => other.close());
  const page2 = await other.newPage();
  await signIn(page2, b.user.email);
  t.equal(await page2.getByTestId('state-chain').textContent(), 'no entry yet');
  t.equal(await page2.getByTestId('state-pruned').textContent(), 'nothing pruned');
  await page2.getByTestId('no-checkpoints').waitFor();
  t.equal(await page2.getByTestId('checkpoint-row').count(), 0, "another organisation's user sees none of the first's checkpoints");

  // someone with write access to the store swaps a checkpoint's head: its own signature no longer covers it
  const cps = s.kernel.app.store.collection<Record<string, unknown>>(CHECKPOINT_COLLECTION);
  const [newest] = await cps.list({ prefix: `${a.user.org_id}/`, reverse: true, limit: 1 });
  await cps.put(newest.key, { ...newest.value, head_hash: 'sha256:' + '0'.repeat(64) });
  await page.getByRole('button', { name: 'Reload state' }).click();
  await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('[data-testid="checkpoint-check"]')].some((e: any) => e.textContent === 'signature INVALID'));
  t.pass('the altered checkpoint reads INVALID');
});
