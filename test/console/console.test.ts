import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import ops from '../../plugins/ops/index.js';
import consolePlugin, { CONSOLE_CSP, consoleEnabled } from '../../plugins/console/index.js';
import { loadAssets } from '../../plugins/console/assets.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeFileSync } from 'node:fs';
import { loadServiceConfig } from '../../sidecar/config.js';
import { startServer, TEST_SECRETS } from '../helpers/server.js';
import { bearer, registerAgent, signup, createKey } from '../helpers/tenancy.js';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser.js';
import { connectClient, startUpstream } from '../mcp/fixtures.js';
import { settingsIn } from '../../core/plugin/settings.js';
import { consoleSettings } from '../../plugins/console/settings.js';
import type { Config } from '../../core/config.js';

/**
 * Issue 41 in a real browser: the console is served by the sidecar, signs in with an existing
 * account, and approves a changed MCP tool through the same admin route the CLI uses. Hostile: a
 * tool description carrying markup, another organisation's user, inline script under the CSP.
 */
// what page.evaluate callbacks read runs in the browser, whose globals the Node build does not declare
declare const window: any, document: any, localStorage: any, sessionStorage: any;

const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit, ops, consolePlugin];
const PASSWORD = 'correct horse battery';
const XSS = 'Weather <img src=x onerror="window.__xss=1"><script>window.__xss=2</script> for a city.';

const up = await startUpstream();
t.teardown(() => up.close());
// sign up first, then restart with the first owner as the operator (pins are an operator's right)
const first = await startServer({ plugins: [health, auth], config: { auth: { anonymous_rate_per_minute: 1000 } }, keepData: true });
const op = await signup(first, { password: PASSWORD });
const other = await signup(first, { password: PASSWORD });
const opKey = await createKey(first, op.token, { name: 'main', scopes: ['verify:read', 'agent:write', 'admin:all'] });
await first.close();
const s = await startServer({
  plugins: PLUGINS,
  dataDir: first.dataDir,
  config: {
    auth: { anonymous_rate_per_minute: 1000, operator_user_ids: [op.user.id] },
    mcp: { servers: { demo: { url: up.url } }, pin_on_first_use: true },
  },
});
t.teardown(async () => {
  await s.close();
  rmSync(first.dataDir, { recursive: true, force: true });
});
const browser = await launchBrowser(t);
const shots = screenshotDir();

