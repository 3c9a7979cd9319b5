import t from 'tap';
import { Decimal } from 'decimal.js';
import { bindExact, ExactNumber, exactOf, numbersFitDoubles, parseExactJson } from '../../core/json/exact.js';
import { checkFinanceTask, createFinanceGuard, FINANCE_INLINE_BYTES } from '../../plugins/a2a/guards/finance.js';
import type { GuardContext, GuardOutcome } from '../../plugins/a2a/guards/types.js';
import { intercept, invoice, message, startA2AWithoutCode, TEST_API_KEY } from '../helpers/a2a.js';

/** issue 12, item 3: finance numbers are compared exactly as written, never through a double. */

t.test('the lossless reader keeps every number as written and everything else as JSON.parse does', async (t) => {
  const text = '{"a":9007199254740993,"b":[1e999,-1e-999,0.1],"c":"x\\"y","__proto__":{"p":1},"d":{"a":1,"a":2},"e":[true,false,null]}';
  const v = parseExactJson(text) as any;
  t.ok(v.a instanceof ExactNumber);
  t.equal(v.a.text, '9007199254740993');
  t.same(v.b.map((n: ExactNumber) => n.text), ['1e999', '-1e-999', '0.1']);
  t.ok(v.b[0].beyondDouble && v.b[1].beyondDouble && !v.b[2].beyondDouble);
  t.equal(v.c, 'x"y');
  t.ok(Object.prototype.hasOwnProperty.call(v, '__proto__'), '__proto__ is a data member');
  t.notOk(({} as any).p, 'no prototype pollution');
  t.equal(v.d.a.text, '2', 'the last duplicate key wins, as with JSON.parse');
  t.same(v.e, [true, false, null]);
  const deep = '['.repeat(200_000) + '1' + ']'.repeat(200_000);
  t.doesNotThrow(() => parseExactJson(deep), 'iterative: any depth');
  for (const bad of ['', '{', '[1,]', '{"a" 1}', '01', '1 2', '"x']) t.throws(() => parseExactJson(bad), bad);
});

t.test('numbersFitDoubles: true only when JSON.parse reads every number of the text as written', async (t) => {
  t.ok(numbersFitDoubles('{"a":1.37,"b":[3,-0.5,1e21,0,-0,0.000001,123456789012345],"c":"9007199254740993"}'), 'digits inside strings do not count');
  t.ok(numbersFitDoubles(Buffer.from('{"é":"\\\"1e999","n":1.3700000000000000000000}')), 'escapes and trailing zeros');
  for (const lossy of ['9007199254740993', '0.1000000000000000000001', '1234567890123456', '1e999', '-1e-999', '1e400', '1e99999999', '[1,2,{"x":[0.30000000000000004]}]']) {
    t.notOk(numbersFitDoubles(`{"v":${lossy}}`), lossy);
  }
  t.notOk(numbersFitDoubles('{"s":"\\"","n":12345678901234567}'), 'an escaped quote does not end the string early');
  // the property the finance guard relies on, over random number texts
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
  const digits = (n: number) => Array.from({ length: n }, () => String(rnd(10))).join('');
  let fits = 0;
  let notFitting = 0;
  for (let i = 0; i < 5000; i++) {
    const int = rnd(4) === 0 ? '0' : String(1 + rnd(9)) + digits(rnd(12));
    const frac = rnd(2) ? '.' + digits(1 + rnd(12)) : '';
    const exp = rnd(3) === 0 ? `e${rnd(2) ? '-' : ''}${rnd(400)}` : '';
    const text = `${rnd(2) ? '-' : ''}${int}${frac}${exp}`;
    if (!numbersFitDoubles(`[${text}]`)) {
      notFitting++;
      continue;
    }
    fits++;
    const n = JSON.parse(text) as number;
    if (!new Decimal(String(n)).equals(new Decimal(text))) t.fail(`${text} was said to fit but reads as ${n}`);
  }
  t.ok(fits > 500 && notFitting > 500, `both sides were exercised (${fits} fitting texts, ${notFitting} not)`);
});

const ctx = {} as GuardContext;
function boundPayload(text: string): Record<string, unknown> {
  const body = JSON.parse(text);
  bindExact(body.payload, Buffer.from(text), ['payload']);
  return body.payload;
}

