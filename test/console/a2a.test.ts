import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import consolePlugin from '../../plugins/console/index.js';
import { KEY_PEM, message } from '../helpers/a2a.js';
import { startPeer } from '../helpers/a2a-peer.js';
import { startServer } from '../helpers/server.js';
import { bearer, createKey, registerAgent, signup } from '../helpers/tenancy.js';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser.js';

/**
 * Issue 41, the A2A view in a real browser and its routes over HTTP: each organisation sees its own
 * decisions per sender → receiver pair and the trust entries assigned to it; the operator sees every
 * organisation's and the peers' URLs; a card is fetched through the route A2A clients use, a signed
 * one verified and a forged one refused. Hostile: another organisation filtering on the first's
 * sender id, a key without verify:read, out-of-range limits, no credential.
 */
declare const window: any;

const PASSWORD = 'correct horse battery';
const good = await startPeer({ signed: true });
const forged = await startPeer({ signed: true, tampered: true });
t.teardown(async () => {
  await good.close();
  await forged.close();
});
// sign up first, then restart with the operator and the trust entries naming the organisations
const first = await startServer({ plugins: [health, auth], config: { auth: { anonymous_rate_per_minute: 1000 } }, keepData: true });
const op = await signup(first, { password: PASSWORD });
const a = await signup(first, { password: PASSWORD });
const b = await signup(first, { password: PASSWORD });
const aKey = await createKey(first, a.token, { name: 'a', scopes: ['verify:read'] });
const bKey = await createKey(first, b.token, { name: 'b', scopes: ['verify:read'] });
const aNarrow = await createKey(first, a.token, { name: 'narrow', scopes: ['attestation:read'] });
await first.close();
const s = await startServer({
  plugins: [health, auth, agents, a2a, consolePlugin],
  dataDir: first.dataDir,
  config: {
    auth: { anonymous_rate_per_minute: 1000, operator_user_ids: [op.user.id] },
    a2a: {
      deployment_id: 'console-a2a',
      signing_key_pem: KEY_PEM,
      default_allow: true,
      sender_auth: 'off',
      peers: {
        ledger: { url: `${good.url}/rpc`, jwks_url: good.jwksUrl, require_signed_card: true },
        forged: { url: `${forged.url}/rpc`, jwks_url: forged.jwksUrl },
      },
      trusted_agents: JSON.stringify([
        { agent_id: 'a-buyer', org_id: a.user.org_id, allowed_receivers: ['ledger', 'forged'] },
        { agent_id: 'b-seller', org_id: b.user.org_id },
      ]),
      blocklist: ['a-evil'],
      blocked_pairs: ['a-buyer>forged', 'b-seller>ledger'],
    },
  } as never,
});
t.teardown(async () => {
  await s.close();
  rmSync(first.dataDir, { recursive: true, force: true });
});

const send = async (apiKey: string, sender: string, receiver: string) =>
  (await s.request('POST', '/a2a/intercept', { apiKey, body: message({ sender_agent_id: sender, receiver_agent_id: receiver }) })).body.status as string;
// asserted in the first test: tap ends the root test when it idles after a top-level assertion
const sent = [
  await send(aKey.key, 'a-buyer', 'ledger'),
  await send(aKey.key, 'a-evil', 'ledger'),
  await send(aKey.key, 'a-buyer', 'forged'),
  await send(bKey.key, 'b-seller', 'b-recv'),
];

const browser = await launchBrowser(t);
const shots = screenshotDir();

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${s.url}/console/#/a2a`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
  await page.getByTestId('trust').waitFor();
}

t.test('the routes scope by organisation; the operator sees all', async (t) => {
  // `general` goes to the passthrough guard: not blocked, nothing proven
  t.same(sent, ['unverifiable', 'blocked', 'blocked', 'unverifiable'], 'the blocklist and the blocked pair refuse');
  const get = (path: string, token: string) => s.request('GET', path, { headers: bearer(token) });
  const mine = (await get('/a2a/decisions', a.token)).body;
  t.equal(mine.operator, false);
  t.same(mine.decisions.map((d: any) => `${d.sender}>${d.receiver}:${d.status}`).sort(), ['a-buyer>forged:blocked', 'a-buyer>ledger:unverifiable', 'a-evil>ledger:blocked']);
  t.ok(mine.decisions.every((d: any) => d.org_id === a.user.org_id));
  const blocked = mine.decisions.find((d: any) => d.sender === 'a-evil');
  t.equal(blocked.engine, 'trust_boundary');
  t.type(blocked.constraint_id, 'string', 'the refusing constraint is named');

  t.same((await get('/a2a/decisions?sender=a-buyer', b.token)).body.decisions, [], "another organisation filtering on the first's sender id gets nothing");
  t.same((await get('/a2a/decisions', b.token)).body.decisions.map((d: any) => d.sender), ['b-seller']);
  t.equal((await get('/a2a/decisions?limit=1', a.token)).body.decisions.length, 1);
  const all = (await get('/a2a/decisions', op.token)).body;
  t.equal(all.operator, true);
  t.equal(all.decisions.length, 4, "the operator sees every organisation's");

  const viaKey = await s.request('GET', '/a2a/decisions', { apiKey: aKey.key });
  t.equal(viaKey.status, 200, 'a verify:read key reads them too');
  t.equal(viaKey.body.decisions.length, 3);
  t.equal((await s.request('GET', '/a2a/decisions', { apiKey: aNarrow.key })).status, 403, 'a key without verify:read does not');
  t.equal((await s.request('GET', '/a2a/decisions')).status, 401, 'no credential');
  for (const q of ['limit=0', 'limit=201', 'limit=x', 'other=1', `sender=${'x'.repeat(300)}`]) {
    t.equal((await get(`/a2a/decisions?${q}`, a.token)).status, 400, `?${q.slice(0, 20)} is refused`);
  }

  const trustA = (await get('/a2a/trust', a.token)).body;
  t.same(trustA.trusted_agents.map((e: any) => e.agent_id), ['a-buyer'], 'its own trust entry only');
  t.same(trustA.blocklist, [], 'a blocked id not assigned to it is not shown');
  t.same(trustA.blocked_pairs, [{ sender: 'a-buyer', receiver: 'forged' }]);
  const trustB = (await get('/a2a/trust', b.token)).body;
  t.same(trustB.trusted_agents.map((e: any) => e.agent_id), ['b-seller']);
  t.same(trustB.blocked_pairs, [{ sender: 'b-seller', receiver: 'ledger' }]);
  const trustOp = (await get('/a2a/trust', op.token)).body;
  t.equal(trustOp.trusted_agents.length, 2);
  t.same(trustOp.blocklist, ['a-evil']);
  t.equal(trustOp.blocked_pairs.length, 2);

  const peersA = (await get('/a2a/peers', a.token)).body.peers;
  t.same(peersA.map((p: any) => p.id), ['ledger', 'forged']);
  t.ok(peersA.every((p: any) => p.card_url === null && p.endpoint === null && p.jwks_url === null), 'a tenant sees no peer URL');
  const peersOp = (await get('/a2a/peers', op.token)).body.peers;
  t.equal(peersOp[0].card_url, `${good.url}/.well-known/agent-card.json`, 'the operator does');
});

