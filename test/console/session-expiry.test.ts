import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import consolePlugin from '../../plugins/console/index.js';
import { startServer } from '../helpers/server.js';
import { bearer, signup } from '../helpers/tenancy.js';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser.js';

/**
 * Issue 41: the console's in-memory session ends with its JWT. The page reads `exp` and signs out
 * 30 s before it, revoking the key it created while the token still works; the page's clock is
 * Playwright's, moved forward, so nothing waits. Hostile: a sign-in answer whose token carries no
 * readable expiry is not held.
 */
const PASSWORD = 'correct horse battery';
const TTL = 120;
const s = await startServer({ plugins: [health, auth, consolePlugin], config: { auth: { anonymous_rate_per_minute: 1000, jwt_ttl_seconds: TTL } } });
t.teardown(() => s.close());
const a = await signup(s, { password: PASSWORD });
const browser = await launchBrowser(t);
const shots = screenshotDir();
const consoleKeys = async () => ((await s.request('GET', '/auth/api-keys', { headers: bearer(a.token) })).body.keys as Array<{ name: string }>).filter((k) => k.name === 'console session');

async function signIn(page: Page): Promise<void> {
  await page.goto(`${s.url}/console/#/keys`);
  await page.getByLabel('Email').fill(a.user.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

t.test('the page signs out before the JWT expires and revokes its key', async (t) => {
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  await page.clock.install();
  await signIn(page);
  await page.getByTestId('whoami').waitFor();
  await page.getByTestId('create-key').click();
  await page.getByTestId('key-state').waitFor();
  t.equal((await consoleKeys()).length, 1, 'the console made its key');
  t.match(await page.getByTestId('session-ends').textContent(), /^signs out at /, 'the page says when the session ends');

  await page.clock.fastForward((TTL - 30 - 5) * 1000);
  t.equal(await page.getByTestId('whoami').count(), 1, 'still signed in just before the margin');
  await page.clock.fastForward(10_000);
  await page.getByTestId('signin-notice').waitFor();
  t.equal(await page.getByTestId('signin-notice').textContent(), 'Your session expired: sign in again.');
  t.equal(await page.getByTestId('whoami').count(), 0, 'signed out');
  t.same(await consoleKeys(), [], 'the console key was revoked on the way out');
  t.same(await seriousViolations(page), [], 'the sign-in form with the notice: no serious accessibility violation');
  await page.screenshot({ path: join(shots, 'session-expired.png'), fullPage: true });

  await signIn(page);
  await page.getByTestId('whoami').waitFor();
  t.equal(await page.getByTestId('signin-notice').count(), 0, 'signing in again clears the notice');
});

t.test('a token whose expiry cannot be read is not held', async (t) => {
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  for (const claims of [{ sub: a.user.id }, { sub: a.user.id, exp: 'never' }]) {
    await page.route('**/auth/signin', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ access_token: `${b64({ alg: 'HS256' })}.${b64(claims)}.sig`, token_type: 'bearer' }) }));
    await signIn(page);
    await page.getByTestId('signin-error').waitFor();
    t.match(await page.getByTestId('signin-error').textContent(), /token_without_expiry/, `exp ${JSON.stringify((claims as { exp?: unknown }).exp)}: refused`);
    t.equal(await page.getByTestId('whoami').count(), 0);
    await page.unroute('**/auth/signin');
  }
});

t.test('a browser clock an hour off neither ends the session at once nor stretches it', async (t) => {
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  await page.clock.install({ time: Date.now() + 3_600_000 });
  await signIn(page);
  await page.getByTestId('whoami').waitFor();
  await page.clock.fastForward((TTL - 30 - 5) * 1000);
  t.equal(await page.getByTestId('whoami').count(), 1, 'the lifetime is counted from sign-in, not from the skewed clock');
  await page.clock.fastForward(10_000);
  await page.getByTestId('signin-notice').waitFor();
  t.pass('and it still ends on time');
});

t.test('the server refusing the JWT signs the page out', async (t) => {
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  await signIn(page);
  await page.getByTestId('whoami').waitFor();
  // as the server answers a token it no longer takes (its clock past exp, its key rotated)
  await page.route('**/auth/api-keys', (route) => route.fulfill({ status: 401, contentType: 'application/problem+json', body: JSON.stringify({ code: 'invalid_token', detail: 'token expired' }) }));
  await page.getByRole('link', { name: 'Health and API' }).click();
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByTestId('signin-notice').waitFor();
  t.equal(await page.getByTestId('whoami').count(), 0, 'signed out');
});
