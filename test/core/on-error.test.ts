import t from 'tap';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { Outcome, Plugin, RequestContext } from '../../core/types.js';

/**
 * A refusal goes through the reply phase: every request that matched a route and was refused by a
 * thrown error is shown to the phase's fns (with the principal when authentication had succeeded)
 * before its problem is written; a fn can add headers but can neither replace nor swallow the refusal.
 */
interface Seen {
  route: string;
  status: number;
  code: string;
  problemStatus: number;
  principal: string | null;
}

function observer(seen: Seen[], o: { fail?: boolean } = {}): Plugin {
  return {
    name: 'observer',
    register(app) {
      app.route({
        method: 'POST',
        path: '/t/refuse',
        auth: 'apiKey',
        scope: 'verify:read',
        handler() {
          throw new HttpError(Problems.forbidden, 'refused by the handler', { constraintId: 'test.refused' });
        },
      });
      app.route({
        method: 'POST',
        path: '/t/crash',
        auth: 'apiKey',
        scope: 'verify:read',
        handler() {
          throw new Error('secret internal text');
        },
      });
      app.route({ method: 'GET', path: '/t/ok', auth: 'none', handler: () => ({ body: { ok: true } }) });
      app.route({ method: 'GET', path: '/t/admin', auth: 'apiKey', scope: 'admin:all', handler: () => ({ body: { ok: true } }) });
      app.phase('reply', async (ctx: RequestContext, outcome: Outcome) => {
        if (outcome.kind !== 'refused') return;
        const { error: err, problem } = outcome;
        await new Promise((r) => setImmediate(r)); // awaited: the reply waits for an async hook
        seen.push({
          route: ctx.routePath,
          status: err.status,
          code: err.code,
          problemStatus: problem.status ?? 0,
          principal: ctx.principal?.keyId ?? null,
        });
        ctx.responseHeaders['x-seen'] = String(seen.length);
        if (o.fail) throw new Error('the hook itself failed');
      });
    },
  };
}

t.test('the reply phase sees refusals with their principal, before the problem is written', async (t) => {
  const seen: Seen[] = [];
  const s = await startServer({ plugins: [testAuthPlugin(['verify:read']), observer(seen)] });
  t.teardown(() => s.close());

  const r = await s.request('POST', '/t/refuse', { apiKey: TEST_API_KEY, body: {} });
  t.equal(r.status, 403);
  t.equal(r.body.constraint_id, 'test.refused');
  t.equal(r.headers.get('x-seen'), '1', 'the hook ran (and was awaited) before the response was written');
  t.same(seen[0], { route: '/t/refuse', status: 403, code: 'forbidden', problemStatus: 403, principal: 'key-test' });

  const bad = await s.request('POST', '/t/refuse', { apiKey: TEST_API_KEY, raw: '{not json', headers: { 'content-type': 'application/json' } });
  t.equal(bad.status, 400);
  t.equal(seen[1].code, 'invalid_json', 'body errors reach the hook too');

  const crash = await s.request('POST', '/t/crash', { apiKey: TEST_API_KEY, body: {} });
  t.equal(crash.status, 500);
  t.notMatch(crash.text, /secret internal text/);
  t.same(seen[2], { route: '/t/crash', status: 500, code: 'internal_error', problemStatus: 500, principal: 'key-test' }, 'the hook sees the mapped problem, never the raw exception');

  const anon = await s.request('POST', '/t/refuse', { body: {} });
  t.equal(anon.status, 401);
  t.same(seen[3], { route: '/t/refuse', status: 401, code: 'unauthorized', problemStatus: 401, principal: null }, 'refused before authentication: no principal');

  const scope = await s.request('GET', '/t/admin', { apiKey: TEST_API_KEY });
  t.equal(scope.status, 403);
  t.equal(seen[4].principal, 'key-test', 'a scope refusal comes after authentication: the principal is known');

  t.equal((await s.request('GET', '/t/ok')).status, 200);
  t.equal((await s.request('GET', '/nope')).status, 404);
  t.equal(seen.length, 5, 'successes and unmatched routes are not errors of a route');
});

t.test('a failing reply-phase fn cannot swallow or replace the refusal', async (t) => {
  const seen: Seen[] = [];
  const s = await startServer({ plugins: [testAuthPlugin(['verify:read']), observer(seen, { fail: true })] });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/t/refuse', { apiKey: TEST_API_KEY, body: {} });
  t.equal(r.status, 403, 'the original problem, not a 500 from the hook');
  t.equal(r.body.code, 'forbidden');
  t.equal(seen.length, 1);
});

t.test('a phase no plugin attaches to is refused at registration', async (t) => {
  for (const name of ['onWhatever', 'authenticate', 'handler', '__proto__']) {
    const bad: Plugin = {
      name: 'bad-phase',
      register(app) {
        (app.phase as (n: string, f: () => void) => void)(name, () => undefined);
      },
    };
    await t.rejects(startServer({ plugins: [bad] }), new RegExp(`no plugin attaches to the phase ${name}`), name);
  }
});
