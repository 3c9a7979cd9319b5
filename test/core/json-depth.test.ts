import t from 'tap';
import { jsonDepth } from '../../core/json/depth.js';
import { builtinsWithEngines, startServer } from '../helpers/server.js';
import { tenant } from '../helpers/tenancy.js';

/** issue 12, item 7: the kernel caps nesting before any handler, with a linear scan. */

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number, leaf = '1') => '{"a":'.repeat(n) + leaf + '}'.repeat(n);

t.test('jsonDepth counts containers, ignores brackets inside strings, and does not recurse', async (t) => {
  t.equal(jsonDepth('1'), 0);
  t.equal(jsonDepth('{}'), 1);
  t.equal(jsonDepth('{"a":[1,{"b":[]}]}'), 4);
  t.equal(jsonDepth('{"a":"[[[[{{{{"}'), 1, 'brackets in a string do not nest');
  t.equal(jsonDepth('{"a":"\\"[[[[","b":[]}'), 2, 'an escaped quote does not end the string');
  t.equal(jsonDepth('["\\\\",[[]]]'), 3, 'an escaped backslash before the closing quote');
  t.equal(jsonDepth(Buffer.from('{"é[":["😀{"]}')), 2, 'UTF-8 bytes are scanned exactly');
  t.equal(jsonDepth(deepArray(1_000_000)), 1_000_000, 'a million levels: no stack involved');
  t.equal(jsonDepth(deepArray(1_000_000), 64), 65, 'stops as soon as the cap is passed');
});

t.test('HTTP: deeper than server.max_json_depth is 400 too_deep before any handler', async (t) => {
  // the engines whose routes it sends bodies to; the cap answers before any of them runs (core/fuzz
  // sends such bodies to every route, logic's included: here no z3 is warmed for a kernel check)
  const s = await startServer({ plugins: builtinsWithEngines('math', 'fact', 'process', 'stats') });
  t.teardown(() => s.close());
  const { key } = await tenant(s);
  const h = { 'x-api-key': key, 'content-type': 'application/json' };

  // today: 500 (stack overflow hashing the body); the cap answers before validation or handler
  const deep = [
    ['/verify/math', `{"expression":"1+1=2","context":${deepObject(10_000)}}`],
    ['/verify/fact', `{"claim":"a","context":"b","x":${deepArray(100_000)}}`],
    ['/verify/process', `{"trace":"Issue: x. Rule: y.","x":${deepObject(30_000)}}`],
  ];
  for (const [path, raw] of deep) {
    const r = await s.request('POST', path, { headers: h, raw });
    t.equal(r.status, 400, `${path}: ${raw.length} bytes nested`);
    t.equal(r.body?.code, 'too_deep');
    t.equal(r.headers.get('content-type')?.split(';')[0], 'application/problem+json');
  }
  // the default cap is 64: 65 levels refused, 64 reach validation (the math schema rejects the
  // extra member, a 400 validation_failed, not too_deep)
  const at = (n: number) => `{"expression":"1+1=2","context":${deepObject(n - 1)}}`;
  t.equal((await s.request('POST', '/verify/math', { headers: h, raw: at(65) })).body?.code, 'too_deep');
  t.not((await s.request('POST', '/verify/math', { headers: h, raw: at(64) })).body?.code, 'too_deep');
  const ok = await s.request('POST', '/verify/math', { headers: h, body: { expression: '1+1=2' } });
  t.equal(ok.status, 200, 'ordinary bodies are untouched');

  // a JSON field of a multipart body is held to the same cap
  const form = new FormData();
  form.set('query', `{"aggregate":"count","column":"*","x":${deepArray(100_000)}}`);
  form.set('file', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'd.csv');
  const res = await fetch(`${s.url}/verify/stats`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  const body = (await res.json()) as { code?: string };
  t.equal(res.status, 400);
  t.equal(body.code, 'too_deep');
  t.equal((await s.request('GET', '/healthz')).status, 200, 'still serving');
});

t.test('the cap is configurable (SVC_MAX_JSON_DEPTH)', async (t) => {
  // fact's route: an engine without a warm-up (math's costs a second of CPU)
  const s = await startServer({ plugins: builtinsWithEngines('fact'), env: { SVC_MAX_JSON_DEPTH: '3' } });
  t.teardown(() => s.close());
  t.equal(s.kernel.app.config.server.max_json_depth, 3);
  const { key } = await tenant(s);
  const h = { 'x-api-key': key, 'content-type': 'application/json' };
  t.equal((await s.request('POST', '/verify/fact', { headers: h, raw: '{"claim":"a","context":"b","x":{"y":{"z":[]}}}' })).body?.code, 'too_deep');
  const atCap = await s.request('POST', '/verify/fact', { headers: h, raw: '{"claim":"a","context":"b","x":{"y":[]}}' });
  t.equal(atCap.body?.code, 'validation_failed', 'three levels pass the cap and reach validation (the fact schema has no x)');
  t.equal((await s.request('POST', '/verify/fact', { headers: h, raw: '{"claim":"It is red.","context":"It is red."}' })).status, 200);
});
