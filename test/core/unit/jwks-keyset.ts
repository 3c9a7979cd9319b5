import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { exportJWK, generateKeyPair, SignJWT, jwtVerify } from 'jose';
import { jwksKeySet, MAX_JWKS_BYTES } from '../../../core/keys/jwks-keyset.js';

/**
 * core/keys/jwks-keyset.ts: a remote JWKS is read only up to MAX_JWKS_BYTES. Each case serves from its own
 * path (the key sets are kept per URL for the process) on a loopback server that counts what it sent.
 */
t.test('a remote JWKS: a real one verifies; an oversized or endless answer is refused, not buffered', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const token = await new SignJWT({ a: 1 }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
  const sent: Record<string, number> = {};
  const server = createServer((req, res) => {
    const count = (n: number) => (sent[req.url!] = (sent[req.url!] ?? 0) + n);
    if (req.url === '/ok') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    if (req.url === '/declared') {
      // says its size up front: refused before a byte of the body is read
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_JWKS_BYTES + 1) });
      return res.end(Buffer.alloc(MAX_JWKS_BYTES + 1, 0x20));
    }
    // chunked, without end: a body that never stops
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"keys":[');
    const timer = setInterval(() => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      count(chunk.length);
      if (!res.write(chunk)) res.once('drain', () => undefined);
    }, 1);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  }));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const ok = await jwtVerify(token, jwksKeySet({ jwksUrl: `${base}/ok` }, 'test'));
  t.same(ok.payload.a, 1, 'a JWKS within the bound verifies');

  await t.rejects(jwtVerify(token, jwksKeySet({ jwksUrl: `${base}/declared` }, 'test')), /more than 262144/, 'a declared length past the bound is refused');
  await t.rejects(jwtVerify(token, jwksKeySet({ jwksUrl: `${base}/endless` }, 'test')), /more than 262144 bytes/, 'an endless body is refused');
  // the fetch stopped reading: the server was not drained of more than the bound plus what sat in buffers
  t.ok((sent['/endless'] ?? 0) < 16 * MAX_JWKS_BYTES, `the endless body was not read on (${sent['/endless']} bytes written)`);
});
