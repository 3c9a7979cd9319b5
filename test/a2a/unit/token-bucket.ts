import t from 'tap';
import { PairBuckets } from '../../../plugins/a2a/token-bucket.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

t.test('a new bucket starts full and empties after capacity messages', async (t) => {
  const c = fakeClock();
  const b = new PairBuckets({ capacity: 3, clock: c.now });
  t.same([b.take('o', 'a', 'b').allowed, b.take('o', 'a', 'b').allowed, b.take('o', 'a', 'b').allowed], [true, true, true]);
  const denied = b.take('o', 'a', 'b');
  t.equal(denied.allowed, false);
  t.ok(denied.retryAfterSeconds >= 1);
  // the pair is the key: the reverse direction and another receiver have their own buckets
  t.equal(b.take('o', 'b', 'a').allowed, true);
  t.equal(b.take('o', 'a', 'c').allowed, true);
});

t.test('refill is capacity/60 tokens per second, capped at capacity', async (t) => {
  const c = fakeClock();
  const b = new PairBuckets({ capacity: 60, clock: c.now }); // one token per second
  for (let i = 0; i < 60; i++) t.equal(b.take('o', 'a', 'b').allowed, true);
  t.equal(b.take('o', 'a', 'b').allowed, false);
  c.advance(999);
  t.equal(b.take('o', 'a', 'b').allowed, false, 'not yet a whole token');
  c.advance(1);
  t.equal(b.take('o', 'a', 'b').allowed, true, 'one token after one second');
  t.equal(b.take('o', 'a', 'b').allowed, false);
  c.advance(10 * 60_000);
  let n = 0;
  while (b.take('o', 'a', 'b').allowed) n++;
  t.equal(n, 60, 'a long idle period refills to capacity, not beyond');
});

t.test('slow refill: capacity 6 per minute gives one token every 10 s', async (t) => {
  const c = fakeClock();
  const b = new PairBuckets({ capacity: 6, clock: c.now });
  for (let i = 0; i < 6; i++) b.take('o', 'a', 'b');
  const d = b.take('o', 'a', 'b');
  t.equal(d.allowed, false);
  t.equal(d.retryAfterSeconds, 10);
  c.advance(9_999);
  t.equal(b.take('o', 'a', 'b').allowed, false);
  c.advance(1);
  t.equal(b.take('o', 'a', 'b').allowed, true);
});

t.test('a clock stepping backwards mints no tokens', async (t) => {
  const c = fakeClock();
  const b = new PairBuckets({ capacity: 2, clock: c.now });
  b.take('o', 'a', 'b');
  b.take('o', 'a', 'b');
  c.advance(-60_000);
  t.equal(b.take('o', 'a', 'b').allowed, false);
});

t.test('buckets idle for 5 minutes are evicted by the sweep; active ones stay', async (t) => {
  const c = fakeClock();
  const b = new PairBuckets({ capacity: 5, clock: c.now });
  b.take('o', 'idle', 'x');
  b.take('o', 'busy', 'x');
  c.advance(4 * 60_000);
  b.take('o', 'busy', 'x');
  t.equal(b.sweep(), 0, 'nothing idle for 5 minutes yet');
  c.advance(60_000 - 1);
  t.equal(b.sweep(), 0, 'one millisecond short of 5 minutes');
  c.advance(1);
  t.equal(b.sweep(), 1);
  t.notOk(b.has('o', 'idle', 'x'));
  t.ok(b.has('o', 'busy', 'x'));
  // an evicted pair comes back with a full bucket
  for (let i = 0; i < 5; i++) t.equal(b.take('o', 'idle', 'x').allowed, true);
  t.equal(b.take('o', 'idle', 'x').allowed, false);
});

/** interval timers fired by hand: what runs is decided by the test, not by the machine's speed */
function manualIntervals() {
  const live = new Set<{ fn: () => void; unref(): unknown; hasRef(): boolean }>();
  const timers = {
    setInterval: ((fn: () => void) => {
      const h = { fn, unref: () => h, hasRef: () => false };
      live.add(h);
      return h;
    }) as unknown as typeof setInterval,
    clearInterval: ((h: never) => void live.delete(h)) as typeof clearInterval,
  };
  return { timers, fire: () => [...live].forEach((h) => h.fn()), get count() { return live.size; } };
}

t.test('the sweep runs on an interval that stop clears', async (t) => {
  const c = fakeClock();
  const iv = manualIntervals();
  const b = new PairBuckets({ capacity: 1, clock: c.now, sweepEveryMs: 20, timers: iv.timers });
  b.take('o', 'a', 'b');
  c.advance(5 * 60_000);
  const timer = b.start();
  t.equal(b.start(), timer, 'start is idempotent');
  t.equal(iv.count, 1, 'one interval');
  iv.fire();
  t.equal(b.size, 0, 'the interval swept the idle bucket');
  b.stop();
  t.equal(iv.count, 0, 'stop cleared the interval');
  b.take('o', 'c', 'd');
  c.advance(10 * 60_000);
  iv.fire();
  t.equal(b.size, 1, 'no sweep after stop: the idle bucket is still there');
});

t.test('the real sweep timer is unref-ed, so it never holds the process open', async (t) => {
  const b = new PairBuckets({ capacity: 1 });
  const timer = b.start();
  t.equal(timer.hasRef(), false);
  b.stop();
});

t.test('past maxPairs a new pair is denied (fail closed) until a sweep frees room', async (t) => {
  const c = fakeClock();
  const b = new PairBuckets({ capacity: 1, clock: c.now, maxPairs: 2 });
  t.equal(b.take('o', 'a', '1').allowed, true);
  t.equal(b.take('o', 'a', '2').allowed, true);
  t.equal(b.take('o', 'a', '3').allowed, false);
  c.advance(5 * 60_000);
  t.equal(b.take('o', 'a', '3').allowed, true, 'the full table is swept before refusing');
});

t.test('capacity must be a positive integer', async (t) => {
  t.throws(() => new PairBuckets({ capacity: 0 }));
  t.throws(() => new PairBuckets({ capacity: 1.5 }));
});

t.test('buckets and the pair cap are per organisation: one tenant cannot drain or fill another', async (t) => {
  const c = fakeClock();
  const b = new PairBuckets({ capacity: 2, clock: c.now, maxPairs: 2 });
  t.same([b.take('org-a', 'x', 'y').allowed, b.take('org-a', 'x', 'y').allowed, b.take('org-a', 'x', 'y').allowed], [true, true, false], 'org-a drained its own bucket');
  t.equal(b.take('org-b', 'x', 'y').allowed, true, 'the same pair in org-b has a full bucket');
  t.equal(b.take('org-a', 'x', 'z').allowed, true);
  t.equal(b.take('org-a', 'x', 'w').allowed, false, 'org-a is at its pair cap');
  t.equal(b.take('org-b', 'x', 'w').allowed, true, 'org-b still creates pairs');
  t.same([b.sizeOf('org-a'), b.sizeOf('org-b')], [2, 2]);
  c.advance(5 * 60_000);
  t.equal(b.sweep(), 4);
  t.same([b.sizeOf('org-a'), b.size], [0, 0], 'the per-organisation counts follow evictions');
});
