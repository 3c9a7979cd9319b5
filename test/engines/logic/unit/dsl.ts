import t, { type Test } from 'tap';
import { LIMITS, parseQuery, isDslInput, type ParseResult } from '../../../../plugins/engines/logic/dsl.js';
import { OPS } from '../../../../plugins/engines/logic/ops.js';

function ok(tt: Test, r: ParseResult) {
  if (!r.ok) tt.fail(`expected a formula, got ${r.kind}: ${r.message}`);
  return r.ok ? r.formula : undefined;
}

t.test('every term operator of the table parses with its minimum arity', async (t) => {
  const samples: Record<string, string> = {
    AND: '(AND (GT x 1))', OR: '(OR (GT x 1) (LT x 0))', NOT: '(NOT (GT x 1))', IMPLIES: '(IMPLIES (GT x 1) (GT x 0))',
    IFF: '(IFF (GT x 1) (GT x 0))', XOR: '(XOR (GT x 1) (GT x 0))', EQ: '(EQ x 1)', NEQ: '(NEQ x 1)', GT: '(GT x 1)',
    LT: '(LT x 1)', GTE: '(GTE x 1)', LTE: '(LTE x 1)', PLUS: '(EQ (PLUS x 1) 2)', MINUS: '(EQ (MINUS x) 2)',
    MULT: '(EQ (MULT x 2) 4)', DIV: '(EQ (DIV x 2) 4)', MOD: '(EQ (MOD x 2) 1)', POW: '(EQ (POW x 2) 4)',
    ITE: '(EQ (ITE (GT x 0) x 0) 3)', FORALL: '(FORALL ((y Int)) (GTE (MULT y y) 0))', EXISTS: '(EXISTS ((y Int)) (GT y x))',
    VAR: '(VAR x Int) (GT x 1)',
  };
  t.same(Object.keys(samples).sort(), [...OPS.keys()].sort(), 'the samples cover the whole table');
  for (const [op, q] of Object.entries(samples)) t.ok(parseQuery(q).ok, `${op}: ${q}`);
});

t.test('operators are case-insensitive, names are not', async (t) => {
  const f = ok(t, parseQuery('(and (gt X 1) (lt x 5))'));
  t.equal(f?.canonical, '(VAR X Int) (VAR x Int) (AND (GT X 1) (LT x 5))');
});

t.test('undeclared names are Int; VAR declares Int, Real, Bool', async (t) => {
  const f = ok(t, parseQuery('(VAR r Real) (VAR p bool) (AND p (GT r 1.50) (LT n 007))'));
  t.same(f?.vars, [{ name: 'n', sort: 'Int' }, { name: 'p', sort: 'Bool' }, { name: 'r', sort: 'Real' }]);
  t.equal(f?.canonical, '(VAR n Int) (VAR p Bool) (VAR r Real) (AND p (GT r 1.5) (LT n 7))');
  t.equal(f?.body.kind === 'app' && f.body.args[1].sort, 'Bool');
});

t.test('canonical form reads back to itself', async (t) => {
  for (const q of [
    '(AND   (GT x 5.5)\n(LT x 6))',
    '(VAR b Bool) (IFF b (EXISTS ((k Int) (r Real)) (AND (EQ (MULT 2 k) x) (GT r 0.25))))',
    '(EQ (ITE true (MINUS x) (POW y 3)) -0)',
  ]) {
    const a = ok(t, parseQuery(q));
    const b = ok(t, parseQuery(a!.canonical));
    t.equal(b?.canonical, a?.canonical, q);
  }
});

t.test('syntax errors are ERROR kinds, not BLOCKED', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['', /empty/],
    ['   \n ', /empty/],
    ['(AND (GT x 5) (LT x 10)', /unbalanced/],
    ['(AND (GT x 5)) (LT x 10))', /unbalanced/],
    ['(GT x)', /GT takes 2 arguments, got 1/],
    ['(NOT (GT x 1) (GT x 2))', /NOT takes 1 argument/],
    ['(AND)', /AND takes at least 1/],
    ['(MINUS x y z)', /MINUS takes 1 to 2/],
    ['(GT x 5#)', /bad token/],
    ['(GT x 1) (LT x 2)', /unexpected input after the formula/],
    ['((GT x 1))', /expected an operator/],
    ['(5 x)', /expected an operator/],
    ['(VAR x Int)', /no formula/],
    ['(AND (VAR x Int) (GT x 1))', /VAR declarations must come before/],
    ['(VAR x Complex) (GT x 1)', /needs a sort/],
    ['(FORALL (y Int) (GT y 1))', /binds \(name Sort\) pairs/],
    ['(GT AND 1)', /operator AND used as a value/],
  ];
  for (const [q, re] of cases) {
    const r = parseQuery(q);
    t.equal(r.ok, false, q);
    if (!r.ok) {
      t.equal(r.kind, 'syntax', `${JSON.stringify(q)} is a syntax error`);
      t.match(r.message, re, q);
    }
  }
});

