import t from 'tap';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { startServer, type TestServer } from '../helpers/server.js';
import type { RouteDef, Scope } from '../../core/types.js';
import { bearer, createKey, signup } from '../helpers/tenancy.js';

// one server for the file: the first test reads its route table, the second calls every route;
// no request reaches an engine (each is refused for its credential first), so none is warmed
let builtins: Promise<TestServer> | undefined;
function builtinServer(): Promise<TestServer> {
  return (builtins ??= startServer({ plugins: builtinPlugins, warmEngines: false, config: { auth: { anonymous_rate_per_minute: 1000 } } }).then((s) => {
    t.teardown(() => s.close());
    return s;
  }));
}

/**
 * Table-driven over EVERY route the built-in plugins register: each declares how it authenticates,
 * the anonymous ones are exactly the spec's list, and each protected route refuses a missing
 * credential and a credential of the wrong kind or scope. New plugins are covered automatically.
 */
// The spec's anonymous list, plus probes a sidecar needs unauthenticated (Kubernetes liveness and
// readiness, and the gateway's own health, which reveals nothing but status and version).
const ANONYMOUS = new Set([
  'GET /health',
  'GET /healthz',
  'GET /openapi.json',
  'GET /readyz',
  'GET /health/identity',
  'GET /a2a/health',
  'POST /auth/signup',
  'POST /auth/signin',
  'GET /.well-known/jwks.json',
  // decisions §5: badges carry no tenant data and are embedded as <img>, which sends no headers;
  // a stored attestation's badge is authorised by its signed, expiring URL instead of a key
  'GET /badge/verified',
  'GET /badge/status/:status',
  'GET /badge/custom',
  'GET /badge/attestation/:attestation_id',
  // the console's static page and bundle (docs/console.md): every request the page makes is authenticated
  'GET /console',
  'GET /console/:asset',
]);

/** decisions §5: the scope a route family must declare (first match wins). */
const EXPECTED_SCOPE: Array<[RegExp, string]> = [
  [/^POST \/admin\/keys\/rotate$/, 'authenticated'],
  [/^POST \/attestation\/:id\/revoke$/, 'admin:all'],
  [/^\w+ \/admin\//, 'admin:all'],
  [/^\w+ \/(verify|verification-context|badge)(\/|$)/, 'verify:read'],
  [/^GET \/logs$/, 'verify:read'],
  [/^GET \/metrics\/:org_id$/, 'verify:read'],
  [/^\w+ \/attestation(\/|$)/, 'attestation:read'],
  [/^POST \/agents\/register$/, 'agent:write'],
];

const ALL: Scope[] = ['verify:read', 'agent:write', 'attestation:read', 'admin:all'];

/**
 * User (JWT) routes an API key may also call, and the one-scope keys each admits: the route's own
 * scope is `authenticated` (it binds JWT users too), so the handler checks the key's. A new route of
 * this kind must be added here, or the test fails.
 */
const KEY_SCOPES_OF_USER_ROUTES: Record<string, Scope[]> = {
  // scripts hold keys, not sessions: an operator's export key
  'GET /audit/export': ['admin:all'],
  // the A2A read views: whoever may send A2A traffic may read its decisions (issue 41)
  'GET /a2a/peers': ['verify:read', 'admin:all'],
  'GET /a2a/decisions': ['verify:read', 'admin:all'],
  'GET /a2a/trust': ['verify:read', 'admin:all'],
};

function concretePath(path: string): string {
  // `::` is find-my-way's literal colon (`/message::send`), not a parameter
  return path.replace(/(?<!:):([A-Za-z0-9_]+)/g, 'x').replace(/::/g, ':');
}

t.test('every built-in route declares its authentication, and the scope the decisions require', async (t) => {
  const s = await builtinServer();
  const routes = s.kernel.routes;
  t.ok(routes.length > 10, `${routes.length} routes`);
  for (const r of routes) {
    const id = `${r.method} ${r.path}`;
    t.ok(['none', 'apiKey', 'jwt', 'agentToken'].includes(r.auth), `${id} declares an auth kind`);
    if (r.auth === 'none') t.ok(ANONYMOUS.has(id), `${id} is anonymous only if the spec says so`);
    if (r.auth === 'apiKey') t.ok(r.scope, `${id} declares a scope`);
    const rule = EXPECTED_SCOPE.find(([re]) => re.test(id));
    if (rule && r.auth === 'apiKey') t.equal(r.scope, rule[1], `${id} scope`);
  }
  for (const a of ['POST /auth/api-keys', 'GET /auth/api-keys', 'DELETE /auth/api-keys/:key_id', 'GET /auth/me', 'GET /audit/logs', 'GET /audit/export']) {
    t.equal(routes.find((r) => `${r.method} ${r.path}` === a)?.auth, 'jwt', `${a} needs a JWT`);
  }
});

t.test('each protected route rejects a missing credential and a wrong-scope credential', async (t) => {
  const s = await builtinServer();
  const acct = await signup(s);
  // one key per scope, each lacking the others
  const keys = new Map<Scope, string>();
  for (const sc of ALL) keys.set(sc, (await createKey(s, acct.token, { name: sc, scopes: [sc] })).key);
  const allButAdmin = (await createKey(s, acct.token, { name: 'most', scopes: ['verify:read', 'agent:write', 'attestation:read'] })).key;

  const call = (r: RouteDef, headers: Record<string, string>) =>
    s.request(r.method, concretePath(r.path), { headers, body: ['POST', 'PUT', 'PATCH'].includes(r.method) ? {} : undefined });

  for (const r of s.kernel.routes) {
    if (r.auth === 'none') continue;
    const id = `${r.method} ${r.path}`;
    const missing = await call(r, {});
    t.equal(missing.status, 401, `${id}: no credential → 401`);
    if (r.auth === 'apiKey') {
      if (r.scope && r.scope !== 'authenticated') {
        // a working key that lacks exactly this scope (admin:all would grant it, so it is never the wrong one)
        const wrong = r.scope === 'admin:all' ? allButAdmin : keys.get(ALL.find((x) => x !== r.scope && x !== 'admin:all')!)!;
        const res = await call(r, { 'x-api-key': wrong });
        t.equal(res.status, 403, `${id}: key without ${r.scope} → 403`);
      }
      t.equal((await call(r, bearer(acct.token))).status, 401, `${id}: a JWT is not an API key`);
    } else if (r.auth === 'jwt' && r.authAlso?.includes('apiKey')) {
      // a user route a key may also call: exactly the keys KEY_SCOPES_OF_USER_ROUTES names pass
      const admits = KEY_SCOPES_OF_USER_ROUTES[id];
      if (!t.ok(admits, `${id}: the keys it admits are listed in this test`)) continue;
      for (const sc of ALL) {
        const expected = admits.includes(sc) ? 200 : 403;
        t.equal((await call(r, { 'x-api-key': keys.get(sc)! })).status, expected, `${id}: API key with only ${sc} → ${expected}`);
      }
    } else {
      // a JWT or agent-token route given an API key (wrong kind of credential)
      t.equal((await call(r, { 'x-api-key': keys.get('admin:all')! })).status, 401, `${id}: API key → 401`);
    }
  }
});
