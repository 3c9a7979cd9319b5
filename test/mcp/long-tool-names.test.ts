import t from 'tap';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { MAX_TOOL_NAME } from '../../plugins/mcp/pins.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { bodyAnswer, startHostileUpstream } from '../helpers/hostile-wire.js';

/**
 * Pins, last-seen records and duplicate marks are keyed `server/name`; a name past what a store key
 * holds (LMDB: 1978 bytes) failed the read or write, and a listing naming one tool so, or a call
 * naming one, was a 500: the whole listing lost at a server's will. A name longer than
 * MAX_TOOL_NAME (the approve route's bound) is withheld unrecorded and never called.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];
const tool = (name: string) => ({ name, description: 'd', inputSchema: { type: 'object' } });

t.test('a tool name past MAX_TOOL_NAME: withheld from the listing, denied on a call, never a 5xx', async (t) => {
  const names = ['get_weather', 'z'.repeat(MAX_TOOL_NAME), 'y'.repeat(MAX_TOOL_NAME + 1), 'x'.repeat(3000), 'w'.repeat(16_000)];
  const up = await startHostileUpstream((r) => {
    const m = r.json;
    if (m?.method === 'tools/list') return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: names.map(tool) } }));
    return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m?.id ?? null, result: {} }));
  });
  t.teardown(() => up.close());
  // what is tested is the pins, not the tool policy: this server's admits whatever is pinned (policy.ts)
  const s = await startServer({ plugins: PLUGINS, config: { mcp: { servers: { h: { url: up.url, policy: { default: 'allow' } } }, pin_on_first_use: true } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'mcp-user' });
  const headers = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };

  const listed = await s.request('POST', '/mcp/h', { headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
  t.equal(listed.status, 200, listed.text.slice(0, 200));
  t.same(listed.body?.result?.tools?.map((x: { name: string }) => x.name), names.slice(0, 2), 'the names that fit are reviewed and pinned; the longer ones withheld');

  for (const name of names.slice(2)) {
    const before = up.received.length;
    const r = await s.request('POST', '/mcp/h', { headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {} } } });
    t.equal(r.status, 200, `a call of a ${name.length}-character name (${r.text.slice(0, 120)})`);
    t.match(r.body?.result, { isError: true, _meta: { 'dev.proofgate/denial': { constraint_id: 'mcp.pin.unlisted' } } }, 'denied: never recorded');
    t.equal(up.received.length, before, 'not forwarded');
  }
  const ok = await s.request('POST', '/mcp/h', { headers, body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: names[1], arguments: {} } } });
  t.notMatch(ok.body?.result?._meta?.['dev.proofgate/denial']?.constraint_id ?? '', /^mcp\.pin\./, `a name of MAX_TOOL_NAME characters is pinned: the pin passes (${ok.text.slice(0, 160)})`);
});
