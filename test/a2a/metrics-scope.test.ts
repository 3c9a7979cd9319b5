import t from 'tap';
import type { Plugin, Principal } from '../../core/types.js';
import { HttpError, Problems } from '../../core/errors.js';
import health from '../../plugins/health/index.js';
import a2a from '../../plugins/a2a/index.js';
import { KEY_PEM, message } from '../helpers/a2a.js';
import { startServer } from '../helpers/server.js';
import type { Config } from '../../core/config.js';
import type { A2aSettings } from '../../plugins/a2a/settings.js';

/**
 * GET /a2a/metrics answers with the caller's organisation's counts: on a shared deployment the
 * process-wide numbers told every tenant how much the others sent and how much was blocked.
 */
const KEYS: Record<string, string> = { 'svc_test_key_org_a': 'org-a', 'svc_test_key_org_b': 'org-b' };
const twoOrgs: Plugin = {
  name: 'two-org-auth',
  register(app) {
    app.authenticator(
      'apiKey',
      async (ctx) => {
        const orgId = KEYS[String(ctx.headers['x-api-key'])];
        if (!orgId) throw new HttpError(Problems.unauthorized, 'invalid API key');
        const p: Principal = { kind: 'apiKey', orgId, keyId: `key-${orgId}`, userId: `user-${orgId}`, role: 'owner', scopes: ['verify:read'], tier: 'enterprise' };
        return p;
      },
      (ctx) => ctx.headers['x-api-key'] !== undefined,
    );
  },
};

t.test("an organisation's A2A metrics count its own intercepts only", async (t) => {
  const s = await startServer({
    plugins: [twoOrgs, health, a2a],
    config: { a2a: { deployment_id: 'metrics-scope', signing_key_pem: KEY_PEM, default_allow: true, sender_auth: 'off' } as A2aSettings },
  });
  t.teardown(() => s.close());
  const as = (apiKey: string) => ({ apiKey });
  for (let i = 0; i < 3; i++) t.equal((await s.request('POST', '/a2a/intercept', { body: message({ payload_type: 'general' }), ...as('svc_test_key_org_a') })).status, 200);
  t.equal((await s.request('POST', '/a2a/intercept', { body: message({ payload_type: 'general' }), ...as('svc_test_key_org_b') })).status, 200);
  const a = (await s.request('GET', '/a2a/metrics', as('svc_test_key_org_a'))).body;
  const b = (await s.request('GET', '/a2a/metrics', as('svc_test_key_org_b'))).body;
  t.equal(a.total_intercepts, 3, 'org-a sees its three');
  t.equal(a.engines.passthrough, 3);
  t.equal(b.total_intercepts, 1, "org-b sees its one, not org-a's");
  t.equal(b.engines.passthrough, 1);
  // the operator's scrape still counts the whole process
  const prom = await s.kernel.app.metrics.registry.getSingleMetricAsString('svc_a2a_intercepts_total');
  t.match(prom, /svc_a2a_intercepts_total\{verdict="\w+",engine="passthrough"\} 4/);
});