t.test('the page: pairs, trust lists, card status; another organisation sees nothing of it', async (t) => {
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  await signIn(page, a.user.email);
  t.same((await page.getByTestId('pair-name').allTextContents()).sort(), ['a-buyer → forged', 'a-buyer → ledger', 'a-evil → ledger']);
  t.equal(await page.getByTestId('allow-entry').count(), 1);
  t.match(await page.getByTestId('allowlist').textContent(), /a-buyer/);
  await page.getByRole('textbox', { name: 'API key' }).fill(aKey.key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByTestId('key-state').waitFor();
  await page.getByRole('button', { name: 'Fetch card of ledger' }).click();
  await page.getByTestId('peer-card').first().waitFor();
  t.match(await page.getByTestId('peer-card').first().textContent(), /^signed card, verified \(ES256/, 'the signed card verified, its signer shown');
  await page.getByRole('button', { name: 'Fetch card of forged' }).click();
  await page.waitForFunction(() => window.document.querySelectorAll('[data-testid="peer-card"]').length === 2);
  t.match(await page.getByTestId('peer-card').nth(1).textContent(), /AgentCard was refused: a card signature does not verify/, 'the forged card is refused with the reason');
  t.same(await seriousViolations(page), [], 'a2a view: no serious accessibility violation');
  await page.screenshot({ path: join(shots, 'a2a.png'), fullPage: true });

  const other = await browser.newContext();
  t.teardown(() => other.close());
  const page2 = await other.newPage();
  await signIn(page2, b.user.email);
  const text = (await page2.locator('main, body').first().textContent()) ?? '';
  t.notMatch(text, /a-buyer|a-evil/, "none of the first organisation's senders, pairs or entries appear");
  t.same(await page2.getByTestId('pair-name').allTextContents(), ['b-seller → b-recv']);
  await page2.screenshot({ path: join(shots, 'a2a-other-org.png'), fullPage: true });

  const opCtx = await browser.newContext();
  t.teardown(() => opCtx.close());
  const page3 = await opCtx.newPage();
  await signIn(page3, op.user.email);
  t.equal(await page3.getByTestId('pair').count(), 4, 'the operator sees every pair');
  t.match(await page3.getByTestId('peers-table').textContent(), new RegExp(good.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'and the peer URLs');
});

t.test('a message through the outbound proxy is recorded as a decision of its organisation', async (t) => {
  const admin = await createKey(s, a.token, { name: 'agents', scopes: ['verify:read', 'agent:write'] });
  const agent = await registerAgent(s, admin.key, { name: 'buyer' });
  const wrong = { claimed_total: '50.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
  const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: wrong }] } } };
  const r = await s.request('POST', '/a2a/peers/ledger', { body, headers: { 'a2a-version': '1.0', 'x-agent-token': agent.agent_token } });
  t.equal(r.body.error?.data?.verdict?.status, 'blocked', 'the proxy blocks the wrong invoice');
  const mine = (await s.request('GET', `/a2a/decisions?sender=${encodeURIComponent(agent.agent_id)}`, { headers: bearer(a.token) })).body.decisions;
  t.match(mine, [{ sender: agent.agent_id, receiver: 'ledger', status: 'blocked', engine: 'finance_guard', org_id: a.user.org_id }], 'recorded for its organisation');
  t.same((await s.request('GET', `/a2a/decisions?sender=${encodeURIComponent(agent.agent_id)}`, { headers: bearer(b.token) })).body.decisions, [], 'not for another');
  t.equal((await s.request('GET', '/a2a/decisions?limit=1&limit=2', { headers: bearer(a.token) })).status, 400, 'a query member named twice is refused');
});
