import t from 'tap';
import { startServer } from '../helpers/server.js';
import { probePlugin } from '../helpers/probe-plugin.js';

// GET /probe/items/:id echoes ctx.query; its query schema only constrains `n`, so other keys pass through
const s = await startServer({ plugins: [probePlugin()] });
t.teardown(() => s.close());

t.test('a query key named like an Object.prototype member is read as the string sent', async (t) => {
  for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
    const r = await s.request('GET', `/probe/items/1?${key}=a&n=2`);
    t.equal(r.status, 200, key);
    t.same(r.body.query, { [key]: 'a', n: 2 }, `${key} is 'a', not [inherited member, 'a']`);
  }
});

t.test('a repeated __proto__ key is data, not a new prototype for the query object', async (t) => {
  const r = await s.request('GET', '/probe/items/1?__proto__=a&__proto__=b');
  t.equal(r.status, 200);
  t.strictSame(Object.keys(r.body.query), ['__proto__'], 'the key is kept as an own property');
  t.same(Object.getOwnPropertyDescriptor(r.body.query, '__proto__')?.value, ['a', 'b']);
});

t.test('repeated ordinary keys still collect into an array', async (t) => {
  const r = await s.request('GET', '/probe/items/1?tag=x&tag=y&tag=z');
  t.same(r.body.query, { tag: ['x', 'y', 'z'] });
});