t.test('finance guard: bound numbers beyond double precision and range are compared exactly', async (t) => {
  const guard = createFinanceGuard();
  const run = (data: string) => guard.check(boundPayload(`{"payload":{"data":${data}}}`), ctx) as GuardOutcome;
  // today: forwarded (both become the double 9007199254740992)
  const off = run('{"claimed_total":9007199254740992,"line_items":[{"amount":9007199254740993}]}');
  t.equal(off.status, 'blocked');
  t.equal(off.details?.computed_total, '9007199254740993.00');
  // a total that matches is not forwarded on JSON numbers the verdict's RFC 8785 sub reads as other
  // doubles: the signed sub would equally cover the variant claiming 9007199254740992
  const lossy = run('{"claimed_total":9007199254740993,"line_items":[{"amount":9007199254740993}]}');
  t.equal(lossy.status, 'unverifiable');
  t.match(lossy.reason, /claimed_total is a JSON number a double cannot hold as written.*send it as a string/);
  t.equal(run('{"claimed_total":"9007199254740993","line_items":[{"amount":"9007199254740993"}]}').status, 'forwarded', 'as strings: exact and hashed as written');
  t.equal(run('{"claimed_total":"9007199254740993","line_items":[{"amount":"9007199254740992"},{"amount":1,"quantity":1}]}').status, 'forwarded', 'small JSON numbers beside strings');
  t.match(run('{"claimed_total":"2","line_items":[{"amount":"1"},{"amount":"1","quantity":1.00000000000000000001}]}').reason, /line_items\[1\]\.quantity/);
  const big = '9'.repeat(400);
  t.equal(run(`{"claimed_total":${big},"line_items":[{"amount":${big.slice(0, -1)}8},{"amount":1}]}`).status, 'unverifiable', '400-digit integers as JSON numbers: matching, but unsignable');
  t.equal(run(`{"claimed_total":"${big}","line_items":[{"amount":"${big.slice(0, -1)}8"},{"amount":1}]}`).status, 'forwarded', '400-digit integers as strings');
  t.equal(run(`{"claimed_total":${big},"line_items":[{"amount":${big.slice(0, -1)}8}]}`).status, 'blocked', 'one unit off at 400 digits');
  t.equal(run('{"claimed_total":1e999,"line_items":[{"amount":1e999}]}').status, 'unverifiable', '1e999 is a number, not Infinity (and not signable)');
  t.equal(run('{"claimed_total":1e999,"line_items":[{"amount":1e999},{"amount":1}]}').status, 'blocked', '1e999 + 1 is not 1e999');
  // 0.005 rounds half-up to 0.01; 0.005 − 1e-999 rounds to 0.00: a term far below the double range matters
  t.equal(run('{"claimed_total":0.01,"line_items":[{"amount":0.005}]}').details?.computed_total, '0.01');
  t.equal(run('{"claimed_total":0,"line_items":[{"amount":0.005},{"amount":-1e-999}]}').details?.computed_total, '0.00');
  t.equal(run('{"claimed_total":1,"line_items":[{"amount":1e10001}]}').status, 'unverifiable', 'exponents past ±10000 are refused, not rounded');
});

t.test('a large bound body is re-read exactly in the worker, from its text', async (t) => {
  const tasks: unknown[] = [];
  const guard = createFinanceGuard(async (task) => {
    tasks.push(task);
    return checkFinanceTask(JSON.parse(JSON.stringify(task)));
  });
  const pad = 'x'.repeat(FINANCE_INLINE_BYTES);
  const text = `{"payload":{"note":"${pad}","data":{"claimed_total":9007199254740992,"line_items":[{"amount":9007199254740993}]}}}`;
  const out = await guard.check(boundPayload(text), ctx);
  t.equal(tasks.length, 1, 'offloaded');
  t.same((tasks[0] as { path: unknown }).path, ['payload']);
  t.equal(out.status, 'blocked');
});

t.test('an unbound JS number that may have lost digits is unverifiable, not trusted', async (t) => {
  const guard = createFinanceGuard();
  const out = guard.check(invoice([{ amount: 9007199254740992 }], 9007199254740992), ctx) as GuardOutcome;
  t.equal(out.status, 'unverifiable');
  t.equal(exactOf({}), undefined);
});

t.test('HTTP: /a2a/intercept blocks 9007199254740993 claimed as 9007199254740992', async (t) => {
  const s = await startA2AWithoutCode({ max_requests_per_minute: 10_000 });
  t.teardown(() => s.close());
  const msg = JSON.stringify(message({ payload_type: 'financial_transaction', payload: { data: { claimed_total: 'CLAIM', line_items: [{ description: 'bond', amount: 'AMOUNT' }] } } }));
  const send = (claim: string, amount: string) =>
    s.request('POST', '/a2a/intercept', {
      raw: msg.replace('"CLAIM"', claim).replace('"AMOUNT"', amount),
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
    });
  const r = await send('9007199254740992', '9007199254740993');
  t.equal(r.status, 200);
  t.equal(r.body.status, 'blocked', 'today: forwarded as equal');
  t.equal(r.body.details.computed_total, '9007199254740993.00');
  const lossy = await send('9007199254740993', '9007199254740993');
  t.equal(lossy.body.status, 'unverifiable', 'matching, but the sub would read both as 9007199254740992');
  t.equal(lossy.body.attestation_jwt ?? null, null, 'nothing signed');
  t.equal((await send('"9007199254740993"', '"9007199254740993"')).body.status, 'forwarded');
  t.equal((await send('"12345678901234567890.01"', '"12345678901234567890.01"')).body.status, 'forwarded');
  t.equal((await send('12345678901234567890.01', '12345678901234567890.03')).body.status, 'blocked');
  // a number RFC 8785 cannot hash cannot be bound into a signed verdict: refused, never Infinity
  t.equal((await send('1e999', '1e999')).status, 400);
  t.equal((await intercept(s, message({ payload_type: 'financial_transaction', payload: invoice([{ amount: '1e999' }], '1e999') }))).body.status, 'forwarded', 'as strings they are exact');
});

t.test('HTTP: an invoice mixing currencies is unverifiable, unsigned, never forwarded', async (t) => {
  const s = await startA2AWithoutCode({ max_requests_per_minute: 10_000 });
  t.teardown(() => s.close());
  const r = await intercept(s, message({ payload_type: 'financial_transaction', payload: invoice([{ amount: '100', currency: 'USD' }, { amount: '50', currency: 'EUR' }], '150') }));
  t.equal(r.status, 200);
  t.equal(r.body.status, 'unverifiable');
  t.notOk(r.body.attestation_jwt, "no signed verdict");
});
