import a2a from '../../plugins/a2a/index.js';
import agents from '../../plugins/agents/index.js';
import auth from '../../plugins/auth/index.js';
import health from '../../plugins/health/index.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import type { Store } from '../../core/store/store.js';
import { startServer, type TestServer } from './server.js';
import { createKey, signup } from './tenancy.js';
import { KEY_PEM } from './a2a.js';

/** A sidecar with the A2A proxy, its agents and auth; `a2aOver` adds peers and proxy settings. */
export function proxySidecar(a2aOver: Record<string, unknown>, key = KEY_PEM, deployment = 'sidecar-a', store?: (dataDir: string) => Store): Promise<TestServer> {
  return startServer({
    store,
    plugins: [health, auth, agents, a2a],
    config: {
      auth: { anonymous_rate_per_minute: 1000 },
      a2a: { deployment_id: deployment, signing_key_pem: key, default_allow: true, proxy: { timeout_ms: 3000, connect_timeout_ms: 1000 }, ...a2aOver },
    } as ConfigOverrides,
  });
}

/** A new organisation's agent: its token, id, the key that registered it, and the owner's session. */
export async function agentToken(s: TestServer): Promise<{ token: string; agentId: string; key: string; jwt: string }> {
  const acct = await signup(s);
  const admin = await createKey(s, acct.token, { name: 'agents', scopes: ['verify:read', 'agent:write'] });
  const r = await s.request('POST', '/agents/register', { apiKey: admin.key, body: { name: 'buyer' } });
  return { token: r.body.agent_token, agentId: r.body.agent_id, key: admin.key, jwt: acct.token };
}
