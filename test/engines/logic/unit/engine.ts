import t from 'tap';
import { solve, warmup, z3Threads } from '../../../../plugins/engines/logic/engine.js';
import { evaluate } from '../evaluate.js';

/** Cubes summing to 33: the smallest solution has 16-digit numbers; z3 cannot finish it in a second. */
const HARD_CUBES = '(EQ (PLUS (POW x 3) (POW y 3) (POW z 3)) 33)';

/** Pigeonhole in the corpus's 0/1 encoding: n+1 pigeons, n holes. Exponential for resolution. */
function pigeonhole(holes: number): string {
  const v = (p: number, h: number) => `h${p}_${h}`;
  const parts: string[] = [];
  for (let p = 0; p <= holes; p++) {
    for (let h = 0; h < holes; h++) parts.push(`(GTE ${v(p, h)} 0) (LTE ${v(p, h)} 1)`);
    parts.push(`(OR ${Array.from({ length: holes }, (_, h) => `(EQ ${v(p, h)} 1)`).join(' ')})`);
  }
  for (let h = 0; h < holes; h++)
    for (let a = 0; a <= holes; a++) for (let b = a + 1; b <= holes; b++) parts.push(`(OR (EQ ${v(a, h)} 0) (EQ ${v(b, h)} 0))`);
  return `(AND ${parts.join(' ')})`;
}

// z3 loaded before the first case (a top-level await: these tests share a process with others, see unit.test.ts)
await warmup();

t.test('SAT answers carry a model that satisfies the formula', async (t) => {
  const sat = [
    '(AND (GT x 5) (LT x 10))',
    '(AND (EQ (DIV x -3) 4) (EQ (MOD x -3) 2))',
    '(AND (EQ (DIV x 3) -4) (LT x -10))',
    '(AND (EQ (MOD x 5) 3) (LT x 0) (GT x -5))',
    '(VAR r Real) (AND (EQ (MULT 2 r) 11) (GT r 5))',
    '(VAR r Real) (AND (EQ (DIV r 4) 0.75) (GT (PLUS r x) 10))',
    '(VAR p Bool) (VAR q Bool) (AND (XOR p q) (IMPLIES p (GT x 3)) (IFF q (LT x 0)))',
    '(EQ (ITE (GT x 0) (POW x 3) (MINUS x)) 27)',
    '(AND (GT x 5.5) (LT x 7))',
    '(EQ x 123456789012345678901234567890)',
    '(AND (NEQ x y) (GTE x 0) (LTE y 0) (EQ (MINUS x y) 1))',
    '(AND (EQ (POW x 0) 1) (EQ (MULT x y 2) -12) (GT y 0))',
    '(VAR unused Real) (OR false (GT x 1))',
    '(AND (EQ (DIV -7 2) -4) (EQ (MOD -7 2) 1) (EQ (DIV 7 -2) -3) (EQ (MOD 7 -2) 1) (EQ (DIV 7 2.0) 3.5))',
  ];
  for (const q of sat) {
    const o = await solve({ query: q });
    t.equal(o.status, 'SAT', q);
    t.ok(o.model && evaluate(q, o.model), `model ${JSON.stringify(o.model)} satisfies ${q}`);
  }
  const r = await solve({ query: '(VAR r Real) (AND (EQ (MULT 2 r) 11) (GT r 5))' });
  t.same(r.model, { r: '11/2' }, 'rationals are exact n/d strings');
  const big = await solve({ query: '(EQ x 123456789012345678901234567890)' });
  t.same(big.model, { x: '123456789012345678901234567890' }, 'big integers are exact');
  const unused = await solve({ query: '(VAR unused Real) (OR false (GT x 1))' });
  t.ok(unused.model && 'unused' in unused.model, 'every declared variable gets a value');
});

t.test('UNSAT answers', async (t) => {
  for (const q of [
    '(AND (GT x 5.5) (LT x 6))',
    '(EQ (MULT 2 x) 7)',
    '(VAR r Real) (AND (GT r 1) (LT r 1))',
    '(AND (EQ (DIV x 3) 4) (EQ (MOD x 3) 3))',
    '(FORALL ((y Int)) (GT y x))',
    '(VAR p Bool) (AND p (NOT p))',
  ]) {
    const o = await solve({ query: q });
    t.equal(o.status, 'UNSAT', q);
    t.notOk(o.model, 'no model on UNSAT');
    t.type(o.canonical, 'string');
  }
  const e = await solve({ query: '(EXISTS ((y Int)) (AND (GT y x) (LT y 5)))' });
  t.equal(e.status, 'SAT', 'quantified formulas are solved');
  t.same(Object.keys(e.model ?? {}), ['x'], 'bound variables are not in the model');
});

t.test('refusals never reach a verdict', async (t) => {
  const blocked = await solve({ query: '(AND (GT x 5) (EXEC x))' });
  t.match(blocked, { status: 'BLOCKED', kind: 'unknown_operator', operator: 'EXEC' });
  const syntax = await solve({ query: '(AND (GT x 5) (LT x 10)' });
  t.match(syntax, { status: 'ERROR', kind: 'syntax' });
  t.notOk(syntax.model);
});

t.test('a query that times out returns ERROR and the next query still works', async (t) => {
  for (const hard of [HARD_CUBES, pigeonhole(11)]) {
    const o = await solve({ query: hard, timeoutMs: 300 });
    t.match(o, { status: 'ERROR', kind: 'timeout' }, hard.slice(0, 40));
    t.match(o.error, /timeout after 300 ms/);
    const next = await solve({ query: '(AND (GT x 5) (LT x 7))' });
    t.same({ status: next.status, model: next.model }, { status: 'SAT', model: { x: '6' } }, 'next query answers');
    const unsat = await solve({ query: '(AND (GT x 5) (LT x 6))' });
    t.equal(unsat.status, 'UNSAT', 'and the one after that');
  }
});

t.test('searches run on the calling thread: z3 starts no thread but its timer', async (t) => {
  // warm-up, SAT, UNSAT, quantified and timed-out searches have all run by now (tests run in order);
  // z3-solver's async check would have left a search thread beside the timer thread
  const { pthreads } = await z3Threads();
  t.ok(pthreads <= 1, `z3 threads: ${pthreads} (only the timer that enforces the timeout parameter)`);
});

t.test('concurrent queries are serialised on the shared solver and keep their own answers', async (t) => {
  const qs = Array.from({ length: 12 }, (_, i) => (i % 2 ? `(AND (GT x ${i}) (LT x ${i + 2}))` : `(AND (GT x ${i}) (LT x ${i + 1}))`));
  const outs = await Promise.all(qs.map((query) => solve({ query })));
  outs.forEach((o, i) => {
    t.equal(o.status, i % 2 ? 'SAT' : 'UNSAT', qs[i]);
    if (i % 2) t.same(o.model, { x: String(i + 1) });
  });
});
