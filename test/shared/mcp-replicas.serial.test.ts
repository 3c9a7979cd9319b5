import t from 'tap';
import { testDatabase, type TestDatabase } from '../helpers/pg.js';
import { ownRedis } from '../helpers/redis.js';
import { sharedModeEnv, startReplica } from '../helpers/replica.js';
import { waitFor } from '../helpers/wait.js';
import { startHeaderForwarder, startReferenceServer } from '../mcp/conformance-server.js';
import { expectSamePasses, passed, runSuite } from '../mcp/conformance-suite.js';

/**
 * The MCP relay in shared mode: two replicas (separate processes on one PostgreSQL database and one
 * Redis), and in front of them a forwarder that sends each request of a session to the other replica
 * than its previous one, as a load balancer without affinity may. Every conformance scenario's session
 * is then initialised on one replica and used on the other, step by step: the session binding, the pins of first use, the listings, the
 * stream records a GET resumes and the relist marks have to be in the store, not in a process. Every
 * check the suite passes against the reference server directly must pass through the pair, those of
 * the tools that ask the client with no related request included: the reference server sends such a
 * question on the standalone GET stream, and the suite's client sends its call before its GET, so the
 * replica that gets the call holds it, by the session's record, until the other has the GET up
 * (plugins/mcp/session-order.ts).
 */
const db = await testDatabase(t);
if (db) await run(db);

async function run(db: TestDatabase) {
  const redis = await ownRedis(t);
  const ref = await startReferenceServer();
  t.teardown(() => ref.close());
  const env = {
    ...sharedModeEnv('shared-mcp').env,
    SVC_STORE_URL: db.url,
    SVC_RATE_LIMIT_REDIS_URL: redis.url,
    // the suite opens a session per scenario: no plan limit for the one organisation here
    SVC_DEFAULT_PLAN: 'unlimited',
    SVC_MCP_SERVERS: JSON.stringify({ reference: { url: ref.url, policy: { default: 'allow' } } }),
    SVC_MCP_PIN_ON_FIRST_USE: 'true',
    SVC_PLUGINS_DISABLED: 'math,logic,code,sql,image,consensus,rag,process,stats,fact,natural-language',
  };
  const [A, B] = await Promise.all([startReplica(env), startReplica(env)]);
  t.teardown(async () => {
    await A.stop();
    await B.stop();
  });
  for (const r of [A, B]) await waitFor(async () => (await r.request('GET', '/readyz')).status === 200, { what: 'a replica to be ready', timeoutMs: 60_000, everyMs: 50 });

  const signup = await A.request('POST', '/auth/signup', { body: { email: `mcp-${process.pid}@example.com`, password: 'correct horse battery', organization_name: `MCP shared ${process.pid}` } });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${signup.text}`);
  const key = await B.request('POST', '/auth/api-keys', { body: { name: 'k', scopes: ['verify:read', 'agent:write'] }, headers: { authorization: `Bearer ${signup.body.access_token}` } });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  const agent = await A.request('POST', '/agents/register', { apiKey: key.body.key, body: { name: 'conformance' } });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${agent.text}`);

  t.test('the conformance suite through two replicas, each request to the other one', async (t) => {
    const fwd = await startHeaderForwarder([`${A.url}/mcp/reference`, `${B.url}/mcp/reference`], { 'x-agent-token': agent.body.agent_token });
    t.teardown(() => fwd.close());
    const direct = await runSuite(ref.url, 30_000);
    const through = await runSuite(fwd.url, 90_000);
    const d = passed(direct);
    const p = passed(through);
    t.comment(`conformance checks passed: direct ${d.size}/${direct.length}, through two replicas ${p.size}/${through.length}`);
    t.ok(d.size >= 44, `the reference server passes the suite direct (${d.size} checks)`);
    t.ok(fwd.served.every((n) => n > 50), `both replicas served the sessions' requests (${fwd.served.join(' and ')})`);
    const asserted = expectSamePasses(t, direct, through, { via: 'the replicas' });
    t.ok(asserted >= 44, `every check that passes direct is asserted through the replicas (${asserted})`);
  });
}
