import t from 'tap';
import { request as httpRequest } from 'node:http';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';
import { probePlugin } from '../helpers/probe-plugin.js';

const s = await startServer({ plugins: [probePlugin(), testAuthPlugin(['verify:read'])] });
t.teardown(() => s.close());

function problemOf(t: any, r: { status: number; headers: Headers; body: any }, status: number) {
  t.equal(r.status, status);
  t.match(r.headers.get('content-type'), /^application\/problem\+json/);
  t.equal(r.body.status, status);
  t.type(r.body.title, 'string');
  t.type(r.body.detail, 'string');
  t.match(r.body.type, /^urn:proofgate:problem:/);
}

t.test('unknown route is a 404 problem, with and without /v1', async (t) => {
  for (const p of ['/nope', '/v1/nope', '/v2/probe/echo']) problemOf(t, await s.request('GET', p), 404);
});

t.test('a known path with another method is 405 with Allow', async (t) => {
  const r = await s.request('DELETE', '/probe/echo');
  problemOf(t, r, 405);
  t.equal(r.headers.get('allow'), 'POST');
  const r2 = await s.request('PUT', '/v1/probe/items/7');
  t.equal(r2.status, 405);
  t.equal(r2.headers.get('allow'), 'GET, HEAD');
});

t.test('HEAD follows GET and sends no body', async (t) => {
  const r = await s.request('HEAD', '/probe/items/1');
  t.equal(r.status, 200);
  t.equal(r.text, '');
});

t.test('/v1 prefix and trailing slash reach the same handler', async (t) => {
  for (const p of ['/probe/items/42', '/v1/probe/items/42', '/probe/items/42/']) {
    const r = await s.request('GET', p);
    t.equal(r.status, 200, p);
    t.equal(r.body.id, '42');
  }
});

t.test('query strings are validated with coercion', async (t) => {
  const ok = await s.request('GET', '/probe/items/1?n=3');
  t.same(ok.body.query, { n: 3 });
  const bad = await s.request('GET', '/probe/items/1?n=9');
  problemOf(t, bad, 400);
  t.equal(bad.body.errors[0].field, '/query/n');
});

