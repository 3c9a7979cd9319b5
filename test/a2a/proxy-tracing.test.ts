import t from 'tap';
import a2a from '../../plugins/a2a/index.js';
import agents from '../../plugins/agents/index.js';
import auth from '../../plugins/auth/index.js';
import health from '../../plugins/health/index.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import { KEY_PEM } from '../helpers/a2a.js';
import { data, sdkClient, startPeer, userMessage } from '../helpers/a2a-peer.js';
import { agentToken } from '../helpers/a2a-proxy.js';
import { startServer } from '../helpers/server.js';
import { spanAttr, startOtlpReceiver } from '../helpers/otlp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A verdict followed across the A2A hop (issue 42): the caller's trace id reaches the peer in the
 * `traceparent` the proxy writes, under the proxy's own CLIENT span, and both ends are exported.
 */
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

t.test('the peer receives the caller’s trace id from the proxy’s client span', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const peer = await startPeer({ signed: true });
  t.teardown(() => peer.close());
  const s = await startServer({
    plugins: [health, auth, agents, a2a],
    config: {
      auth: { anonymous_rate_per_minute: 1000 },
      a2a: { deployment_id: 'sidecar-a', signing_key_pem: KEY_PEM, default_allow: true, proxy: { timeout_ms: 3000, connect_timeout_ms: 1000 }, peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl } } },
      tracing: { otlp_endpoint: otlp.endpoint },
    } as ConfigOverrides,
  });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const client = await sdkClient(`${s.url}/a2a/peers/ledger/`, { 'x-agent-token': me.token, traceparent: `00-${TRACE}-${PARENT}-01` });
  const before = peer.received.length;
  t.ok(await client.sendMessage({ message: userMessage([data(INVOICE)]) } as never), 'the peer answered through the sidecar');
  const sent = peer.received.slice(before).map((r) => r.headers);
  t.ok(sent.length > 0);
  for (const h of sent) {
    const [version, id, parent, flags] = String(h.traceparent).split('-');
    t.equal(version, '00');
    t.equal(id, TRACE, 'the same trace id');
    t.not(parent, PARENT, 'parented on the proxy’s span, not the caller’s');
    t.equal(flags, '01');
  }
  const [, , parent] = String(sent.at(-1)!.traceparent).split('-');
  const clientSpan = await waitFor(() => otlp.spans.find((x) => x.spanId === parent), { what: 'the proxy’s client span' });
  t.equal(clientSpan.kind, 3, 'CLIENT');
  t.equal(spanAttr(clientSpan, 'server.address'), '127.0.0.1');
  const server = await waitFor(() => otlp.spans.find((x) => x.spanId === clientSpan.parentSpanId), { what: 'the server span' });
  t.equal(server.kind, 2);
  t.equal(server.parentSpanId, PARENT, 'the server span continues the caller’s trace');
  t.equal(spanAttr(server, 'http.route'), '/a2a/peers/:receiver');
});
