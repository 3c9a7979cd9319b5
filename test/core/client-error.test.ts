import t from 'tap';
import type { AddressInfo } from 'node:net';
import { type Config, type ConfigOverrides } from '../../core/config.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import { listenEarly } from '../../sidecar/bootstrap.js';
import { startServer, TEST_SECRETS } from '../helpers/server.js';
import { probePlugin } from '../helpers/probe-plugin.js';
import { waitFor } from '../helpers/wait.js';
import { openRaw } from '../helpers/raw-http.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Errors Node's HTTP parser raises before any request exists still get an RFC 9457 body. */

/** writes `chunks` on a raw connection and resolves with everything the server wrote before closing */
async function exchange(port: number, chunks: string[]): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  const c = await openRaw(port);
  for (const chunk of chunks) c.sock.write(chunk);
  await waitFor(() => c.closed(), { what: 'the server to close the connection', timeoutMs: 60_000 });
  return { text: c.got(), ms: Date.now() - started };
}

function problemOf(text: string): { status: number; headers: string; body: any } {
  const [head, body] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

const s = await startServer({ plugins: [probePlugin()], config: { server: { request_timeout_ms: 1000 } } });
t.teardown(() => s.close());
const port = Number(new URL(s.url).port);

t.test('a request that is not HTTP gets 400 malformed_request as problem+json, and the connection closes', async (t) => {
  for (const junk of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nHost x\r\n\r\n', 'POST /probe/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n']) {
    const p = problemOf((await exchange(port, [junk])).text);
    t.equal(p.status, 400, JSON.stringify(junk));
    t.match(p.headers, /content-type: application\/problem\+json/);
    t.match(p.headers, /connection: close/);
    t.match(p.body, { type: 'urn:proofgate:problem:malformed_request', status: 400, code: 'malformed_request' });
    t.equal(Number(/content-length: (\d+)/.exec(p.headers)?.[1]), Buffer.byteLength(JSON.stringify(p.body)));
  }
});

t.test('headers past Node’s limit get 431 headers_too_large with a body', async (t) => {
  const p = problemOf((await exchange(port, [`GET /probe/echo HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`])).text);
  t.equal(p.status, 431);
  t.equal(p.body.code, 'headers_too_large');
});

t.test('a client that never finishes its headers gets 408 within about a second of request_timeout_ms, not 30 s', async (t) => {
  const { text, ms } = await exchange(port, ['POST /probe/echo HTTP/1.1\r\nHost: x\r\n']);
  const p = problemOf(text);
  t.equal(p.status, 408);
  t.equal(p.body.code, 'request_timeout');
  // Node's default connection sweep runs every 30 s; with the kernel's it is 250 ms for a 1 s timeout
  t.ok(ms < 10_000, `answered after ${ms} ms`);
});

t.test('the early listener answers the same way before the kernel takes over', async (t) => {
  const config: Config = loadServiceConfig({
    env: {},
    file: null,
    overrides: { log_level: 'SILENT', data_dir: tempDir(t, 'pg-boot-'), server: { port: 0, host: '127.0.0.1' }, secrets: TEST_SECRETS } as ConfigOverrides,
  });
  const server = await listenEarly(config);
  t.teardown(() => server.close());
  const p = problemOf((await exchange((server.address() as AddressInfo).port, ['\x16\x03\x01 not http\r\n\r\n'])).text);
  t.equal(p.status, 400);
  t.equal(p.body.code, 'malformed_request');
});
