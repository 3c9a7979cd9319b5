import t from 'tap';
import { Admission } from '../../../core/workers/admission.js';

/** issue 45: the pool's admission rule on a fixed clock, without threads (worker-admission.test.ts runs it in a pool) */

t.test('the wait is the larger of the run times over the threads and the measured time between busy answers', async (t) => {
  const a = new Admission();
  t.equal(a.waitMs(1, 5), 0, 'nothing learnt yet: no wait');
  a.ran(2);
  t.equal(a.waitMs(2, 1), 0, 'fewer tasks than ready threads: one starts at once');
  t.equal(a.waitMs(2, 5), 4 * 1, 'four positions at 2 ms over two threads');
  // answers 6 ms apart while the pool stays busy: each sample is capped at 4 x 2 + 1 = 9 ms, 6 counts as is
  a.answered(true, 100);
  a.answered(true, 106);
  t.equal(a.waitMs(1, 3), 3 * 6, 'the answers say 6 ms a task where the run time says 2');
});

t.test('idle time between bursts never counts, and one stall counts at most four run times + 1 ms', async (t) => {
  const a = new Admission();
  a.ran(1);
  a.answered(false, 0);
  a.answered(true, 5_000);
  t.equal(a.waitMs(1, 2), 2, 'the 5 s gap after an idle answer is not a sample: the run time holds');
  a.answered(true, 5_500);
  t.equal(a.waitMs(1, 1), 5, 'a 500 ms stall counts as 4 x 1 + 1 = 5 ms');
});

t.test('the budget refuses only beyond one task per ready thread; the deadline refuses always', async (t) => {
  const a = new Admission();
  a.ran(40);
  t.ok(a.admits(1, 1, 30_000, 5), 'behind one running 40 ms task: admitted under a 5 ms budget');
  t.notOk(a.admits(1, 2, 30_000, 5), 'behind two: refused');
  t.ok(a.admits(1, 2, 30_000), 'without a budget only the deadline counts');
  t.notOk(a.admits(1, 1, 20), 'a 40 ms wait past a 20 ms deadline: refused even behind one');
  t.ok(a.admits(2, 3, 30_000, 5), 'two threads, three ahead: one position each, admitted');
  t.notOk(a.admits(2, 4, 30_000, 5), 'two threads, four ahead: refused');
  t.ok(a.admits(0, 50, 30_000, 5), 'no thread ready yet (start-up): the queue bound holds, not the estimate');
});