t.test('malformed JSON is a 400 problem', async (t) => {
  const r = await s.request('POST', '/probe/echo', { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
  problemOf(t, r, 400);
  t.equal(r.body.code, 'invalid_json');
  t.notMatch(r.text, /Unexpected|SyntaxError/, 'no parser exception text leaks');
});

t.test('schema violations are 400 naming the field', async (t) => {
  const missing = await s.request('POST', '/probe/echo', { body: { count: 1 } });
  problemOf(t, missing, 400);
  t.same(missing.body.errors, [{ field: '/body/name', message: 'is required' }]);
  const extra = await s.request('POST', '/probe/echo', { body: { name: 'a', evil: 1 } });
  t.equal(extra.status, 400);
  t.equal(extra.body.errors[0].field, '/body/evil');
  const wrongType = await s.request('POST', '/probe/echo', { body: { name: 'a', count: '3' } });
  t.equal(wrongType.status, 400, 'bodies are not type-coerced');
  t.equal(wrongType.body.errors[0].field, '/body/count');
  const empty = await s.request('POST', '/probe/echo', { raw: '', headers: { 'content-type': 'application/json' } });
  t.equal(empty.status, 400, 'an empty body fails the schema');
});

t.test('valid bodies pass with defaults applied', async (t) => {
  const r = await s.request('POST', '/probe/echo', { body: { name: 'x' } });
  t.equal(r.status, 200);
  t.same(r.body.got, { name: 'x', count: 1 });
});

t.test('a non-JSON content type is 415', async (t) => {
  const r = await s.request('POST', '/probe/echo', { raw: 'name=x', headers: { 'content-type': 'text/plain' } });
  problemOf(t, r, 415);
});

t.test('body cap: exactly at the cap passes, one byte over is 413', async (t) => {
  const base = JSON.stringify({ name: '' });
  const fill = (n: number) => JSON.stringify({ name: 'x'.repeat(n - base.length) });
  const atCap = fill(64);
  t.equal(Buffer.byteLength(atCap), 64);
  t.equal((await s.request('POST', '/probe/echo', { raw: atCap, headers: { 'content-type': 'application/json' } })).status, 200);
  const over = fill(65);
  const r = await s.request('POST', '/probe/echo', { raw: over, headers: { 'content-type': 'application/json' } });
  problemOf(t, r, 413);
});

t.test('a chunked body without Content-Length is cut off at the cap', async (t) => {
  const status = await new Promise<number>((resolve, reject) => {
    const u = new URL(s.url + '/probe/echo');
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write('{"name":"');
    req.write('y'.repeat(200));
    req.end('"}');
  });
  t.equal(status, 413);
});

t.test('multipart uploads are parsed, and a file over the cap is 413', async (t) => {
  const form = new FormData();
  form.set('claim', 'a small file');
  form.set('file', new Blob([Buffer.alloc(100, 1)]), 'a.bin');
  const r = await fetch(s.url + '/probe/upload', { method: 'POST', body: form });
  t.equal(r.status, 200);
  const body = (await r.json()) as any;
  t.same(body.fields, { claim: 'a small file' });
  t.same(body.files, [{ field: 'file', filename: 'a.bin', size: 100 }]);
  const big = new FormData();
  big.set('file', new Blob([Buffer.alloc(5000, 1)]), 'b.bin');
  const r2 = await fetch(s.url + '/probe/upload', { method: 'POST', body: big });
  t.equal(r2.status, 413);
  const r3 = await fetch(s.url + '/probe/upload', { method: 'POST', body: 'x', headers: { 'content-type': 'multipart/form-data' } });
  t.equal(r3.status, 415, 'multipart without a boundary');
  const twice = new FormData();
  twice.append('claim', 'the first claim');
  twice.append('claim', 'the second claim');
  const r4 = await fetch(s.url + '/probe/upload', { method: 'POST', body: twice });
  t.equal(r4.status, 400, 'a repeated field is refused, not resolved to one of its copies');
  const p4 = (await r4.json()) as any;
  t.equal(p4.code, 'validation_failed');
  t.same(p4.errors, [{ field: '/body/claim', message: 'is given more than once' }]);
  const proto = new FormData();
  proto.set('__proto__', 'x');
  proto.set('claim', 'c');
  const r5 = await fetch(s.url + '/probe/upload', { method: 'POST', body: proto });
  t.equal(r5.status, 200, 'a field named __proto__ is an ordinary field');
  t.same((await r5.json() as any).fields, { claim: 'c', ['__proto__']: 'x' });
});

t.test('routes declare auth: missing credential 401, missing scope 403', async (t) => {
  problemOf(t, await s.request('GET', '/probe/secure'), 401);
  problemOf(t, await s.request('GET', '/probe/secure', { apiKey: 'wrong' }), 401);
  problemOf(t, await s.request('GET', '/probe/secure', { apiKey: TEST_API_KEY }), 403);
});

t.test('every response carries a request id, echoing a sane one', async (t) => {
  const r = await s.request('GET', '/probe/items/1', { headers: { 'x-request-id': 'abc-123' } });
  t.equal(r.headers.get('x-request-id'), 'abc-123');
  const r2 = await s.request('GET', '/probe/items/1', { headers: { 'x-request-id': 'bad id with spaces' } });
  t.not(r2.headers.get('x-request-id'), 'bad id with spaces');
});

t.test('request metrics are recorded per route template and status', async (t) => {
  const text = await s.kernel.app.metrics.registry.metrics();
  t.match(text, /svc_http_requests_total\{method="GET",route="\/probe\/items\/:id",status="200"\}/);
  t.notMatch(text, /route="\/probe\/items\/42"/, 'raw paths never become labels');
});

t.test('only I-JSON is accepted: a lone surrogate is a 400, a surrogate pair is fine', async (t) => {
  const lone = await s.request('POST', '/probe/echo', { raw: '{"name":"a\\ud800b"}', headers: { 'content-type': 'application/json' } });
  problemOf(t, lone, 400);
  t.equal(lone.body.code, 'invalid_json');
  const loneKey = await s.request('POST', '/probe/echo', { raw: '{"name":"x","\\udfff":1}', headers: { 'content-type': 'application/json' } });
  t.equal(loneKey.status, 400, 'in a key too');
  const pair = await s.request('POST', '/probe/echo', { raw: '{"name":"\\ud83d\\ude00"}', headers: { 'content-type': 'application/json' } });
  t.equal(pair.status, 200);
  t.equal(pair.body.got.name, '😀');
});
