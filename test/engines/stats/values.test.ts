import t from 'tap';
import statsPlugin from '../../../plugins/engines/stats/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/** Values a double cannot hold: the exact fields carry them, the legacy double says so rather than lie. */

const RESPONSE = 'https://proofgate.dev/schemas/stats/response.json';

t.test('over HTTP: a value past the double range', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), statsPlugin] });
  t.teardown(() => s.close());
  const ask = async (csv: string, query: string) => {
    const form = new FormData();
    form.append('query', query);
    form.append('file', new Blob([csv]), 'data.csv');
    const res = await fetch(s.url + '/verify/stats', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
    t.equal(res.status, 200);
    return JSON.parse(await res.text());
  };
  // JSON.stringify wrote Infinity as null, against a schema that said number
  const big = await ask('v\n1e400\n-1\n', 'sum of v');
  t.equal(big.status, 'UNVERIFIABLE');
  t.equal(big.developer_fields.value_exact, `${'9'.repeat(400)}`);
  t.equal(big.computed_value, null);
  t.equal(big.developer_fields.computed_value, null);
  t.same(s.kernel.app.validate(RESPONSE, big, 'response'), [], 'the answer on the wire matches its published schema');
  const groups = await ask('g,v\na,-1e400\nb,2\n', 'sum of v by g');
  t.same(groups.computed_value, { a: null, b: 2 });
  t.same(s.kernel.app.validate(RESPONSE, groups, 'response'), []);
  // within range the double is still given; exact decimals decide the exact fields
  const sum = await ask('v\n0.1\n0.2\n', 'sum of v');
  t.match(sum, { computed_value: 0.3, developer_fields: { value_exact: '0.3' } });
  t.same(s.kernel.app.validate(RESPONSE, sum, 'response'), []);
});
