import t from 'tap';
import statsPlugin, { compileQuery, DEFAULT_MAX_COLUMNS } from '../../../plugins/engines/stats/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../../helpers/server.js';

/** issue 12, item 8: the CSV header is checked with a set, and its column count is capped. */

async function upload(s: TestServer, csv: string, query: string) {
  const form = new FormData();
  form.append('query', query);
  form.append('file', new Blob([csv]), 'data.csv');
  const res = await fetch(s.url + '/verify/stats', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
const wide = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`).join(',') + '\n' + Array.from({ length: n }, () => '1').join(',') + '\n';

t.test('compileQuery checks columns against the header, whatever its width', async (t) => {
  const cols = Array.from({ length: 100_000 }, (_, i) => `c${i}`);
  t.same(compileQuery('sum of C99999', cols), { aggregate: 'sum', column: 'c99999' }, 'case-insensitive match through the index');
  t.throws(() => compileQuery('sum of nowhere', cols), /columns: c0, c1, .*\(100000 in all\)/, 'the message lists 20 names, not 100,000');
  t.throws(() => compileQuery(`{"aggregate":"count","column":"*","filter":${'['.repeat(50)}${']'.repeat(50)}}`, cols), /nests deeper/);
});

t.test('HTTP: more columns than plugin_config.stats.max_columns is 413 stats_column_cap_exceeded', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), statsPlugin] });
  t.teardown(() => s.close());
  // today: 10,000 columns held the event loop 1.4 s and answered BLOCKED; 100,000 never finished
  for (const n of [10_000, 100_000]) {
    const r = await upload(s, wide(n), 'sum of c1');
    t.equal(r.status, 413, `${n} columns`);
    t.equal(r.body.code, 'stats_column_cap_exceeded');
  }
  const ok = await upload(s, wide(DEFAULT_MAX_COLUMNS), `sum of c${DEFAULT_MAX_COLUMNS - 1}`);
  t.equal(ok.status, 200, `${DEFAULT_MAX_COLUMNS} columns are accepted`);
  t.equal(ok.body.developer_fields.value_exact, '1');
});

t.test('the cap is configurable and validated at start-up', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), statsPlugin], config: { plugin_config: { stats: { max_columns: 3 } } } });
  t.teardown(() => s.close());
  t.equal((await upload(s, wide(4), 'sum of c1')).status, 413);
  t.equal((await upload(s, wide(3), 'sum of c1')).status, 200);
  await t.rejects(startServer({ plugins: [testAuthPlugin(), statsPlugin], config: { plugin_config: { stats: { max_columns: 0 } } } }), /max_columns/);
});
