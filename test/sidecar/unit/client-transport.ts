import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { InsecureTransportError, isLoopbackHost, ProofgateClient, ResponseTooLargeError } from '../../../packages/client/src/index.js';

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

t.test('maxResponseBytes: a larger answer is aborted at the cap, never buffered whole', async (t) => {
  const MiB = 1024 * 1024;
  let sentByEndless = 0;
  let endlessClosed: Promise<void> = Promise.resolve();
  const f = await fake((req, res) => {
    if (req.url?.includes('/declared')) {
      // a Content-Length past the cap is refused before the body is read
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * MiB) });
      res.end('"' + 'x'.repeat(2 * MiB - 2) + '"');
    } else if (req.url?.includes('/exact')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('"' + 'y'.repeat(MiB - 2) + '"');
    } else if (req.url?.includes('/error')) {
      res.writeHead(500, { 'content-type': 'application/problem+json' });
      res.write('{"title":"');
      res.end('z'.repeat(2 * MiB) + '"}');
    } else {
      // chunked and endless: it stops only when the client goes away (or at 512 MiB, so a failing run ends)
      res.writeHead(200, { 'content-type': 'application/json' });
      endlessClosed = new Promise((r) => res.once('close', () => r()));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let open = true;
      res.once('close', () => (open = false));
      const pump = () => {
        while (open && sentByEndless < 512 * MiB) {
          sentByEndless += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    }
  });
  const c = new ProofgateClient({ baseUrl: f.url, apiKey: 'k', dispatcher: f.dispatcher, maxResponseBytes: MiB, timeoutMs: 120_000 });
  const endless = await c.getAttestationById({ id: 'endless' }).catch((e) => e);
  t.ok(endless instanceof ResponseTooLargeError, String(endless?.name));
  t.match(String(endless?.message).slice(0, 300), /the answer to GET \/attestation\/\{id\} is larger than maxResponseBytes \(1048576 bytes\)/);
  await endlessClosed;
  t.ok(sentByEndless < 64 * MiB, `the read stopped near the cap (the server wrote ${sentByEndless} bytes before the client went away)`);

  const declared = await c.getAttestationById({ id: 'declared' }).catch((e) => e);
  t.ok(declared instanceof ResponseTooLargeError, `a Content-Length past the cap: ${String(declared?.name)}`);
  const error = await c.getAttestationById({ id: 'error' }).catch((e) => e);
  t.ok(error instanceof ResponseTooLargeError, `an error body is capped too: ${String(error?.name)}`);
  t.equal(((await c.getAttestationById({ id: 'exact' })) as unknown as string).length, MiB - 2, 'a body of exactly the cap is read');

  t.throws(() => new ProofgateClient({ baseUrl: f.url, maxResponseBytes: 0 }), TypeError);
  t.throws(() => new ProofgateClient({ baseUrl: f.url, maxResponseBytes: Infinity }), TypeError);
  // the default cap holds even when the option is passed as undefined
  t.equal((new ProofgateClient({ baseUrl: f.url, maxResponseBytes: undefined }) as unknown as { opts: { maxResponseBytes: number } }).opts.maxResponseBytes, 64 * MiB);
});

t.test('options passed as undefined keep their defaults: retries still happen, the deadline still holds', async (t) => {
  let calls = 0;
  const f = await fake((_req, res) => {
    calls++;
    if (calls === 1) {
      res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '0' });
      res.end('{"title":"busy"}');
    } else ok(_req, res);
  });
  const c = new ProofgateClient({ baseUrl: f.url, apiKey: 'k', dispatcher: f.dispatcher, retries: undefined, timeoutMs: undefined, maxRetryWaitMs: undefined });
  t.same(await c.postVerifyMath({ expression: '1 = 1' }), { status: 'VERIFIED' }, 'the 503 was retried');
  t.equal(calls, 2);
});
