import t from 'tap';
import { PgStore } from '../../core/store/pg.js';
import a2a from '../../plugins/a2a/index.js';
import agents from '../../plugins/agents/index.js';
import auth from '../../plugins/auth/index.js';
import health from '../../plugins/health/index.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import { freshSchema, testDatabase, type TestDatabase } from '../helpers/pg.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { bearer, createKey, registerAgent, signup } from '../helpers/tenancy.js';
import { decodeJwt, invoice, KEY_PEM, message } from '../helpers/a2a.js';

/**
 * Issue 38 item 2 in shared mode: two replicas on one PostgreSQL schema. Who owns a sender id is read
 * from the store at every use, so an agent registered on one replica makes its id bindable on the
 * other, and once deleted on one, a key bound to it stops speaking on the other at once — no
 * per-replica cache holds the old owner.
 */
const db = await testDatabase(t);
if (db) await run(db);

async function run(db: TestDatabase) {
  const schema = freshSchema();
  const replica = () =>
    startServer({
      plugins: [health, auth, agents, a2a],
      config: {
        auth: { anonymous_rate_per_minute: 1000 },
        a2a: { deployment_id: 'ownership-pg', signing_key_pem: KEY_PEM, default_allow: true },
      } as ConfigOverrides,
      store: () => new PgStore({ url: db.url, schema }),
    });
  const A: TestServer = await replica();
  t.teardown(() => A.close());
  const B: TestServer = await replica();
  t.teardown(() => B.close());

  const fin = (sender: string) => message({ sender_agent_id: sender, payload_type: 'financial_transaction', payload: invoice([{ amount: '2.50', quantity: 2 }], '5.00') });
  const intercept = (s: TestServer, sender: string, apiKey: string) => s.request('POST', '/a2a/intercept', { body: fin(sender), apiKey });

  t.test('registered on A, bound on B; deleted on A, the binding fails on B', async (t) => {
    const owner = await signup(A);
    const writer = await createKey(A, owner.token, { name: 'w', scopes: ['verify:read', 'agent:write'] });
    const agent = await registerAgent(A, writer.key, { name: 'billing' });

    const bound = await B.request('POST', '/auth/api-keys', { body: { name: 'bound', a2a_senders: [agent.agent_id] }, headers: bearer(owner.token) });
    t.equal(bound.status, 201, 'B reads the owner A wrote');
    const ok = await intercept(B, agent.agent_id, bound.body.key);
    t.equal(ok.body.status, 'forwarded');
    t.equal(decodeJwt(ok.body.attestation_jwt).claims.svc_a2a.sender_auth, 'api_key');

    const x = await signup(B);
    const stolen = await B.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: [agent.agent_id] }, headers: bearer(x.token) });
    t.equal(stolen.status, 403, "another tenant cannot bind it on either replica");
    t.equal(stolen.body.code, 'a2a_sender_not_owned');

    t.equal((await A.request('DELETE', `/agents/${agent.agent_id}`, { apiKey: writer.key })).status, 200);
    const after = await intercept(B, agent.agent_id, bound.body.key);
    t.equal(after.body.status, 'blocked', 'B sees the deletion on the next use');
    t.equal(after.body.details.failure, 'binding_not_owned');
    const again = await A.request('POST', '/auth/api-keys', { body: { name: 'again', a2a_senders: [agent.agent_id] }, headers: bearer(owner.token) });
    t.equal(again.status, 403, "a deleted agent's id is nobody's to bind");
  });
}
