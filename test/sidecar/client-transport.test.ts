import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { InsecureTransportError, isLoopbackHost, ProofgateClient } from '../../sidecar/client/index.js';

/** a fake service on 127.0.0.1, and an undici agent that reaches it whatever host a URL names */
async function fake(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: String(req.url), headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dispatcher = new Agent({
    connect: (_opts, cb) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => cb(null, socket));
      socket.once('error', (err) => cb(err, null));
    },
  });
  t.teardown(async () => {
    server.closeAllConnections();
    server.close();
    await dispatcher.close();
  });
  return { seen, port, dispatcher, url: `http://127.0.0.1:${port}` };
}

const ok = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"status":"VERIFIED"}');
};

t.test('a credential is not sent over plain http to a host that is not loopback', async (t) => {
  const f = await fake(ok);
  const remote = `http://proofgate.example:${f.port}`;
  const refused = [
    new ProofgateClient({ baseUrl: remote, apiKey: 'svc_live_secret', dispatcher: f.dispatcher }).postVerifyMath({ expression: '1 = 1' }),
    new ProofgateClient({ baseUrl: remote, token: 'user.jwt.token', dispatcher: f.dispatcher }).getAuthApiKeys(),
    new ProofgateClient({ baseUrl: remote, agentToken: 'agent-token', dispatcher: f.dispatcher }).getAgentsByAgentIdActivity({ agent_id: 'a' }),
    // a credential the caller adds as a header is one too
    new ProofgateClient({ baseUrl: remote, dispatcher: f.dispatcher }).getHealthz({ headers: { Authorization: 'Bearer x' } }),
    new ProofgateClient({ baseUrl: `http://10.0.0.7:${f.port}`, apiKey: 'k', dispatcher: f.dispatcher }).postVerifyMath({ expression: '1 = 1' }),
    new ProofgateClient({ baseUrl: `http://0.0.0.0:${f.port}`, apiKey: 'k', dispatcher: f.dispatcher }).postVerifyMath({ expression: '1 = 1' }),
    // `allowInsecureHttp` must be the boolean true, not any truthy value
    new ProofgateClient({ baseUrl: remote, apiKey: 'k', dispatcher: f.dispatcher, allowInsecureHttp: 'false' as never }).postVerifyMath({ expression: '1 = 1' }),
  ];
  for (const p of refused) {
    const err = await p.catch((e) => e);
    t.ok(err instanceof InsecureTransportError && err instanceof TypeError, String(err).slice(0, 200));
    t.match(err.message, /refusing to send a credential over plain http:\/\/ to .*: use https:\/\/, a loopback address/);
  }
  t.same(f.seen, [], 'not a byte reached the server');

  // no credential: nothing to protect
  t.same(await new ProofgateClient({ baseUrl: remote, dispatcher: f.dispatcher }).getHealthz(), { status: 'VERIFIED' });
  t.equal(f.seen.length, 1);
  t.notOk(f.seen[0].headers['x-api-key'] ?? f.seen[0].headers.authorization);
  // a client holding a key calls a public route without sending it
  await new ProofgateClient({ baseUrl: remote, apiKey: 'k', dispatcher: f.dispatcher }).getHealthz();
  t.equal(f.seen.length, 2);

  // the caller's explicit opt-in
  await new ProofgateClient({ baseUrl: remote, apiKey: 'svc_live_secret', dispatcher: f.dispatcher, allowInsecureHttp: true }).postVerifyMath({ expression: '1 = 1' });
  t.equal(f.seen[2].headers['x-api-key'], 'svc_live_secret', 'sent when allowed');
});

t.test('loopback hosts need no opt-in: a sidecar on localhost keeps working', async (t) => {
  const f = await fake(ok);
  for (const host of ['127.0.0.1', '127.1.2.3', '127.1', 'localhost', 'LocalHost', '[::1]', '[0:0::1]', '[::ffff:127.0.0.1]']) {
    const c = new ProofgateClient({ baseUrl: `http://${host}:${f.port}`, apiKey: 'k', dispatcher: f.dispatcher });
    t.same(await c.postVerifyMath({ expression: '1 = 1' }), { status: 'VERIFIED' }, host);
  }
  t.equal(f.seen.length, 8);
  for (const h of ['127.0.0.1', '[::1]', 'localhost', '[::ffff:7f00:1]']) t.ok(isLoopbackHost(h), h);
  for (const h of ['proofgate.example', '10.0.0.1', '0.0.0.0', '[::]', '[::ffff:a00:1]', '127.0.0.1.nip.io', 'localhost.', 'localhost.example', '[fe80::1]']) {
    t.notOk(isLoopbackHost(h), h);
  }
});
