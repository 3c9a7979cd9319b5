import t from 'tap';
import { parseCsv, CsvError } from '../../../plugins/engines/stats/csv.js';
import { compileQuery, parsePattern, QueryError } from '../../../plugins/engines/stats/query.js';
import { evaluate, parseDecimal, toDecimal } from '../../../plugins/engines/stats/evaluator.js';

const kindOf = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof CsvError ? e.kind : e instanceof QueryError ? 'query' : 'other';
  }
};

t.test('RFC 4180 reader', async (t) => {
  t.same(parseCsv('a,b\r\n1,2\r\n', 100), { header: ['a', 'b'], rows: [['1', '2']] });
  t.same(parseCsv('\ufeffa,b\n"x, y","say ""hi"""\n"multi\nline",\n', 100).rows, [['x, y', 'say "hi"'], ['multi\nline', '']]);
  t.same(parseCsv('a\n1\n\n2', 100).rows, [['1'], ['2']], 'blank lines are skipped');
  t.same(parseCsv('a,b', 100).rows, [], 'header only');
  t.equal(kindOf(() => parseCsv('', 100)), 'empty');
  t.equal(kindOf(() => parseCsv('\n\n', 100)), 'empty');
  t.equal(kindOf(() => parseCsv(',,\n1,2,3', 100)), 'no_columns');
  t.equal(kindOf(() => parseCsv('a,b\n1', 100)), 'malformed', 'ragged row');
  t.equal(kindOf(() => parseCsv('a,a\n1,2', 100)), 'malformed', 'duplicate column');
  t.equal(kindOf(() => parseCsv('a\n"open', 100)), 'malformed');
  t.equal(kindOf(() => parseCsv('a\n"x"y', 100)), 'malformed');
  t.equal(kindOf(() => parseCsv('a\nx"y', 100)), 'malformed');
  t.equal(kindOf(() => parseCsv('a,b\n1,2\n3,4', 5)), 'cell_cap', '6 cells > 5');
  t.equal(kindOf(() => parseCsv('a,b\n1,2\n3,4', 6)), null);
});

t.test('plain pattern and JSON queries, validated against the columns', async (t) => {
  t.same(parsePattern('mean of price where region = EU'), { aggregate: 'mean', column: 'price', filter: [{ column: 'region', op: '=', value: 'EU' }] });
  t.same(parsePattern('COUNT'), { aggregate: 'count', column: '*' });
  t.same(parsePattern('count of rows by region'), { aggregate: 'count', column: '*', group: 'region' });
  t.same(parsePattern('average of "unit price" where qty >= 2 and region <> \'North America\' grouped by year'), {
    aggregate: 'mean',
    column: 'unit price',
    filter: [{ column: 'qty', op: '>=', value: '2' }, { column: 'region', op: '!=', value: 'North America' }],
    group: 'year',
  });
  const cols = ['price', 'region', 'qty'];
  t.same(compileQuery('max of PRICE', cols), { aggregate: 'max', column: 'price' }, 'case-insensitive column match');
  t.same(compileQuery('{"aggregate":"sum","column":"qty","filter":{"column":"region","op":"=","value":"EU"}}', cols).filter, [{ column: 'region', op: '=', value: 'EU' }]);
  for (const bad of ['mean of cost', 'mean', 'sum of *', 'variance of price', 'mean of price where region ~ EU', 'mean of price extra', '{"aggregate":"mean"}', '{"aggregate":"mean","column":"price","code":"x"}', '{bad json', 'mean of price by nowhere']) {
    t.equal(kindOf(() => compileQuery(bad, cols)), 'query', bad);
  }
});

t.test('exact decimal evaluation', async (t) => {
  t.same(parseDecimal('1.50'), { n: 3n, d: 2n });
  t.same(parseDecimal('-2e3'), { n: -2000n, d: 1n });
  t.equal(parseDecimal('abc'), null);
  t.equal(parseDecimal('0x10'), null);
  // the index-based reading (perf 41ff57e): each way a sign, point or exponent can stand
  t.same(parseDecimal('.5'), { n: 1n, d: 2n });
  t.same(parseDecimal('+5.'), { n: 5n, d: 1n });
  t.same(parseDecimal(' -0.25E-2 '), { n: -1n, d: 400n });
  t.same(parseDecimal('-0'), { n: 0n, d: 1n });
  t.same(parseDecimal('12.3400000000000000000000000000000001'), { n: 123400000000000000000000000000000001n, d: 10n ** 34n });
  t.equal(parseDecimal('.'), null);
  t.equal(parseDecimal('1e'), null);
  t.equal(toDecimal({ n: 1n, d: 3n }), '0.33333333333333333333');
  t.equal(toDecimal({ n: 2n, d: 3n }), '0.66666666666666666667');
  t.equal(toDecimal({ n: -1n, d: 8n }), '-0.125');
  const columns = { price: ['0.1', '0.2', '', '10'], region: ['EU', 'EU', 'EU', 'US'] };
  const run = (q: object) => evaluate({ query: q as never, columns, rows: 4 });
  t.same(run({ aggregate: 'sum', column: 'price', filter: [{ column: 'region', op: '=', value: 'EU' }] }), { ok: true, value: { exact: '0.3', decimal: '0.3', n: 2 }, groups: null }, '0.1 + 0.2 is exactly 0.3');
  t.same(run({ aggregate: 'mean', column: 'price' }), { ok: true, value: { exact: '10.3/3'.replace('10.3/3', '103/30'), decimal: '3.43333333333333333333', n: 3 }, groups: null });
  t.equal((run({ aggregate: 'median', column: 'price' }) as { value: { exact: string } }).value.exact, '0.2');
  t.equal((run({ aggregate: 'count', column: '*' }) as { value: { exact: string } }).value.exact, '4');
  t.equal((run({ aggregate: 'count', column: 'price' }) as { value: { exact: string } }).value.exact, '3', 'count of a column skips empty cells');
  t.equal((run({ aggregate: 'min', column: 'price', filter: [{ column: 'price', op: '>', value: '0.1' }] }) as { value: { exact: string } }).value.exact, '0.2');
  const g = run({ aggregate: 'max', column: 'price', group: 'region' }) as { groups: Record<string, { exact: string }> };
  t.same(Object.keys(g.groups), ['EU', 'US']);
  t.equal(g.groups.EU.exact, '0.2');
  t.same(run({ aggregate: 'sum', column: 'region' }), { ok: false, error: 'column region holds a non-numeric value ("EU")' });
  t.equal((run({ aggregate: 'mean', column: 'price', filter: [{ column: 'region', op: '=', value: 'JP' }] }) as { ok: boolean }).ok, false, 'mean of nothing');
});
