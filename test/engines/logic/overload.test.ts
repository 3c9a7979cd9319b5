import t from 'tap';
import logic from '../../../plugins/engines/logic/index.js';
import batch from '../../../plugins/batch/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { evaluate } from './evaluate.js';

// Issue 45: a flooded solver pool refuses what it cannot start within its wait budget (503 with
// Retry-After and the endpoint's own error body) instead of queueing it until it times out, and
// what it does answer is answered correctly. One z3 thread and a 1 ms budget: one slow query in
// the thread is already more wait than the budget allows.
const HARD_CUBES = '(EQ (PLUS (POW x 3) (POW y 3) (POW z 3)) 33)';
const SAT_QUERY = '(AND (GT x 5) (LT x 10) (EQ (MOD x 4) 1))';

const s = await startServer({ plugins: [testAuthPlugin(), logic, batch], config: { workers: { max_queue_wait_ms: 1, pools: { z3: 1 } } } });
t.teardown(() => s.close());
const post = (body: unknown) => s.request('POST', '/verify/logic', { body, apiKey: TEST_API_KEY });

t.test('a flood of a one-thread pool: the surplus is refused at once with 503 and Retry-After; the answers stay right', async (t) => {
  // z3 runs a query it cannot decide for its whole budget: the pool learns a run time of 200 ms or more
  const primed = await post({ query: HARD_CUBES, timeout_ms: 200 });
  t.equal(primed.status, 200);
  t.match(primed.body, { status: 'ERROR', diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'logic_verifier.timeout' } } });

  const replies: Array<Awaited<ReturnType<typeof post>> & { sent: string }> = [];
  await waitFor(
    async () => {
      const wave = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const query = i % 2 ? SAT_QUERY : HARD_CUBES;
          return { ...(await post({ query, timeout_ms: 200 })), sent: query };
        }),
      );
      replies.push(...wave);
      return wave.some((r) => r.status === 503);
    },
    { what: 'a refused request in a wave of twelve' },
  );
  const refused = replies.filter((r) => r.status === 503);
  const answered = replies.filter((r) => r.status !== 503);
  t.ok(refused.length > 0 && answered.length > 0, `${refused.length} refused, ${answered.length} answered`);
  for (const r of refused) {
    t.equal(r.headers.get('retry-after'), '1');
    t.match(r.body, {
      status: 'ERROR',
      error: 'the logic engine is unavailable',
      provider_used: 'dsl',
      diagnostic: { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.engine_unavailable' } },
    });
  }
  for (const r of answered) {
    t.equal(r.status, 200);
    t.notOk(r.headers.get('retry-after'), 'an answer carries no Retry-After');
    if (r.sent === SAT_QUERY) {
      t.match(r.body, { status: 'SAT', diagnostic: { status: 'VERIFIED' } });
      t.ok(evaluate(SAT_QUERY, r.body.model), 'the model satisfies the query');
    } else {
      t.match(r.body, { status: 'ERROR', diagnostic: { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.timeout' } } });
    }
  }
  // once the thread has drained, a query is taken again
  const after = await waitFor(async () => {
    const r = await post({ query: SAT_QUERY });
    return r.status === 200 ? r : null;
  }, { what: 'a query answered after the flood' });
  t.match(after.body, { status: 'SAT', diagnostic: { status: 'VERIFIED' } });
});

t.test('the budget belongs to the route: batch items on the same busy pool wait their turn and are all answered', async (t) => {
  // z3 busy with a query it cannot decide for 300 ms: the route's own query would be refused now
  const busy = post({ query: HARD_CUBES, timeout_ms: 300 });
  const items = Array.from({ length: 4 }, () => ({ query: SAT_QUERY, type: 'logic' }));
  const r = await s.request('POST', '/v1/verify/batch', { body: { items }, apiKey: TEST_API_KEY });
  t.equal(r.status, 200);
  t.equal(r.body.items.length, 4);
  for (const item of r.body.items) t.match(item.result, { status: 'VERIFIED', developer_fields: { sat: true } }, 'a batch item is answered, not refused for the budget');
  t.equal((await busy).status, 200);
});
