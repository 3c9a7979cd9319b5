import t from 'tap';
import { createStatsPlugin, LIMITS } from '../../../plugins/engines/stats/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * A one-column CSV as long as the cell cap allows, under the default sandbox heap (128 MB): the
 * evaluator built a fraction object per cell and crashed on its heap cap, so a plain sum over a CSV
 * the caps accept was BLOCKED "crashed". The wall-clock limit is raised so that a busy machine
 * cannot make this a test of speed.
 */
t.test('sum and median over the largest one-column CSV the caps accept', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), createStatsPlugin()], config: { plugin_config: { stats: { timeout_ms: 60_000 } } } });
  t.teardown(() => s.close());
  const rows = LIMITS.cells - 1; // the header is a cell too
  const csv = 'v\n' + Array.from({ length: rows }, (_, i) => `${i % 1000}.${i % 7}`).join('\n');
  const ask = async (query: string) => {
    const form = new FormData();
    form.append('query', query);
    form.append('file', new Blob([csv]), 'data.csv');
    const res = await fetch(s.url + '/verify/stats', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
    t.equal(res.status, 200);
    return JSON.parse(await res.text());
  };
  const sum = await ask('sum of v');
  t.match(sum, { status: 'UNVERIFIABLE', developer_fields: { sample_size: rows } }, JSON.stringify(sum.developer_fields?.error ?? ''));
  let expected = 0n;
  for (let i = 0; i < rows; i++) expected += BigInt((i % 1000) * 10 + (i % 7));
  t.equal(sum.developer_fields.value_exact, `${expected / 10n}.${expected % 10n}`.replace(/\.0$/, ''));
  const median = await ask('median of v');
  t.match(median, { status: 'UNVERIFIABLE', developer_fields: { sample_size: rows } }, JSON.stringify(median.developer_fields?.error ?? ''));
  const tenths = Int32Array.from({ length: rows }, (_, i) => (i % 1000) * 10 + (i % 7)).sort();
  const mid = tenths[rows >> 1]; // rows is odd
  t.equal(median.developer_fields.value_exact, `${Math.trunc(mid / 10)}${mid % 10 ? `.${mid % 10}` : ''}`);
});
