import t from 'tap';
import { translateMath, LOCAL_PROVIDER } from '../../../plugins/providers/index.js';
import { localProvider, print } from '../../../plugins/providers/local.js';
import { tokenize } from '../../../plugins/providers/phrases.js';

t.test('plain arithmetic phrasing becomes a math-engine expression', async (t) => {
  const cases: Array<[string, string]> = [
    ['what is 12 times 7 plus 3', '12 * 7 + 3'],
    ['What is 12 times 7 plus 3?', '12 * 7 + 3'],
    ['square root of 144', 'sqrt(144)'],
    ['what is the square root of -4', 'sqrt(-4)'],
    ['calculate 10 divided by 4', '10 / 4'],
    ['how much is 7 x 6', '7 * 6'],
    ['what is 2 to the power of 10', '2 ^ 10'],
    ['what is 3 squared plus 4 squared', '3 ^ 2 + 4 ^ 2'],
    ['what is negative 3 squared', '(-3) ^ 2'],
    ['what is (2+3)*4', '(2 + 3) * 4'],
    ['what is 2 minus (3 minus 4)', '2 - (3 - 4)'],
    ['what is 15% of 80', '15 / 100 * 80'],
    ['what is 15 percent of 80', '15 / 100 * 80'],
    ['what is the sum of 3 and 4', '3 + 4'],
    ['what is the product of 6 and 7', '6 * 7'],
    ['what is the difference between 10 and 4', '10 - 4'],
    ['what is half of 50', '0.5 * 50'],
    ['what is 1,000 minus .5', '1000 - 0.5'],
    ['what is two hundred and five plus one thousand', '205 + 1000'],
    ['what is twenty one times three', '21 * 3'],
    ['what’s 9 cubed', '9 ^ 3'],
    ['2 ** 8', '2 ^ 8'],
    ['what is 8 ÷ 2 × 3', '8 / 2 * 3'],
    ['what does 6 times 7 equal?', '6 * 7'],
    ['how much does 10 minus 4 come to', '10 - 4'],
  ];
  for (const [text, expression] of cases) {
    const r = translateMath(text);
    t.same({ is_math: r.is_math, expression: r.expression, claimed: r.claimed_answer }, { is_math: true, expression, claimed: null }, text);
    t.equal(r.provider, LOCAL_PROVIDER);
    t.ok(r.confidence > 0 && r.confidence <= 1, 'confidence in range');
  }
});

t.test('a stated answer becomes the claimed answer; the expression excludes it', async (t) => {
  const cases: Array<[string, string, number, string]> = [
    ['is 15% of 80 equal to 12', '15 / 100 * 80', 12, '12'],
    ['Is 2+2=5?', '2 + 2', 5, '5'],
    ['12 times 7 plus 3 is 87', '12 * 7 + 3', 87, '87'],
    ['does 3 squared equal 9', '3 ^ 2', 9, '9'],
    ['is 5 - 7 equal to negative 2', '5 - 7', -2, '-2'],
    ['10 divided by 4 equals 2.5', '10 / 4', 2.5, '2.5'],
    ['is 10% of 50 equal to 5%', '10 / 100 * 50', 0.05, '0.05'],
    ['the square root of 144 = 12', 'sqrt(144)', 12, '12'],
  ];
  for (const [text, expression, claimed, exact] of cases) {
    const r = translateMath(text);
    t.same(
      { is_math: r.is_math, expression: r.expression, claimed: r.claimed_answer, exact: r.claimed_answer_exact },
      { is_math: true, expression, claimed, exact },
      text,
    );
  }
});

t.test('text outside the vocabulary is not math; nothing is guessed', async (t) => {
  for (const text of ['hello', 'what is the capital of France', 'is the sky blue', 'what is x plus 3', 'what is 3 plus', 'is 2 plus 2 equal to 1 plus 3', 'rm -rf / 5', 'a'.repeat(2001) + ' 1+1']) {
    const r = translateMath(text);
    t.equal(r.is_math, false, JSON.stringify(text.slice(0, 40)));
    t.equal(r.expression, null);
    t.equal(r.claimed_answer, null);
  }
});

t.test('simple comparisons become logic DSL; other logic and fact targets are refused with cannot_translate', async (t) => {
  t.same(await localProvider.translate('logic_dsl', 'x is greater than 5'), { expression: '(GT x 5)', provider: 'local' });
  const table: Array<[string, string]> = [
    ['x is greater than 5 and less than 3', '(AND (GT x 5) (LT x 3))'],
    ['y is at least 2', '(GTE y 2)'],
    ['a equals b plus 1', '(EQ a (PLUS b 1))'],
    ['n is at most 10, but n is not 7', '(AND (LTE n 10) (NEQ n 7))'],
    ['x ≥ 2 or x < negative 1', '(OR (GTE x 2) (LT x -1))'],
    ['price times 3 is less than or equal to 10.5', '(VAR price Real) (LTE (MULT price 3) 10.5)'],
    ['x divided by 4 equals y', '(VAR x Real) (VAR y Real) (EQ (DIV x 4) y)'],
    ['(x plus 1) times 2 is more than 8', '(GT (MULT (PLUS x 1) 2) 8)'],
    ['Suppose x exceeds y and y exceeds x.', '(AND (GT x y) (GT y x))'],
  ];
  for (const [text, dsl] of table) t.same(await localProvider.translate('logic_dsl', text), { expression: dsl, provider: 'local' }, text);
  for (const text of ['the weather is nice', 'x is', '5 is greater than 3', 'x is greater than 5 £', 'x is between 1', 'x '.repeat(1500)]) {
    await t.rejects(localProvider.translate('logic_dsl', text), { name: 'ProviderError', code: 'cannot_translate', provider: 'local' }, text);
  }
  await t.rejects(localProvider.translate('fact_opinion', 'x'), { code: 'cannot_translate' });
});

t.test('the printer keeps the tree’s meaning with the fewest parentheses', async (t) => {
  const n = (v: string) => ({ k: 'num' as const, v });
  t.equal(print({ k: 'bin', op: '-', a: n('1'), b: { k: 'bin', op: '-', a: n('2'), b: n('3') } }), '1 - (2 - 3)');
  t.equal(print({ k: 'bin', op: '-', a: { k: 'bin', op: '-', a: n('1'), b: n('2') }, b: n('3') }), '1 - 2 - 3');
  t.equal(print({ k: 'bin', op: '^', a: { k: 'bin', op: '^', a: n('2'), b: n('3') }, b: n('2') }), '(2 ^ 3) ^ 2');
  t.equal(print({ k: 'bin', op: '^', a: n('2'), b: { k: 'bin', op: '^', a: n('3'), b: n('2') } }), '2 ^ 3 ^ 2');
  t.equal(print({ k: 'neg', a: { k: 'bin', op: '+', a: n('1'), b: n('2') } }), '-(1 + 2)');
  t.equal(print({ k: 'bin', op: '*', a: n('-2'), b: n('3') }), '(-2) * 3');
});

t.test('the tokenizer refuses unknown words and characters', async (t) => {
  t.equal(tokenize('12 plus banana'), null);
  t.equal(tokenize('12 $ 3'), null);
  t.same(tokenize('1,234.5 percent'), [{ t: 'num', v: '1234.5' }, { t: 'percent' }]);
});
