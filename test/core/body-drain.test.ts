import t from 'tap';
import { spawn } from 'node:child_process';
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import imagePlugin from '../../plugins/engines/image/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';
import { probePlugin } from '../helpers/probe-plugin.js';

// A 413 must reach clients that are still sending: the server drains the rest of the request
// (core/http/body.ts) instead of closing under the client, which used to surface as EPIPE/ECONNRESET.

const s = await startServer({ plugins: [probePlugin({ bodyLimit: 1024 }), testAuthPlugin(), imagePlugin] });
t.teardown(() => s.close());

const BIG_JSON = Buffer.from(JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }));
const IMAGE = Buffer.alloc(10.5 * 1024 * 1024, 7);

function imageForm(): FormData {
  const form = new FormData();
  form.append('claim', 'is a PNG');
  form.append('image', new Blob([IMAGE], { type: 'image/png' }), 'big.png');
  return form;
}

function curl(args: string[], stdin?: Buffer): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('curl', ['-sS', '--max-time', '60', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, err }));
    p.stdin.on('error', () => {});
    p.stdin.end(stdin);
  });
}

function nodeHttp(path: string, headers: Record<string, string>, body: Buffer, agent?: Agent): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const u = new URL(s.url + path);
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    // written in 64 KiB pieces so most of the body is still to be sent when the 413 is written
    for (let i = 0; i < body.length; i += 65536) req.write(body.subarray(i, i + 65536));
    req.end();
  });
}

t.test('undici fetch reads the 413 for an oversized JSON body and for a 10.5 MB multipart upload', async (t) => {
  const r = await fetch(s.url + '/probe/echo', { method: 'POST', body: BIG_JSON, headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 413);
  t.match(r.headers.get('content-type'), /problem\+json/);
  t.equal(((await r.json()) as { code: string }).code, 'payload_too_large');

  // a body still being produced when the 413 is written (the old close surfaced as EPIPE here)
  for (let i = 0; i < 8; i++) {
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (n++ >= 256) return c.close();
        await new Promise((r) => setImmediate(r));
        c.enqueue(new Uint8Array(65536));
      },
    });
    const streamed = await fetch(s.url + '/probe/echo', { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit);
    t.equal(streamed.status, 413, `streamed body ${i}`);
    await streamed.text();
  }

  const img = await fetch(s.url + '/verify/image', { method: 'POST', body: imageForm(), headers: { 'x-api-key': TEST_API_KEY } });
  t.equal(img.status, 413);
  t.match(((await img.json()) as { detail: string }).detail, /limit/);
});

t.test('curl reads the 413 (JSON and multipart)', async (t) => {
  const json = await curl(['-o', '-', '-w', '\n%{http_code}', '-H', 'content-type: application/json', '--data-binary', '@-', s.url + '/probe/echo'], BIG_JSON);
  t.equal(json.code, 0, json.err);
  t.match(json.out, /payload_too_large/);
  t.match(json.out, /\n413$/);

  const multi = await curl(
    ['-o', '-', '-w', '\n%{http_code}', '-H', `x-api-key: ${TEST_API_KEY}`, '-F', 'claim=is a PNG', '-F', 'image=@-;filename=big.png;type=image/png', s.url + '/verify/image'],
    IMAGE,
  );
  t.equal(multi.code, 0, multi.err);
  t.match(multi.out, /\n413$/);
});

t.test('node:http reads the 413, and the drained connection serves the next request', async (t) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const chunked = await nodeHttp('/probe/echo', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, BIG_JSON, agent);
  t.equal(chunked.status, 413);
  t.notOk(chunked.headers.connection === 'close', 'within the drain bound the connection stays open');
  const ok = await nodeHttp('/probe/echo', { 'content-type': 'application/json' }, Buffer.from('{"name":"after"}'), agent);
  t.equal(ok.status, 200);
  t.same(JSON.parse(ok.body).got, { name: 'after', count: 1 });

  const boundary = 'drainboundary';
  const multipart = Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="claim"\r\n\r\nis a PNG\r\n--${boundary}\r\ncontent-disposition: form-data; name="image"; filename="a.png"\r\ncontent-type: image/png\r\n\r\n`),
    IMAGE,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const img = await nodeHttp('/verify/image', { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(multipart.length), 'x-api-key': TEST_API_KEY }, multipart);
  t.equal(img.status, 413);
  t.match(img.body, /payload_too_large/);
});

t.test('past the drain bound the server answers 413 with Connection: close and closes', async (t) => {
  const small = await startServer({ plugins: [probePlugin({ bodyLimit: 1024 })], config: { server: { body_drain_bytes: 1024 * 1024 } } });
  t.teardown(() => small.close());
  const u = new URL(small.url);
  // a declared length past the bound: refused before a byte is read, and the connection is not kept
  const raw = await new Promise<string>((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname, () => {
      sock.write(`POST /probe/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${100 * 1024 * 1024}\r\n\r\n`);
    });
    let got = '';
    sock.setEncoding('utf8');
    sock.on('data', (d) => (got += d));
    sock.on('error', reject);
    sock.on('close', () => resolve(got));
  });
  t.match(raw, /^HTTP\/1\.1 413 /);
  t.match(raw, /\r\nconnection: close\r\n/i);

  // a chunked body that grows past the bound: the server stops reading and closes the socket
  const closed = await new Promise<string>((resolve) => {
    const sock = connect(Number(u.port), u.hostname, () => {
      sock.write('POST /probe/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      const piece = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!sock.destroyed && sock.write(`${piece.length.toString(16)}\r\n`) && sock.write(piece) && sock.write('\r\n'));
      };
      sock.on('drain', pump);
      pump();
    });
    sock.on('error', () => resolve('error'));
    sock.on('close', () => resolve('closed'));
  });
  t.ok(closed === 'closed' || closed === 'error', 'the connection ends instead of draining without bound');
});
