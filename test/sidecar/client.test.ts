import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { ProofgateClient, ProofgateError, toVerificationContext, verifyA2AVerdict } from '../../packages/client/src/index.js';
import { generateClient, TYPES_DIR } from '../../sidecar/client/generate.js';
import { openApiPath } from '../../core/http/openapi.js';
import { startServer, type TestServer, untilReady } from '../helpers/server.js';

// one sidecar for the file: the generated-client check reads its route table, the round trips call it
let sidecar: Promise<TestServer> | undefined;
function builtinServer(): Promise<TestServer> {
  return (sidecar ??= startServer({ plugins: builtinPlugins, config: { auth: { anonymous_rate_per_minute: 10_000 } } }).then((s) => {
    t.teardown(() => s.close());
    return s;
  }));
}

const REPO = (f: string) => readFileSync(fileURLToPath(new URL(`../../../${f}`, import.meta.url)), 'utf8');
const SRC = (f: string) => REPO(`packages/client/src/${f}`);

t.test('the committed client is what the route table generates (npm run gen:client)', async (t) => {
  const s = await builtinServer();
  const out = await generateClient(s.kernel.openapi());
  t.equal(SRC('types.gen.ts'), out.types, 'types.gen.ts is current');
  // the group files live in schemas/gen/, shared with the server (sidecar/client/generate.ts)
  const committed = readdirSync(fileURLToPath(new URL(`../../../${TYPES_DIR}`, import.meta.url))).filter((f) => f.endsWith('.ts')).sort();
  t.same(committed, [...Object.keys(out.typeFiles).map((g) => `${g}.gen.ts`), 'index.ts'].sort(), 'the same group files and their index, none stale');
  t.equal(REPO(`${TYPES_DIR}index.ts`), out.typesIndex, `${TYPES_DIR}index.ts is current`);
  for (const [group, text] of Object.entries(out.typeFiles)) t.equal(REPO(`${TYPES_DIR}${group}.gen.ts`), text, `${TYPES_DIR}${group}.gen.ts is current`);
  t.notOk(existsSync(fileURLToPath(new URL('../../../packages/client/src/types', import.meta.url))), 'no second copy in the client package');
  t.equal(SRC('client.gen.ts'), out.client, 'client.gen.ts is current');
  for (const r of s.kernel.routes) {
    const name = (s.kernel.openapi() as any).paths[`/v1${openApiPath(r.path)}`][r.method.toLowerCase()].operationId;
    t.ok(typeof (ProofgateClient.prototype as any)[name] === 'function', `client method ${name} for ${r.method} ${r.path}`);
  }
});