async function signIn(page: Page, email: string): Promise<void> {
  const res = await page.goto(`${s.url}/console/#/pins`);
  if (!res || res.status() !== 200) throw new Error(`console page: ${res?.status()}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
}

t.test('the switch: on in server mode, off in sidecar mode, SVC_CONSOLE_ENABLED overrides either', async (t) => {
  const enabled = (c: Config) => consoleEnabled(settingsIn(c, consoleSettings), c.mode);
  const cfg = (env: Record<string, string>) => loadServiceConfig({ env: { SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key, SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret, ...env }, file: null });
  t.equal(enabled(cfg({})), true, 'server mode');
  t.equal(enabled(cfg({ SVC_MODE: 'sidecar', SVC_BOOTSTRAP_FILE: '/nonexistent.json' })), false, 'sidecar mode');
  t.equal(enabled(cfg({ SVC_MODE: 'sidecar', SVC_BOOTSTRAP_FILE: '/nonexistent.json', SVC_CONSOLE_ENABLED: 'true' })), true);
  t.equal(enabled(cfg({ SVC_CONSOLE_ENABLED: 'false' })), false);
  const off = await startServer({ plugins: [health, consolePlugin], config: { console: { enabled: false } }, warmEngines: false });
  t.teardown(() => off.close());
  t.equal((await off.request('GET', '/console/')).status, 404, 'switched off: nothing served');
  t.equal((await off.request('GET', '/console/app.js')).status, 404);
  t.equal(loadAssets('/nonexistent/console/'), null, 'an unbuilt bundle is no table (the routes answer 503)');
  const partial = tempDir(t, 'pg-console-');
  writeFileSync(join(partial, 'app.js'), '');
  t.equal(loadAssets(partial + '/'), null, 'nor is one without its page');
  writeFileSync(join(partial, 'index.html'), '<!doctype html>');
  writeFileSync(join(partial, 'notes.txt'), 'x');
  t.same([...loadAssets(partial + '/')!.keys()].sort(), ['app.js', 'index.html'], 'only the served types are read');
});

t.test('static files only, under a strict CSP, from a fixed table', async (t) => {
  const page = await s.request('GET', '/console/');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.equal(page.headers.get('content-security-policy'), CONSOLE_CSP);
  t.match(CONSOLE_CSP, /script-src 'self'(;|$)/, 'no unsafe-inline, no other origin');
  t.notMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|\*/);
  t.equal(page.headers.get('x-frame-options'), 'DENY');
  t.equal(page.headers.get('set-cookie'), null, 'no cookie');
  t.notMatch(page.text, /<script>|<script [^>]*>[^<]/, 'no inline script in the page');
  t.notMatch(page.text, /https?:\/\//, 'nothing from another origin');
  const js = await s.request('GET', '/console/app.js');
  t.equal(js.status, 200);
  t.match(js.headers.get('content-type'), /^text\/javascript/);
  t.notMatch(js.text, /localStorage|sessionStorage|document\.cookie/, 'the bundle keeps no credential in storage');
  for (const p of ['/console/..%2Fpackage.json', '/console/%2e%2e/%2e%2e/package.json', '/console/index.ts', '/console/missing.js']) {
    t.ok([400, 404].includes((await s.request('GET', p)).status), `${p} is refused`);
  }
});

t.test('an operator signs in, sees the changed tool as text, approves it, and the call is allowed', async (t) => {
  const agent = await registerAgent(s, opKey.key, { name: 'console-agent' });
  const { client } = await connectClient(`${s.url}/mcp/demo`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  await client.listTools();
  up.state.weatherDescription = XSS;
  t.notOk((await client.listTools()).tools.some((x) => x.name === 'get_weather'), 'the changed definition is withheld');
  const denied = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  t.equal(denied.isError, true, 'and its calls denied');

  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  const violations: string[] = [];
  await page.exposeFunction('__cspViolation', (d: string) => void violations.push(d));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e: any) => window.__cspViolation(e.violatedDirective)));
  await signIn(page, op.user.email);
  t.match(await page.getByTestId('whoami').textContent(), op.user.email);
  await page.getByTestId('create-key').click();
  const card = page.getByTestId('tool-get_weather');
  await card.waitFor();
  t.equal(await card.getByTestId('tool-status').textContent(), 'changed');
  t.equal(await card.getByTestId('tool-description').textContent(), XSS, 'the description is shown as its text');
  t.equal(await card.locator('img').count(), 0, 'its markup made no element');
  const diff = card.getByTestId('pin-diff');
  t.match(await diff.locator('.diff-del').allTextContents(), [/Current weather for a city\./], 'the diff shows the approved description removed');
  t.match(await diff.locator('.diff-add').allTextContents(), [/<img src=x onerror=/], 'and the new one added, as text');
  t.equal(await page.evaluate(() => window.__xss), undefined, 'and ran nothing');
  await page.screenshot({ path: join(shots, 'pins.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'pins view: no serious accessibility violation');

  const poisoned = page.getByTestId('tool-add');
  t.equal(await poisoned.getByTestId('tool-status').textContent(), 'poisoned');
  await poisoned.getByTestId('approve').click();
  t.match(await poisoned.getByTestId('approve-result').textContent(), /mcp_pin_findings/, 'the API refuses a poisoned pin without accept_findings, and the page says so');

  const findings = await card.locator('.findings li').count();
  if (findings > 0) await card.getByLabel('accept the findings').check();
  await card.getByTestId('approve').click();
  t.match(await card.getByTestId('approve-result').textContent(), /^approved /);
  await page.waitForFunction(() => document.querySelector('[data-testid="tool-get_weather"] [data-testid="tool-status"]')?.textContent === 'pinned');

  const tools = await s.request('GET', '/admin/mcp/servers/demo/tools', { apiKey: opKey.key });
  const w = tools.body.tools.find((x: { tool: string }) => x.tool === 'get_weather');
  t.equal(w.status, 'pinned', 'the API shows the approval');
  t.equal(w.pinned_hash, w.hash);
  const ok = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  t.notOk(ok.isError, 'the approved tool is callable');

  t.same(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]), [0, 0, ''], 'no credential kept in storage or cookies');
  t.same(violations, [], 'the page itself trips no CSP directive');
  const inline = await page.evaluate(() => {
    const el = document.createElement('script');
    el.textContent = 'window.__inline = 1';
    document.body.append(el);
    return window.__inline;
  });
  t.equal(inline, undefined, 'the CSP blocks inline script');
  await page.waitForFunction(() => true);
  t.ok(violations.includes('script-src-elem') || violations.includes('script-src'), 'and reports the violation');

  await page.goto(`${s.url}/console/#/orgs`);
  t.equal(await page.getByRole('button', { name: 'Sign in' }).count(), 0, 'a hash change keeps the session');
  await page.getByLabel('Organisation id').fill(other.user.org_id);
  await page.getByRole('textbox', { name: 'Plan' }).fill('pro');
  await page.getByRole('button', { name: 'Apply' }).click();
  t.equal(await page.getByTestId('orgs-plan').textContent(), 'pro', 'an operator sets a plan through PATCH /admin/orgs');
  t.equal((await s.request('GET', '/auth/me', { headers: bearer(other.token) })).body.organization.tier, 'pro', 'and the API shows it');
  await page.screenshot({ path: join(shots, 'orgs.png'), fullPage: true });

  await page.getByTestId('signout').click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  const keys = await s.request('GET', '/auth/api-keys', { headers: bearer(op.token) });
  t.notOk(keys.body.keys.some((k: { name: string }) => k.name === 'console session'), 'the console key is revoked at sign-out');
});

