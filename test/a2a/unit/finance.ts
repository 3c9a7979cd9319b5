import t from 'tap';
import { checkFinancialPayload, createFinanceGuard, FINANCE_INLINE_ITEMS, toDecimal } from '../../../plugins/a2a/guards/finance.js';
import type { GuardContext } from '../../../plugins/a2a/guards/types.js';
import { invoice } from '../../helpers/a2a.js';

const check = (items: unknown[], claimed: unknown) => checkFinancialPayload(invoice(items, claimed));

t.test('a matching total is forwarded; a mismatch is blocked with both totals', async (t) => {
  const ok = check([{ description: 'widget', amount: '19.99', quantity: 3 }, { description: 'fee', amount: 5 }], '64.97');
  t.equal(ok.status, 'forwarded');
  t.same(ok.details, { claimed_total: '64.97', computed_total: '64.97', difference: '0.00', tolerance: '0.01', line_items: 2 });
  const bad = check([{ description: 'widget', amount: '19.99', quantity: 3 }], '69.97');
  t.equal(bad.status, 'blocked');
  t.match(bad.reason, /69\.97.*59\.97/);
});

t.test('exact decimals: 0.1 + 0.2 is 0.30, not 0.30000000000000004', async (t) => {
  t.equal(check([{ amount: 0.1 }, { amount: 0.2 }], 0.3).details?.computed_total, '0.30');
  t.equal(check([{ amount: 0.1, quantity: 3 }], '0.30').status, 'forwarded');
});

t.test('rounding is half-up at .005, for the sum and for the claim', async (t) => {
  t.equal(check([{ amount: '1.005' }], '1.01').details?.computed_total, '1.01', '1.005 → 1.01 (half-up, not banker’s)');
  t.equal(check([{ amount: '2.675' }], '2.68').details?.computed_total, '2.68', '2.675 is exact as a string: → 2.68');
  t.equal(check([{ amount: '1.0049999' }], '1.00').details?.computed_total, '1.00');
  t.equal(check([{ amount: '1.00' }], '1.005').details?.claimed_total, '1.01', 'the claim is rounded too');
  t.equal(check([{ amount: '-1.005' }], '-1.01').details?.computed_total, '-1.01', 'half-up rounds away from zero');
});

t.test('tolerance: a difference of exactly 0.01 passes, more than 0.01 blocks', async (t) => {
  t.equal(check([{ amount: '10.00' }], '10.01').status, 'forwarded');
  t.equal(check([{ amount: '10.00' }], '9.99').status, 'forwarded');
  t.equal(check([{ amount: '10.00' }], '10.02').status, 'blocked');
  // 10.004 rounds to 10.00 and 10.016 to 10.02: 0.02 apart after rounding
  t.equal(check([{ amount: '10.004' }], '10.016').status, 'blocked');
});

t.test('quantity: default 1, zero allowed, fractional allowed, negative or non-numeric unverifiable', async (t) => {
  t.equal(check([{ amount: '7.50' }], '7.50').status, 'forwarded', 'absent quantity counts once');
  const zero = check([{ amount: '100', quantity: 0 }, { amount: '1', quantity: 1 }], '1.00');
  t.equal(zero.status, 'forwarded', 'quantity 0 contributes nothing');
  t.equal(check([{ amount: '100', quantity: '0' }], '0').status, 'forwarded');
  t.equal(check([{ amount: '2.00', quantity: '1.5' }], '3.00').status, 'forwarded');
  const neg = check([{ amount: '5', quantity: -1 }], '-5');
  t.equal(neg.status, 'unverifiable');
  t.match(neg.reason, /quantity is negative/);
  t.equal(check([{ amount: '5', quantity: '-0.5' }], '0').status, 'unverifiable');
  t.equal(check([{ amount: '5', quantity: 'two' }], '10').status, 'unverifiable');
  t.equal(check([{ amount: '5', quantity: null }], '5').status, 'unverifiable');
});

t.test('huge values are summed exactly', async (t) => {
  const r = check(
    [
      { amount: '123456789012345678901234567890.125', quantity: '1000000000000' },
      { amount: '0.005', quantity: 1 },
    ],
    '123456789012345678901234567890125000000000.01',
  );
  // x.125 × 10^12 = x125000000000 exactly, + 0.005 rounds half-up to .01
  t.equal(r.details?.computed_total, '123456789012345678901234567890125000000000.01');
  t.equal(r.status, 'forwarded');
  const off = check([{ amount: '99999999999999999999999999999.99' }, { amount: '0.02' }], '99999999999999999999999999999.99');
  t.equal(off.status, 'blocked', 'a two-cent error on a 30-digit total is seen');
  t.equal(off.details?.computed_total, '100000000000000000000000000000.01');
  const near = check([{ amount: '99999999999999999999999999999.99' }, { amount: '0.01' }], '99999999999999999999999999999.99');
  t.equal(near.status, 'forwarded', 'one cent is within the tolerance, even at 30 digits');
});