t.test('round trips against a started sidecar, one per route family', async (t) => {
  const s = await builtinServer();
  await untilReady(s.kernel);
  const anon = new ProofgateClient({ baseUrl: s.url });

  // health (no credential)
  t.equal((await anon.getHealthz()).status, 'ok');
  const identity = await anon.getHealthIdentity();
  t.equal(identity.service, 'proofgate');

  // auth: sign-up (public), then a key made with the user's JWT
  const email = `client-${process.pid}-${Date.now()}@example.com`;
  const session = await anon.postAuthSignup({ email, password: 'correct horse battery', organization_name: `Client Org ${process.pid} ${Date.now()}` });
  t.ok(session.access_token);
  const user = new ProofgateClient({ baseUrl: s.url, token: session.access_token });
  const created = await user.postAuthApiKeys({ name: 'ci', scopes: ['verify:read', 'attestation:read', 'admin:all'] });
  t.match(created.key, /^svc_live_/);
  const listed = await user.getAuthApiKeys();
  t.ok(JSON.stringify(listed).includes(created.id), 'the new key is listed');
  const c = new ProofgateClient({ baseUrl: s.url, apiKey: created.key });

  // engines
  const math = await c.postVerifyMath({ expression: '2 + 2 = 4' });
  t.equal(math.status, 'VERIFIED', JSON.stringify(math).slice(0, 500));
  t.match(math.proof_ref, /^sha256:/);
  const code = await c.postVerifyCode({ code: 'import os\nos.system(x)\n', language: 'python' });
  t.equal(code.admission, 'BLOCKED');
  const sql = await c.postVerifySql({ query: 'SELECT 1', schema_ddl: 'CREATE TABLE t (id INTEGER)' });
  t.equal(sql.status, 'VERIFIED');
  const logic = await c.postVerifyLogic({ query: '(AND (GT x 5) (LT x 3))' } as never);
  t.ok(['SAT', 'UNSAT', 'BLOCKED', 'ERROR'].includes(String((logic as { status: string }).status)));

  // attestation of the VERIFIED math result
  t.ok(math.attestation, 'a VERIFIED result carries its attestation');
  const att = await c.getAttestationById({ id: String(math.attestation_id) });
  t.equal((att as { attestation_id?: string; id?: string }).attestation_id ?? (att as { id?: string }).id, math.attestation_id);
  const checked = await c.postAttestationVerify({ jwt: math.attestation });
  t.equal((checked as { valid: boolean }).valid, true);

  // verification context: the service applies the trust gate
  const vc = await toVerificationContext(c, math as never, { query: '2 + 2 = 4', verifier: 'proofgate-math' });
  t.equal(vc.spec_version, '1.0');
  t.equal(vc.verdict, 'VERIFIED', 'a VERIFIED verdict with its attestation stays VERIFIED');
  const demoted = await toVerificationContext(c, { ...(math as object), attestation: null } as never, { query: '2 + 2 = 4' });
  t.equal(demoted.verdict, 'UNVERIFIABLE', 'without the token it is demoted');

  // batch
  const batch = await c.postVerifyBatch({ items: [{ type: 'math', query: '1 + 1 = 2' }] } as never);
  t.ok((batch as { job_id?: string }).job_id);

  // badges: SVG text
  const svg = await c.getBadgeStatusByStatus({ status: 'verified' });
  t.match(svg, /^<svg/);

  // audit / logs
  const logs = await c.getLogs();
  t.ok(logs, 'logs answer');

  // A2A: the verdict JWT checks against the JWKS, fetched and offline
  const msg = { sender_agent_id: 'agent-a', receiver_agent_id: 'agent-b', payload_type: 'general', payload: { text: 'hello' }, timestamp: new Date().toISOString() };
  const verdict = await c.postA2aIntercept(msg as never);
  const jwt = String(verdict.attestation_jwt);
  const online = await verifyA2AVerdict(jwt, { jwksUrl: `${s.url}/.well-known/jwks.json`, payload: msg.payload });
  t.equal(online.valid, true, JSON.stringify(online));
  // a route that also takes an agent token: a client holding only that token sends it
  const registrar = new ProofgateClient({ baseUrl: s.url, apiKey: (await user.postAuthApiKeys({ name: 'agents', scopes: ['agent:write'] })).key });
  const agent = await registrar.postAgentsRegister({ name: 'client-agent' });
  const asAgent = new ProofgateClient({ baseUrl: s.url, agentToken: agent.agent_token });
  const own = await asAgent.postA2aIntercept({ ...msg, sender_agent_id: agent.agent_id } as never).catch((e) => e);
  // authenticated and judged (this harness's allowlist then decides), not refused for want of an API key
  t.match(own, { status: String, audit_trace_id: String }, `a verdict for the agent's own message: ${String(own?.message ?? '')}`);
  const jwks = await c.getWellKnownJwksJson();
  const offline = await verifyA2AVerdict(jwt, { jwks: jwks as never, payload: msg.payload });
  t.equal(offline.valid, true, 'offline with a given JWKS');
  const tampered = await verifyA2AVerdict(jwt, { jwks: jwks as never, payload: { text: 'hellO' } });
  t.equal(tampered.valid, false, 'another payload does not verify');

  // errors are problem+json with the status
  const bad = await c.postVerifyMath({ expression: '' }).catch((e) => e);
  t.ok(bad instanceof ProofgateError);
  t.equal(bad.status, 400);
  t.ok(Array.isArray(bad.problem.errors));
  const wrongKey = new ProofgateClient({ baseUrl: s.url, apiKey: 'svc_live_' + 'x'.repeat(43) });
  const denied = await wrongKey.postVerifyMath({ expression: '1 = 1' }).catch((e) => e);
  t.equal(denied.status, 401);
  t.throws(() => new ProofgateClient({ baseUrl: 'ftp://x' }), TypeError);
  await t.rejects(anon.postVerifyMath({ expression: '1 = 1' }), /needs an API key/, 'a missing credential is caught before sending');
});