t.test('a user of another organisation sees none of it', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signIn(page, other.user.email);
  await page.getByTestId('create-key').click();
  const err = page.getByTestId('pins-error');
  await err.waitFor();
  t.match(await err.textContent(), /not_operator/, 'the API refuses a tenant admin, and the page shows why');
  t.equal(await page.getByTestId('server-demo').count(), 0, 'no server or tool shown');
  t.equal(await page.getByText('get_weather').count(), 0);
  await page.screenshot({ path: join(shots, 'pins-other-org.png'), fullPage: true });
  await page.getByRole('link', { name: 'Organisations' }).click();
  const before = (await s.request('GET', '/auth/me', { headers: bearer(op.token) })).body.organization.tier;
  await page.getByLabel('Organisation id').fill(op.user.org_id);
  await page.getByRole('textbox', { name: 'Plan' }).fill('unlimited');
  await page.getByRole('button', { name: 'Apply' }).click();
  t.match(await page.getByTestId('orgs-error').textContent(), /HTTP 403/, "a tenant owner cannot change another organisation's plan");
  t.equal((await s.request('GET', '/auth/me', { headers: bearer(op.token) })).body.organization.tier, before, 'nor did it change');
  t.not(before, 'unlimited');
  const wrongPass = await browser.newPage();
  t.teardown(() => wrongPass.close());
  await wrongPass.goto(`${s.url}/console/`);
  await wrongPass.getByLabel('Email').fill(op.user.email);
  await wrongPass.getByLabel('Password').fill('not the password');
  await wrongPass.getByRole('button', { name: 'Sign in' }).click();
  t.match(await wrongPass.getByTestId('signin-error').textContent(), /invalid_credentials/);
});