t.test('missing or malformed data is unverifiable', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['no data', {}],
    ['data not an object', { data: [1] }],
    ['no claimed_total', { data: { line_items: [{ amount: 1 }] } }],
    ['no line_items', { data: { claimed_total: 1 } }],
    ['line_items not a list', { data: { claimed_total: 1, line_items: { amount: 1 } } }],
    ['empty line_items', { data: { claimed_total: 0, line_items: [] } }],
    ['claimed_total not numeric', { data: { claimed_total: 'ten', line_items: [{ amount: 10 }] } }],
    ['amount missing', { data: { claimed_total: 1, line_items: [{ description: 'x' }] } }],
    ['amount non-numeric', { data: { claimed_total: 1, line_items: [{ amount: '1,00' }] } }],
    ['amount boolean', { data: { claimed_total: 1, line_items: [{ amount: true }] } }],
    ['amount hex', { data: { claimed_total: 1, line_items: [{ amount: '0x1' }] } }],
    ['amount Infinity', { data: { claimed_total: 1, line_items: [{ amount: 'Infinity' }] } }],
    ['amount with spaces', { data: { claimed_total: 1, line_items: [{ amount: ' 1' }] } }],
    ['item not an object', { data: { claimed_total: 1, line_items: [1] } }],
    ['description not a string', { data: { claimed_total: 1, line_items: [{ amount: 1, description: 3 }] } }],
    ['exponent out of range', { data: { claimed_total: 1, line_items: [{ amount: '1e10001' }] } }],
    ['a double that may have lost digits', { data: { claimed_total: 1, line_items: [{ amount: 2 ** 53 }] } }],
  ];
  for (const [name, payload] of cases) t.equal(checkFinancialPayload(payload).status, 'unverifiable', name);
});

t.test('number forms: JSON numbers, numeric strings, exponents', async (t) => {
  t.equal(toDecimal('1e2')?.toString(), '100');
  t.equal(toDecimal('-.5')?.toString(), '-0.5');
  t.equal(toDecimal('+3.')?.toString(), '3');
  t.equal(toDecimal(12.5)?.toString(), '12.5');
  t.equal(toDecimal(''), null);
  t.equal(toDecimal('1.2.3'), null);
  t.equal(toDecimal('NaN'), null);
});

t.test('large invoices are handed to the offload function; small ones stay inline', async (t) => {
  const calls: number[] = [];
  const guard = createFinanceGuard(async (p) => {
    const payload = (p as { payload: Record<string, any> }).payload;
    calls.push((payload.data.line_items as unknown[]).length);
    return checkFinancialPayload(payload);
  });
  const ctx = {} as GuardContext;
  const small = guard.check(invoice([{ amount: 1 }], 1), ctx);
  t.equal((small as any).status, 'forwarded', 'inline result is returned synchronously');
  const items = Array.from({ length: FINANCE_INLINE_ITEMS + 1 }, () => ({ amount: '0.01' }));
  const big = await guard.check(invoice(items, '10.01'), ctx);
  t.equal(big.status, 'forwarded');
  t.same(calls, [FINANCE_INLINE_ITEMS + 1]);
});

t.test('currencies: amounts in different currencies are never summed as one', async (t) => {
  const mixedItems = check([{ amount: '100', currency: 'USD' }, { amount: '50', currency: 'EUR' }], '150');
  t.equal(mixedItems.status, 'unverifiable', 'USD 100 + EUR 50 is not 150 of anything');
  t.match(mixedItems.reason, /EUR, not USD/);
  t.same(mixedItems.details, { line_item: 1 });
  const againstInvoice = checkFinancialPayload({ data: { currency: 'GBP', claimed_total: '10', line_items: [{ amount: '10', currency: 'USD' }] } });
  t.equal(againstInvoice.status, 'unverifiable', 'an item in another currency than the invoice');
  for (const bad of [7, '', '  ', null, { code: 'USD' }]) {
    t.equal(check([{ amount: '1', currency: bad }], '1').status, 'unverifiable', `item currency ${JSON.stringify(bad)}`);
    t.equal(checkFinancialPayload({ data: { currency: bad, claimed_total: '1', line_items: [{ amount: '1' }] } }).status, 'unverifiable', `invoice currency ${JSON.stringify(bad)}`);
  }
  // one currency, however it is spelled and wherever it is declared, is summed as before
  t.equal(check([{ amount: '1', currency: 'usd' }, { amount: '2', currency: ' USD' }, { amount: '3' }], '6').status, 'forwarded');
  t.equal(checkFinancialPayload({ data: { currency: 'EUR', claimed_total: '3', line_items: [{ amount: '1', currency: 'EUR' }, { amount: '2' }] } }).status, 'forwarded');
  t.equal(check([{ amount: '1', currency: 'JPY' }], '2').status, 'blocked', 'a one-currency mismatch still blocks');
});
