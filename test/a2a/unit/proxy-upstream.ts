import { createServer } from 'node:net';
import t from 'tap';
import { EgressPolicy } from '../../../core/http/egress.js';
import { UpstreamError, Upstreams } from '../../../plugins/a2a/proxy/upstream.js';

/**
 * The proxy's upstream pools (issue 38, item 12): a learned URL goes through the egress check, a
 * configured one does not, and a card that names a new origin at every fetch cannot grow the pools
 * without end. Only 127.0.0.1 is dialled.
 */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t.test('learned URLs are egress-checked, configured ones are not, learned pools are capped', async (t) => {
  const up = new Upstreams({ timeoutMs: 1000, connectTimeoutMs: 1000, connections: 1, egress: EgressPolicy.parse(['public'], 'test') });
  t.teardown(() => up.close());
  const url = new URL(`http://127.0.0.1:${await closedPort()}/rpc`);
  const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as UpstreamError);
  t.equal((await err(up.request('POST', url, {}, Buffer.from('{}'), undefined, true)))?.kind, 'egress_refused', 'learned loopback URL: refused');
  t.equal((await err(up.request('POST', url, {}, Buffer.from('{}'))))?.kind, 'connect_failed', 'the same URL from configuration is dialled');

  const open = new Upstreams({ timeoutMs: 1000, connectTimeoutMs: 1000, connections: 1, egress: EgressPolicy.parse(['127.0.0.1/32'], 'test') });
  t.teardown(() => open.close());
  for (let i = 0; i < 40; i++) {
    const u = new URL(`http://127.0.0.1:${await closedPort()}/rpc`);
    t.equal((await err(open.request('POST', u, {}, Buffer.from('{}'), undefined, true)))?.kind, 'connect_failed');
  }
  t.ok((open as unknown as { pools: Map<string, unknown> }).pools.size <= 32, 'at most 32 learned pools are kept');
});
