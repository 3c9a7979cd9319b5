import t from 'tap';
import { exactMember, guardNumberRange } from '../../../core/json/exact.js';
import { builtinsWithEngines, startServer, untilReady } from '../../helpers/server.js';
import { tenant } from '../../helpers/tenancy.js';

/** issue 12, item 3: claimed numbers of /verify/math are read as written; Infinity never appears silently. */

t.test('exactMember reads a top-level number as written, skipping nested and string look-alikes', async (t) => {
  const raw = '{"context":{"tolerance":1},"note":"\\"tolerance\\":2","tolerance" : 1e-999,"x":[{"tolerance":3}]}';
  t.equal(exactMember(raw, 'tolerance'), '1e-999');
  t.equal(exactMember('{"tolerance":"0.1"}', 'tolerance'), undefined, 'a string is not a number');
  t.equal(exactMember('{"a":1,"a":9007199254740993}', 'a'), '9007199254740993', 'last wins, as JSON.parse');
});

t.test('guardNumberRange: 400 number_out_of_range unless the route reads numbers exactly', async (t) => {
  const raw = Buffer.from('{"a":[1e999,2],"b":-1e400,"c":"1e999"}');
  t.throws(() => guardNumberRange(JSON.parse(raw.toString()), raw, false), { code: 'number_out_of_range', status: 400 });
  t.same(guardNumberRange(JSON.parse(raw.toString()), raw, true), { a: ['1e999', 2], b: '-1e400', c: '1e999' });
  // issue 46: a route names the members that take such text; anywhere else it is a validation error
  const named = Buffer.from('{"expression":1e999,"tolerance":1e999,"context":{"x":-1e999}}');
  t.throws(() => guardNumberRange(JSON.parse(named.toString()), named, ['tolerance']), {
    code: 'validation_failed',
    status: 400,
    errors: [{ field: '/body/context/x' }, { field: '/body/expression' }],
  });
  const only = Buffer.from('{"expression":"1","tolerance":1e999}');
  t.same(guardNumberRange(JSON.parse(only.toString()), only, ['tolerance']), { expression: '1', tolerance: '1e999' });
  const arr = Buffer.from('[1e999]');
  t.throws(() => guardNumberRange(JSON.parse(arr.toString()), arr, ['tolerance']), { code: 'validation_failed' }, 'a top-level array has no named member');
  const fine = Buffer.from('{"a":1e308,"s":"1e999"}');
  const v = JSON.parse(fine.toString());
  t.equal(guardNumberRange(v, fine, false), v, 'finite numbers: untouched, same object');
});

t.test('HTTP /verify/math: expected_value and tolerance are exact as written', async (t) => {
  // math, and fact for the other route's check (fact has no warm-up; logic's z3 took a second of CPU)
  const s = await startServer({ plugins: builtinsWithEngines('math', 'fact') });
  t.teardown(() => s.close());
  const { key } = await tenant(s);
  // the math pool warms up first: a cold first task must not race its deadline on a busy machine
  await untilReady(s.kernel);
  const post = (raw: string) => s.request('POST', '/verify/math', { headers: { 'x-api-key': key, 'content-type': 'application/json' }, raw });

  // today: 500
  const inf = await post('{"expression":"2+2","expected_value":4,"tolerance":1e999}');
  t.equal(inf.status, 200);
  t.equal(inf.body.status, 'BLOCKED');
  t.equal(inf.body.developer_fields?.constraint_id ?? inf.body.constraint_id, 'math_verifier.invalid_tolerance', JSON.stringify(inf.body).slice(0, 300));
  const neg = await post('{"expression":"2+2","expected_value":"4","tolerance":-1e999}');
  t.equal(neg.body.developer_fields?.constraint_id ?? neg.body.constraint_id, 'math_verifier.invalid_tolerance', JSON.stringify(neg.body).slice(0, 300));

  // today: 500; a claim of 1e999 is compared exactly and is wrong
  const bigClaim = await post('{"expression":"2+2","expected_value":1e999}');
  t.equal(bigClaim.status, 200);
  t.equal(bigClaim.body.status, 'VERIFIED');
  t.equal(bigClaim.body.is_correct, false);

  // today: 2^53+1 claimed correctly was judged wrong (the claim became the double 2^53)
  const right = await post('{"expression":"2^53+1","expected_value":9007199254740993}');
  t.equal(right.body.is_correct, true);
  t.equal(right.body.expected_value, '9007199254740993');
  t.equal((await post('{"expression":"2^53+1","expected_value":9007199254740992}')).body.is_correct, false);

  // today: 1e-999 became 0 — the tolerance is kept exactly
  const tiny = await post('{"expression":"1/3","expected_value":0.3333333333,"tolerance":1e-999}');
  t.equal(tiny.body.tolerance, '1e-999');
  t.equal(tiny.body.is_correct, false);

  // issue 46: a JSON number where the schema says string is a 400 validation error, never an expression
  for (const raw of ['{"expression":1e999}', '{"expression":-1e999}', '{"expression":5}', '{"expression":"2+2","expected":1e999}', '{"expression":"2+2","expected":0.5}', '{"expression":"1","context":{"x":1e999}}']) {
    const r = await post(raw);
    t.equal(r.status, 400, raw);
    t.match(r.headers.get('content-type'), /^application\/problem\+json/, raw);
    t.match(r.body, { code: 'validation_failed', status: 400, errors: [{ field: /^\/body\// }] }, raw);
    t.notOk('developer_fields' in r.body, `${raw}: not evaluated`);
  }

  // another route gets no Infinity either: 400 number_out_of_range before its handler
  const other = await s.request('POST', '/verify/fact', { headers: { 'x-api-key': key, 'content-type': 'application/json' }, raw: '{"claim":"p","context":"p","x":1e999}' });
  t.equal(other.status, 400);
  t.equal(other.body.code, 'number_out_of_range');
});

t.test('engine: a double without its text is trusted only to 15 significant digits', async (t) => {
  const { verify } = await import('../../../plugins/engines/math/engine.js');
  // a composite route's item (batch) has no body text to re-read: 2^53 may have been 2^53+1
  const lossy = verify({ expression: '2^53+1', expected_value: 9007199254740992 });
  t.equal(lossy.status, 'BLOCKED');
  t.equal(lossy.developer_fields.constraint_id, 'math_verifier.invalid_expected_value');
  t.equal(verify({ expression: '2^53+1', expected_value: '9007199254740993' }).developer_fields.is_correct, true, 'as a string it is exact');
  t.equal(verify({ expression: '2^53+1', expected_value: 9007199254740992, exact_text: { expected_value: '9007199254740993' } }).developer_fields.is_correct, true);
  t.equal(verify({ expression: '1/4', expected_value: 0.25 }).developer_fields.is_correct, true, 'short doubles are fine');
});
