import t from 'tap';
import { v, df } from '../../../helpers/math.js';
import { lex } from '../../../../plugins/engines/math/syntax.js';

t.test('disallowed constructs are BLOCKED before evaluation', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['import("fs")', /function|string/],
    ['import(1)', /unknown function 'import'/],
    ['evaluate("1")', /unknown function 'evaluate'|string/],
    ['evaluate(1)', /unknown function 'evaluate'/],
    ['a.b', /property access/],
    ['[1,2]', /matrix/],
    ['f(x)=x', /function definition/],
    ['f(x) = x + 1', /function definition/],
    ['"s"', /string literal/],
    ['x = 1; y', /./],
    ['1:3', /range/],
    ['a ? b : c', /conditional/],
    ['1 == 2', /operator/],
    ['{a: 1}', /object/],
    ['a[1]', /index|property/],
    ['a.b = 2', /assignment|property/],
    ['true', /constant/],
    ['Infinity', /unknown symbol|constant/],
    ['foo(2)', /unknown function 'foo'/],
    ['alpha + 1', /unknown symbol/],
    ['5 mod 2', /operator/],
    ['2 # comment', /comment/],
    ['x\'', /./],
  ];
  for (const [expr, why] of cases) {
    const o = v(expr);
    t.equal(o.status, 'BLOCKED', expr);
    t.equal(o.proof_ref, null, expr);
    t.equal(df(o).is_valid, false, expr);
    t.match(String(df(o).constraint_id), /^math_verifier\.(disallowed_construct|parse_error)$/, expr);
    if (df(o).constraint_id === 'math_verifier.disallowed_construct') t.match(df(o).message, why, expr);
  }
});

t.test('allowed vocabulary is accepted', async (t) => {
  for (const expr of ['sin(1)+cos(1)+tan(1)', 'asin(0.5)+acos(0.5)+atan(1)', 'sinh(1)+cosh(1)+tanh(1)', 'sqrt(2)+cbrt(2)+abs(-2)', 'exp(1)+log(2)+ln(2)+log10(2)', 'factorial(5)+binomial(5,2)+floor(2.5)+ceil(2.5)', '5!', 'pi + e + i', 'α + β', 'π/2', '2**3', '-(3)+(+2)']) {
    const o = v(expr);
    t.not(o.status, 'BLOCKED', `${expr}: ${o.agent_message}`);
  }
});

t.test('** is translated on the token level, never inside a string', async (t) => {
  t.same(lex('2**3').text, '2^3');
  t.same(lex('x ** 2 = x*x').equals.length, 1);
  t.same(lex('"a**b"').text, '"a**b"');
  t.same(lex('a <= b').equals, []);
  t.same(lex('a == b').equals, []);
  t.equal(v('2**10 = 1024').status, 'VERIFIED');
  t.equal(v('"2**3"').status, 'BLOCKED');
  t.match(df(v('"2**3"')).message, /string literal/);
});

t.test('NFKC normalisation and input limits', async (t) => {
  // fullwidth digits and operators normalise to ASCII
  const o = v('２＋２＝４');
  t.equal(o.status, 'VERIFIED');
  t.equal(df(o).is_valid, true);
  const long = v('1+'.repeat(2500) + '1');
  t.equal(long.status, 'BLOCKED');
  t.equal(df(long).constraint_id, 'math_verifier.input_too_long');
  const deep = v('('.repeat(70) + '1' + ')'.repeat(70));
  t.equal(deep.status, 'BLOCKED');
  t.equal(df(deep).constraint_id, 'math_verifier.depth_exceeded');
  const deepUnary = v('-'.repeat(100) + '1');
  t.equal(deepUnary.status, 'BLOCKED');
  t.equal(df(deepUnary).constraint_id, 'math_verifier.depth_exceeded');
  const chain = v(Array.from({ length: 80 }, (_, i) => `x^${i}`).join(' + '));
  t.equal(df(chain).constraint_id, 'math_verifier.depth_exceeded', 'a binary tree deeper than 64 is refused');
  t.equal(v('1 = 1 = 1').status, 'BLOCKED');
  t.equal(df(v('1 = 1 = 1')).constraint_id, 'math_verifier.parse_error');
  t.equal(df(v('1 +')).constraint_id, 'math_verifier.parse_error');
  t.equal(df(v('   ')).constraint_id, 'math_verifier.parse_error');
});

t.test('implicit multiplication after a division is ambiguous (decided on the parse tree)', async (t) => {
  for (const expr of ['1/2(3+1)', '6/2(1+2)', '8/2(2+2)', '1/2x', '1/2 x', 'a/b(c)', '1/2(3+1) = 2', '2 = 1/2(3+1)', 'x + 1/2x = 1.5x']) {
    const o = v(expr);
    t.equal(o.status, 'BLOCKED', expr);
    t.equal(o.proof_ref, null);
    const d = df(o);
    t.equal(d.is_valid, false, expr);
    t.equal(d.result, false, expr);
    t.equal(d.warning, 'ambiguous', expr);
    t.equal(d.constraint_id, 'math_verifier.ambiguous_implicit_multiplication', expr);
    t.type(d.message, 'string');
    t.type(d.simplified, 'string');
    t.equal(d.interpretations.length, 2);
  }
  // explicit forms and implicit products elsewhere are fine
  for (const expr of ['(1/2)(3+1)', '1/(2(3+1))', '(1/2)*(3+1)', '2x + 3x = 5x', '2(3+1)', '1/2*x = x/2']) {
    t.not(df(v(expr)).warning, 'ambiguous', expr);
  }
  // a textual look-alike with no implicit product is not flagged
  t.not(df(v('1/2*(3+1)')).warning, 'ambiguous');
  t.equal(df(v('1/2*(3+1) = 2')).is_valid, true);
});

t.test("an equation's left side decides whether the whole text is read as an assignment", async (t) => {
  // the whole-text parse runs only for a left side mathjs could assign to (a name, an accessor, a
  // call of a name); every other left side is parsed once and the verdicts stay what they were
  const cases: Array<[string, string, RegExp]> = [
    ['g(x, y) = x + y', 'math_verifier.disallowed_construct', /function definition/],
    ['unknownfn(x) = 2', 'math_verifier.disallowed_construct', /function definition/],
    ['f(2) = 3', 'math_verifier.disallowed_construct', /unknown function 'f'/],
    ['(f(x)) = 2', 'math_verifier.disallowed_construct', /unknown function 'f'/],
    ['a?.b = 2', 'math_verifier.disallowed_construct', /property access/],
    ['x[1 = 2', 'math_verifier.parse_error', /could not be parsed/],
    ['f(x) =', 'math_verifier.parse_error', /Both sides/],
  ];
  for (const [expr, id, why] of cases) {
    const o = v(expr);
    t.equal(o.status, 'BLOCKED', expr);
    t.equal(df(o).constraint_id, id, expr);
    t.match(o.agent_message, why, expr);
  }
  t.equal(v('x = x').status, 'VERIFIED');
  t.equal(df(v('x = 2')).result, false);
  t.equal(df(v('x y = y x')).result, true);
  t.equal(df(v('(x + 1)^2 = x^2 + 2x + 1')).result, true);
  t.equal(df(v('sin(x) = sin(x)')).result, true);
});