t.test('retries: only 429 and 503, waiting what Retry-After says', async (t) => {
  const plan: Array<{ status: number; headers?: Record<string, string> }> = [];
  let hits = 0;
  const fake = createServer((req, res) => {
    hits++;
    const next = plan.shift() ?? { status: 200 };
    const body = next.status === 200 ? JSON.stringify({ status: 'VERIFIED' }) : JSON.stringify({ title: 'x', status: next.status });
    res.writeHead(next.status, { 'content-type': next.status === 200 ? 'application/json' : 'application/problem+json', ...(next.headers ?? {}) });
    res.end(body);
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  t.teardown(() => fake.close());
  const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const waits: number[] = [];
  const c = new ProofgateClient({ baseUrl: url, apiKey: 'k', retries: 3, sleep: async (ms) => void waits.push(ms) });

  plan.push({ status: 429, headers: { 'retry-after': '2' } }, { status: 503, headers: { 'retry-after': '1' } });
  const ok = await c.postVerifyMath({ expression: '1 = 1' });
  t.equal(ok.status, 'VERIFIED');
  t.same(waits, [2000, 1000], 'waited what Retry-After said');
  t.equal(hits, 3);

  hits = 0;
  waits.length = 0;
  plan.push({ status: 500 });
  const e500 = await c.postVerifyMath({ expression: '1 = 1' }).catch((e) => e);
  t.equal(e500.status, 500, '500 is not retried');
  t.equal(hits, 1);

  hits = 0;
  plan.push({ status: 400 });
  t.equal((await c.postVerifyMath({ expression: '1 = 1' }).catch((e) => e)).status, 400, '400 is not retried');
  t.equal(hits, 1);

  hits = 0;
  plan.push({ status: 429, headers: { 'retry-after': '3600' } });
  const long = await c.postVerifyMath({ expression: '1 = 1' }).catch((e) => e);
  t.equal(long.status, 429, 'a wait longer than maxRetryWaitMs is returned, not slept');
  t.equal(hits, 1);

  hits = 0;
  plan.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
  const exhausted = await c.postVerifyMath({ expression: '1 = 1' }).catch((e) => e);
  t.equal(exhausted.status, 503, 'gives up after the configured retries');
  t.equal(hits, 4);
});

t.test('timeoutMs bounds the whole answer, not only the gaps between its bytes', async (t) => {
  // a server that never finishes: it sends the headers, then a byte whenever the client is about to give up on a gap
  const timers = new Set<NodeJS.Timeout>();
  const dripping = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"status":');
    const timer = setInterval(() => res.write(' '), 50);
    timers.add(timer);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((r) => dripping.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const timer of timers) clearInterval(timer);
    dripping.closeAllConnections();
    dripping.close();
  });
  const c = new ProofgateClient({ baseUrl: `http://127.0.0.1:${(dripping.address() as AddressInfo).port}`, apiKey: 'k', timeoutMs: 300 });
  // the bound only decides how long a failing run waits: a passing one rejects after ~300 ms
  let guard: NodeJS.Timeout | undefined;
  const hung = new Promise<string>((r) => (guard = setTimeout(() => r('still waiting after 10 s'), 10_000)));
  const err = await Promise.race([c.postVerifyMath({ expression: '1 = 1' }).catch((e) => e), hung]);
  clearTimeout(guard);
  t.match(err?.message, /no complete answer from POST \/verify\/math within 300 ms/, String(err));
  const own = new AbortController();
  own.abort();
  const aborted = await c.postVerifyMath({ expression: '1 = 1' }, { signal: own.signal }).catch((e) => e);
  t.ok(aborted instanceof Error && !/within/.test(aborted.message), "the caller's own abort is not reported as the deadline");
});

t.test('a path parameter that is a dot segment is refused before sending, never resolved to another route', async (t) => {
  const seen: string[] = [];
  const fake = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  t.teardown(() => fake.close());
  const c = new ProofgateClient({ baseUrl: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, apiKey: 'k' });
  await t.rejects(c.getAttestationById({ id: '..' }), TypeError, "'..' would be GET /v1/");
  await t.rejects(c.getVerifyBatchByJobId({ job_id: '.' }), TypeError, "'.' would be /v1/verify/batch/");
  await t.rejects(c.postExtAuthzByPath({ path: '../verify/code' }, {} as never), TypeError, 'a wildcard tail climbing to /v1/verify/code');
  await t.rejects(c.postExtAuthzByPath({ path: 'a/./b' }, {} as never), TypeError);
  t.same(seen, [], 'nothing was sent');
  await c.postExtAuthzByPath({ path: 'x/.hidden/a..b/...' }, {} as never);
  await c.getAttestationById({ id: 'a/..' });
  t.same(seen, ['POST /v1/ext-authz/x/.hidden/a..b/...', 'GET /v1/attestation/a%2F..'], 'dots inside a segment, and an encoded slash, are sent as they are');
});
