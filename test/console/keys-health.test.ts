import t, { type Test } from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import audit from '../../plugins/audit/index.js';
import consolePlugin from '../../plugins/console/index.js';
import { startServer } from '../helpers/server.js';
import { bearer, createKey, signup } from '../helpers/tenancy.js';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser.js';

/**
 * Issue 41, the keys and health views in a real browser: sign-in by keyboard alone, create, rotate
 * and revoke keys through the page with the API's answers checked after each, another
 * organisation's user seeing none of them, the probes and the OpenAPI reference, and a phone-sized
 * viewport without horizontal scrolling.
 */
declare const window: any;

const PASSWORD = 'correct horse battery';
const s = await startServer({ plugins: [health, auth, audit, consolePlugin], config: { auth: { anonymous_rate_per_minute: 1000 } } });
t.teardown(() => s.close());
const a = await signup(s, { password: PASSWORD });
const b = await signup(s, { password: PASSWORD });
const aAdmin = await createKey(s, a.token, { name: 'admin', scopes: ['verify:read', 'attestation:read', 'agent:write', 'admin:all'] });
const browser = await launchBrowser(t);
const shots = screenshotDir();
const activeKeys = async (token: string) => (await s.request('GET', '/auth/api-keys', { headers: bearer(token) })).body.keys as Array<{ id: string; name: string }>;

/** Sign-in with the keyboard only: the fields are reachable by Tab and the form submits on Enter. */
async function signInByKeyboard(t: Test, page: Page, email: string, view: string): Promise<void> {
  await page.goto(`${s.url}/console/#/${view}`);
  await page.getByLabel('Email').waitFor();
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate(() => window.document.activeElement?.id), 'email', 'Tab reaches the email field first');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByTestId('whoami').waitFor();
}

t.test('keys: create, rotate and revoke through the page; the API agrees; another organisation sees none', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInByKeyboard(t, page, a.user.email, 'keys');
  await page.getByTestId('keys-table').waitFor();
  t.same(await seriousViolations(page), [], 'keys view: no serious accessibility violation');

  await page.getByLabel('Name').fill('<b>ci</b>');
  await page.getByRole('button', { name: 'Create key' }).click();
  t.match(await page.getByTestId('key-shown').textContent(), /^new key <b>ci<\/b>: svc_live_[\w-]{43} — shown only now/, 'the new key is shown once, its name as text');
  const created = (await activeKeys(a.token)).find((k) => k.name === '<b>ci</b>');
  t.ok(created, 'the API lists it');

  await page.getByRole('textbox', { name: 'API key' }).fill(aAdmin.key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByTestId('key-state').waitFor();
  await page.getByRole('button', { name: 'Rotate <b>ci</b>' }).click();
  t.match(await page.getByTestId('key-shown').textContent(), /^successor of <b>ci<\/b>: svc_live_/);
  const after = await activeKeys(a.token);
  t.notOk(after.some((k) => k.id === created!.id), 'the rotated key is revoked');
  const successor = after.find((k) => k.name === '<b>ci</b>');
  t.ok(successor, 'its successor is active');

  await page.getByRole('button', { name: 'Revoke <b>ci</b>' }).click();
  t.match(await page.getByTestId('keys-msg').textContent(), /^revoked <b>ci<\/b>$/);
  t.notOk((await activeKeys(a.token)).some((k) => k.name === '<b>ci</b>'), 'the API no longer lists it');
  await page.screenshot({ path: join(shots, 'keys.png'), fullPage: true });

  const other = await browser.newContext();
  t.teardown(() => other.close());
  const page2 = await other.newPage();
  await signInByKeyboard(t, page2, b.user.email, 'keys');
  await page2.getByTestId('keys-table').waitFor();
  t.equal(await page2.getByTestId('key-row').count(), 0, "another organisation's user sees none of its keys");
  await page2.getByRole('textbox', { name: 'API key' }).fill(aAdmin.key);
  await page2.getByRole('button', { name: 'Use key' }).click();
  t.same(await page2.getByTestId('key-row').allTextContents(), [], "and pasting that organisation's key shows none either (the list is the JWT's)");
  t.ok((await activeKeys(a.token)).some((k) => k.id === aAdmin.id), 'the admin key is untouched');
});

t.test('health and the API reference; a phone-sized screen does not scroll sideways', async (t) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInByKeyboard(t, page, a.user.email, 'health');
  await page.waitForFunction(() => window.document.querySelector('[data-testid="readiness"]')?.textContent !== '…');
  t.equal(await page.getByTestId('readiness').textContent(), 'ready');
  await page.getByTestId('openapi-table').waitFor();
  const doc = (await s.request('GET', '/openapi.json')).body;
  const count = Object.values(doc.paths as Record<string, object>).reduce((n, m) => n + Object.keys(m).length, 0);
  t.equal(await page.getByTestId('op-row').count(), count, 'every operation of /openapi.json is listed');
  await page.getByLabel('Filter operations').fill('api-keys');
  await page.waitForFunction((n: number) => window.document.querySelectorAll('[data-testid="op-row"]').length < n, count);
  const rows = await page.getByTestId('op-row').allTextContents();
  t.ok(rows.length > 0 && rows.every((r) => r.includes('api-keys')), 'the filter narrows the list');
  t.same(await seriousViolations(page), [], 'health view: no serious accessibility violation');
  t.ok(await page.evaluate(() => window.document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal scrolling at 390 px');
  await page.screenshot({ path: join(shots, 'health-phone.png'), fullPage: true });
});
