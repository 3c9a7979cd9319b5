import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import math from '../../plugins/engines/math/index.js';
import sql from '../../plugins/engines/sql/index.js';
import attestation from '../../plugins/attestation/index.js';
import audit from '../../plugins/audit/index.js';
import consolePlugin from '../../plugins/console/index.js';
import { compileSchema } from '../../core/json/validate.js';
import { startServer } from '../helpers/server.js';
import { createKey, signup } from '../helpers/tenancy.js';
import { waitFor } from '../helpers/wait.js';
import { SHOP } from '../engines/sql/fixtures/helpers.js';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser.js';

/**
 * Issue 41: each live verdict carries its latency, admission and attestation id (GET /audit/stream,
 * schemas/audit/stream-event.json). Over HTTP every event matches the schema; an entry this process
 * did not append through a request (as another replica's would be) streams them as null, not made
 * up. In the page each row shows them; another organisation's user sees none of the first's rows.
 */
declare const window: any;

const PASSWORD = 'correct horse battery';
const s = await startServer({ plugins: [health, auth, math, sql, attestation, audit, consolePlugin], config: { auth: { anonymous_rate_per_minute: 1000 } } });
t.teardown(() => s.close());
const a = await signup(s, { password: PASSWORD });
const b = await signup(s, { password: PASSWORD });
const aKey = await createKey(s, a.token, { name: 'main', scopes: ['verify:read', 'attestation:read'] });
const schema = (f: string) => compileSchema(JSON.parse(readFileSync(new URL(`../../../schemas/audit/${f}`, import.meta.url), 'utf8')) as object);
const validEvent = schema('stream-event.json');
const validMeta = schema('stream-meta-event.json');
const browser = await launchBrowser(t);
const shots = screenshotDir();

const calls = async () => ({
  admit: await s.request('POST', '/verify/sql', { apiKey: aKey.key, body: { query: 'SELECT name FROM users WHERE id = 1', schema_ddl: SHOP } }),
  blocked: await s.request('POST', '/verify/sql', { apiKey: aKey.key, body: { query: "SELECT * FROM users WHERE name = '' OR 1=1", schema_ddl: SHOP } }),
  math: await s.request('POST', '/verify/math', { apiKey: aKey.key, body: { expression: '6*7=42' } }),
});

t.test('over HTTP: every event matches its schema; unknown fields are null, never guessed', async (t) => {
  const ac = new AbortController();
  t.teardown(() => ac.abort());
  const res = await fetch(`${s.url}/audit/stream`, { headers: { authorization: `Bearer ${a.token}` }, signal: ac.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Array<Record<string, any>> = [];
  const metas: Array<Record<string, any>> = [];
  let buf = '';
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buf += value;
      let cut: number;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (block.includes('event: entry') && data) events.push(JSON.parse(data.slice(6)));
        if (block.includes('event: meta') && data) metas.push(JSON.parse(data.slice(6)));
      }
    }
  })();
  const c = await calls();
  // an entry appended without a request through this process: what another replica's looks like here
  const chain = s.kernel.app.service('audit.chain')!;
  const foreign = await chain.append(a.user.org_id, { route: '/verify/math', method: 'POST', key_id: null, user_id: null, request_hash: null, status: 'verified', engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: null });
  // an entry read before its request recorded the fields gets them in a `meta` event that follows
  const merged = () => new Map(events.map((e) => [e.log_id, { ...e, ...metas.find((m) => m.log_id === e.log_id) }]));
  const ids = [c.admit, c.blocked, c.math].map((r) => r.headers.get('x-audit-log-id'));
  await waitFor(() => events.length >= 4 && ids.every((id) => typeof merged().get(id)?.latency_ms === 'number'), { what: 'four events, the three with their fields', timeoutMs: 10_000 });
  ac.abort();
  await pump;
  for (const e of events) t.ok(validEvent(e), `event ${e.seq} matches stream-event.json ${JSON.stringify(validEvent.errors ?? [])}`);
  for (const m of metas) t.ok(validMeta(m), `meta of ${m.log_id} matches stream-meta-event.json`);
  t.notOk(metas.some((m) => m.log_id === foreign.log_id), 'no meta event for the entry without fields');
  const byId = merged();
  const admit = byId.get(c.admit.headers.get('x-audit-log-id'))!;
  const blocked = byId.get(c.blocked.headers.get('x-audit-log-id'))!;
  const m = byId.get(c.math.headers.get('x-audit-log-id'))!;
  t.equal(admit.admission, 'ADMIT');
  t.equal(blocked.admission, 'BLOCKED');
  t.equal(m.admission, null, 'math answers no admission');
  t.equal(m.attestation_id, c.math.body.attestation_id, 'the attestation issued with the verdict');
  t.type(c.math.body.attestation_id, 'string');
  t.ok([admit, blocked, m].every((e) => typeof e.latency_ms === 'number' && e.latency_ms >= 0), 'each with its latency');
  t.match(byId.get(foreign.log_id), { latency_ms: null, admission: null, attestation_id: null }, 'an entry this process served no request for: null');
});

t.test('in the page: admission, latency, attestation id per row; another organisation sees none', async (t) => {
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  await page.goto(`${s.url}/console/#/live`);
  await page.getByLabel('Email').fill(a.user.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForFunction(() => window.document.querySelector('[data-testid="live-state"]')?.textContent === 'live');

  const other = await browser.newContext();
  t.teardown(() => other.close());
  const page2 = await other.newPage();
  await page2.goto(`${s.url}/console/#/live`);
  await page2.getByLabel('Email').fill(b.user.email);
  await page2.getByLabel('Password').fill(PASSWORD);
  await page2.getByRole('button', { name: 'Sign in' }).click();
  await page2.waitForFunction(() => window.document.querySelector('[data-testid="live-state"]')?.textContent === 'live');

  const c = await calls();
  // the fields may come in a `meta` event just after their entry
  await page.waitForFunction(() => {
    const cells = [...window.document.querySelectorAll('[data-testid="live-latency"]')];
    return cells.length === 3 && cells.every((c: any) => c.textContent.endsWith(' ms'));
  });
  // newest first: math, the blocked query, the admitted one
  t.same(await page.getByTestId('live-admission').allTextContents(), ['—', 'BLOCKED', 'ADMIT']);
  t.ok((await page.getByTestId('live-latency').allTextContents()).every((x) => /^\d+(\.\d+)? ms$/.test(x)), 'each row its latency');
  t.same(await page.getByTestId('live-attestation').allTextContents(), [c.math.body.attestation_id, '—', '—']);
  await page.getByLabel('Filter').fill('BLOCKED');
  t.equal(await page.getByTestId('live-row').count(), 1, 'the filter reads the admission too');
  await page.getByLabel('Filter').fill('');
  t.same(await seriousViolations(page), [], 'live view with the new columns: no serious accessibility violation');
  await page.screenshot({ path: join(shots, 'live-fields.png'), fullPage: true });

  // B's own entry shows up in B's stream; none of A's three do
  await createKey(s, b.token, { name: 'b-key' });
  await page2.waitForFunction(() => window.document.querySelector('[data-testid="live-row"]'));
  t.match(await page2.getByTestId('live-row').allTextContents(), [/POST \/auth\/api-keys/], "another organisation's user sees none of these verdicts");
  t.notMatch((await page2.getByTestId('live-table').textContent()) ?? '', c.math.body.attestation_id, 'nor the attestation id');
});
