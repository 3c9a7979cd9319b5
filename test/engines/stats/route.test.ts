import t from 'tap';
import statsPlugin, { createStatsPlugin } from '../../../plugins/engines/stats/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../../helpers/server.js';
import type { Plugin, Verifier } from '../../../core/types.js';

const CSV = 'region,price,qty\nEU,0.1,1\nEU,0.2,2\nUS,10,3\nEU,,4\n';

async function upload(s: TestServer, parts: { csv?: string | Buffer; query?: string }, path = '/verify/stats', apiKey: string | null = TEST_API_KEY) {
  const form = new FormData();
  if (parts.query !== undefined) form.append('query', parts.query);
  if (parts.csv !== undefined) form.append('file', new Blob([parts.csv]), 'data.csv');
  const headers: Record<string, string> = apiKey ? { 'x-api-key': apiKey } : {};
  const res = await fetch(s.url + path, { method: 'POST', body: form, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const serve = (plugin: Plugin = statsPlugin, config = {}) => startServer({ plugins: [testAuthPlugin(), plugin], config });

// one default server for the cases that do not configure the sandbox: each upload is evaluated on
// its own (a fresh sandbox child per evaluation), so no case can change another's answer
const shared = await serve();
t.teardown(() => shared.close());

t.test('successful evaluation is UNVERIFIABLE with the computed value', async (t) => {
  const s = shared;
  const r = await upload(s, { csv: CSV, query: 'sum of price where region = EU' });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'UNVERIFIABLE', 'execution is not verification');
  t.equal(r.body.proof_ref, null);
  t.equal(r.body.developer_fields.value_exact, '0.3', 'exact decimals: 0.1 + 0.2 = 0.3');
  t.equal(r.body.computed_value, 0.3, 'legacy flat field');
  t.equal(r.body.developer_fields.sample_size, 2);
  t.type(r.body.message, 'string');

  const g = await upload(s, { csv: CSV, query: JSON.stringify({ aggregate: 'count', column: '*', group: 'region' }) }, '/v1/verify/stats');
  t.equal(g.status, 200);
  t.same(g.body.computed_value, { EU: 3, US: 1 });

  const mean = await upload(s, { csv: CSV, query: 'mean of qty' });
  t.equal(mean.body.developer_fields.value_exact, '2.5');
});

t.test('refused query and failed execution are BLOCKED (200)', async (t) => {
  const s = shared;
  const v = await upload(s, { csv: CSV, query: 'mean of cost' });
  t.equal(v.status, 200);
  t.equal(v.body.status, 'BLOCKED');
  t.equal(v.body.developer_fields.constraint_id, 'stats_verifier.validation_error');
  t.match(v.body.developer_fields.message, /columns: region, price, qty/);
  t.equal(v.body.proof_ref, null);
  const code = await upload(s, { csv: CSV, query: 'require("fs").readFileSync("/etc/passwd")' });
  t.equal(code.body.developer_fields.constraint_id, 'stats_verifier.validation_error', 'code is never run, only declarative queries');
  const e = await upload(s, { csv: CSV, query: 'sum of region' });
  t.equal(e.status, 200);
  t.equal(e.body.status, 'BLOCKED');
  t.equal(e.body.developer_fields.constraint_id, 'stats_verifier.execution_failure');
});

t.test('sandbox deadline: BLOCKED execution_failure; no sandbox: 503', async (t) => {
  const slow = await serve(createStatsPlugin(), { plugin_config: { stats: { timeout_ms: 1 } } });
  const r = await upload(slow, { csv: CSV, query: 'count' });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'BLOCKED');
  t.equal(r.body.developer_fields.constraint_id, 'stats_verifier.execution_failure');
  t.equal(r.body.developer_fields.error, 'timeout');
  await slow.close();
  const broken = await serve(createStatsPlugin({ nodePath: '/nonexistent/node' }));
  const u = await upload(broken, { csv: CSV, query: 'count' });
  t.equal(u.status, 503, 'no in-process fallback');
  t.match(u.headers.get('content-type'), /problem\+json/);
  t.equal(u.body.constraint_id, 'stats_verifier.runtime_unavailable');
  t.ok(u.headers.get('retry-after'));
  await broken.close();
});

t.test('400 for empty, column-less or malformed CSV and missing parts; 413 for the caps', async (t) => {
  const s = shared;
  for (const [csv, why] of [
    ['', 'empty'],
    ['\n\n', 'blank lines only'],
    [',,\n1,2,3\n', 'no column names'],
    ['a,b\n1\n', 'ragged'],
    [Buffer.from([0x61, 0x0a, 0xff, 0xfe]), 'not UTF-8'],
  ] as const) {
    const r = await upload(s, { csv, query: 'count' });
    t.equal(r.status, 400, why);
    t.equal(r.body.code, 'stats_invalid_csv', why);
  }
  t.equal((await upload(s, { query: 'count' })).status, 400, 'no file');
  t.equal((await upload(s, { csv: CSV })).status, 400, 'no query');
  t.equal((await upload(s, { csv: CSV, query: '' })).status, 400, 'empty query');

  const cells = await upload(s, { csv: 'n\n' + '1\n'.repeat(1_000_000), query: 'count' });
  t.equal(cells.status, 413, 'rows × columns over 1,000,000');
  t.equal(cells.body.code, 'stats_cell_cap_exceeded');
  const big = await upload(s, { csv: 'n\n' + 'x'.repeat(10 * 1024 * 1024 + 100 * 1024) + '\n', query: 'count' });
  t.equal(big.status, 413, 'over the byte cap');

  t.equal((await upload(s, { csv: CSV, query: 'count' }, '/verify/stats', null)).status, 401);
});

t.test('scope and service', async (t) => {
  const ro = await startServer({ plugins: [testAuthPlugin(['attestation:read']), statsPlugin] });
  t.equal((await upload(ro, { csv: CSV, query: 'count' })).status, 403);
  const v = ro.kernel.app.service('verifier.stats')!;
  const ok = await v.verify({ csv: CSV, query: 'max of qty where region = EU' });
  t.equal(ok.status, 'UNVERIFIABLE');
  t.equal(ok.developer_fields.value_exact, '4');
  const bad = await v.verify({ csv: '', query: 'count' });
  t.equal(bad.status, 'BLOCKED');
  t.equal(bad.developer_fields.constraint_id, 'stats_verifier.validation_error');
  await ro.close();
});
