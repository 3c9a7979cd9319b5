import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import mcp from '../../plugins/mcp/index.js';
import audit from '../../plugins/audit/index.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';

/**
 * The client the MCP conformance suite's client scenarios drive (`conformance client --command
 * "node conformance-client.js <direct|proxy>"`; the suite appends its scenario server's URL and names
 * the scenario in MCP_CONFORMANCE_SCENARIO). It is the official SDK client doing what a client does
 * with any server: initialise, list the tools, call each one with arguments its schema asks for, and
 * answer what the server asks (elicitation with the schema's defaults applied, sampling with a fixed
 * text). `proxy` starts proofgate in this process first, with the scenario's server as its upstream
 * (every pinned tool allowed: the scenarios' tools are the suite's), and the client talks to
 * /mcp/scenario with an agent token; `direct` talks to the server itself.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];

function argumentsFor(schema: { properties?: Record<string, { type?: string }> } | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(schema?.properties ?? {})) {
    out[k] = p.type === 'number' || p.type === 'integer' ? 3 : p.type === 'boolean' ? true : p.type === 'string' ? 'x' : null;
  }
  return out;
}

async function main(): Promise<void> {
  const [mode, url] = process.argv.slice(2);
  if ((mode !== 'direct' && mode !== 'proxy') || !url) throw new Error('usage: conformance-client.js <direct|proxy> <server url>');
  let target = url;
  let headers: Record<string, string> = {};
  let s: TestServer | undefined;
  if (mode === 'proxy') {
    s = await startServer({
      plugins: PLUGINS,
      config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { scenario: { url, policy: { default: 'allow', rules: [] } } }, pin_on_first_use: true } },
    });
    const org = await tenant(s, ['verify:read', 'agent:write']);
    const agent = await registerAgent(s, org.key, { name: 'conformance-client' });
    // the suite kills a client past its timeout: the data directory goes with it all the same
    const started = s;
    process.once('SIGTERM', () => void started.close().finally(() => process.exit(1)));
    target = `${s.url}/mcp/scenario`;
    headers = { 'x-agent-token': agent.agent_token };
  }
  const client = new Client({ name: 'proofgate-conformance-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'none' }));
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } }));
    const { tools } = await client.listTools();
    for (const tool of tools) await client.callTool({ name: tool.name, arguments: argumentsFor(tool.inputSchema as never) });
  } finally {
    await client.close().catch(() => undefined);
    await s?.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