t.test('sort errors are type errors', async (t) => {
  for (const q of ['(AND x (GT y 1))', '(GT (GT x 1) 2)', '(MOD x 2.5)', '(PLUS x 1)', '(VAR p Bool) (EQ p 1)',
    '(POW x y)', '(POW x -1)', '(POW x 65)', '(VAR x Int) (VAR x Real) (GT x 1)', '(ITE (GT x 1) true 2)']) {
    const r = parseQuery(q);
    t.equal(r.ok ? 'ok' : r.kind, 'type', q);
  }
});

t.test('an unknown operator anywhere blocks the query, before arity problems', async (t) => {
  for (const [q, op] of [['(AND (GT x 5) (EXEC x))', 'EXEC'], ['(IMPORT os)', 'IMPORT'], ['(GT (SHELL) (NOT))', 'SHELL'],
    ['(FORALL ((y Int)) (EVAL y))', 'EVAL'], ['(x 1)', 'x']] as const) {
    const r = parseQuery(q);
    t.same(r.ok ? null : { kind: r.kind, operator: r.operator }, { kind: 'unknown_operator', operator: op }, q);
  }
  const binder = parseQuery('(FORALL ((y Int)) (GT y -1000))');
  t.ok(binder.ok, 'names in a binder list are not operators');
});

t.test('size caps: length, depth, nodes, literals', async (t) => {
  const long = '(AND ' + '(GT x 1) '.repeat(Math.ceil(LIMITS.maxQueryChars / 9)) + ')';
  const deep = '(NOT '.repeat(LIMITS.maxDepth + 1) + '(GT x 1)' + ')'.repeat(LIMITS.maxDepth + 1);
  const okDeep = '(NOT '.repeat(LIMITS.maxDepth - 1) + '(GT x 1)' + ')'.repeat(LIMITS.maxDepth - 1);
  const wide = '(AND ' + '(GT x 1)'.repeat(LIMITS.maxNodes / 3 + 1) + ')';
  for (const [q, re] of [[long, /characters/], [deep, /nesting/], [wide, /nodes/], [`(GT x ${'9'.repeat(70)})`, /literal/],
    ['(GT (POW (POW x 8) 9) 1)', /degree 72/], ['(GT (MULT (POW x 60) x x x x x) 1)', /degree 65/]] as const) {
    const r = parseQuery(q);
    t.same(r.ok ? 'ok' : r.kind, 'limit');
    if (!r.ok) t.match(r.message, re);
  }
  t.ok(parseQuery(okDeep).ok, `depth ${LIMITS.maxDepth} is allowed`);
  t.ok(parseQuery('(AND (GT (POW (POW x 8) 8) 1) (GT (MULT (POW x 60) x x x x) 1))').ok, `degree ${LIMITS.maxDegree} is allowed`);
});

t.test('DSL input: a bracket first, or an operator in capitals at the start or after "("; the rest is natural language', async (t) => {
  t.equal(isDslInput('  (AND (GT x 1))'), true);
  // issue 46: malformed formulas are DSL (a 400 syntax error), never text for a translator (a 422)
  for (const q of ['AND (GT x 5) (LT x 10))', 'GT x 5)', 'AND(GT x 5)', ')(GT x 5)', ' ) AND', 'x > 5 (AND (GT x 1)', 'the formula (OR (GT x 1) (LT x 0)', 'NOT (EQ x 1)']) {
    t.equal(isDslInput(q), true, q);
  }
  for (const q of ['is there an x above 5 and below 10?', 'x is above 5 (and below 10)', 'x is greater than 5 (or equal)', 'AND then x is 5', 'GT is a car', '']) {
    t.equal(isDslInput(q), false, q);
  }
});
