import t from 'tap';
import statsPlugin from '../../../plugins/engines/stats/index.js';
import { evaluate } from '../../../plugins/engines/stats/evaluator.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * A group is a cell value, so any text can name one. A group named "__proto__" was assigned into a
 * plain object, which set its prototype instead of adding a group: the group's statistic vanished
 * from the result without a word, and the other groups looked like the whole table.
 */
const CSV = 'g,v\n__proto__,1\na,2\nconstructor,3\n__proto__,4\ntoString,5\n';

// one server for the HTTP cases: each upload is evaluated in a fresh sandbox child of its own
const s = await startServer({ plugins: [testAuthPlugin(), statsPlugin] });
t.teardown(() => s.close());

t.test('evaluate: every group name is a group', async (t) => {
  const o = evaluate({ query: { aggregate: 'sum', column: 'v', group: 'g' }, columns: { g: ['__proto__', 'a', 'constructor', '__proto__', 'toString'], v: ['1', '2', '3', '4', '5'] }, rows: 5 });
  t.ok(o.ok);
  if (!o.ok || !o.groups) return;
  t.same(Object.keys(o.groups).sort(), ['__proto__', 'a', 'constructor', 'toString']);
  t.equal(Object.getOwnPropertyDescriptor(o.groups, '__proto__')?.value.exact, '5');
  const wire = JSON.parse(JSON.stringify(o)) as { groups: Record<string, { n: number }> };
  t.equal(Object.getOwnPropertyDescriptor(wire.groups, '__proto__')?.value.n, 2, 'survives the trip out of the sandbox');
});

t.test('over HTTP: the "__proto__" group is in computed_value and groups', async (t) => {
  const form = new FormData();
  form.append('query', 'sum of v by g');
  form.append('file', new Blob([CSV]), 'data.csv');
  const res = await fetch(s.url + '/verify/stats', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
  t.equal(res.status, 200);
  const body = JSON.parse(await res.text());
  t.equal(body.status, 'UNVERIFIABLE');
  t.same(Object.keys(body.computed_value).sort(), ['__proto__', 'a', 'constructor', 'toString']);
  t.equal(Object.getOwnPropertyDescriptor(body.computed_value, '__proto__')?.value, 5);
  t.equal(Object.getOwnPropertyDescriptor(body.developer_fields.groups, '__proto__')?.value.n, 2);
});

t.test('over HTTP: a column named "__proto__" is a column like any other', async (t) => {
  // the worker handed the sandbox a plain object of columns: "__proto__" set its prototype, the
  // column never reached the sandbox and the evaluation failed ("evaluation failed", BLOCKED)
  const ask = async (query: string) => {
    const form = new FormData();
    form.append('query', query);
    form.append('file', new Blob(['__proto__,constructor,toString\n1,x,2\n3,y,4\n']), 'data.csv');
    const res = await fetch(s.url + '/verify/stats', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
    return JSON.parse(await res.text());
  };
  t.match(await ask('sum of __proto__'), { status: 'UNVERIFIABLE', developer_fields: { value_exact: '4' } });
  t.match(await ask('sum of toString where __proto__ > 1'), { status: 'UNVERIFIABLE', developer_fields: { value_exact: '4' } });
  const g = await ask('count by __proto__');
  t.equal(g.status, 'UNVERIFIABLE');
  t.same(g.computed_value, { 1: 1, 3: 1 });
});
