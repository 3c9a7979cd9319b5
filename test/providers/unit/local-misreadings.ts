import t from 'tap';
import { translateMath } from '../../../plugins/providers/index.js';
import { localProvider } from '../../../plugins/providers/local.js';

/**
 * Sentences the local translator used to read as something other than what they say. Each was a
 * well-formed translation the math or logic engine then checked exactly, so the user got a
 * confident answer to a question they did not ask ("is 3² equal to 32" → yes). A sentence the rules
 * cannot read faithfully must be refused (not math / cannot_translate), never guessed.
 */
const math = (text: string) => {
  const r = translateMath(text);
  return r.is_math ? { expression: r.expression, claimed: r.claimed_answer_exact } : null;
};
const logic = async (text: string) => {
  try {
    return (await localProvider.translate('logic_dsl', text)).expression;
  } catch (err) {
    return (err as { code?: string }).code ?? 'threw';
  }
};

t.test('number words follow the grammar of English numerals, or the text is not read', async (t) => {
  for (const text of [
    'is twenty twenty equal to 40',
    'is one one equal to 2',
    'is nineteen ninety equal to 109',
    'is ten five equal to 15',
    'is 2 plus 2 equal to four four',
    'what is thousand thousand',
    'what is two thousand three thousand',
    'what is one million million',
    'what is one thousand million',
    'what is zero hundred',
    'what is one hundred hundred',
    'what is twenty one hundred',
  ]) {
    t.equal(math(text), null, text);
  }
  const read: Array<[string, string]> = [
    ['what is twenty one', '21'],
    ['what is a hundred', '100'],
    ['what is twelve hundred', '1200'],
    ['what is one hundred and five', '105'],
    ['what is one hundred ten', '110'],
    ['what is one hundred thousand two hundred and six', '100206'],
    ['what is three million four thousand', '3004000'],
    ['what is zero', '0'],
  ];
  for (const [text, expression] of read) t.same(math(text), { expression, claimed: null }, text);
});

t.test('superscript digits are an exponent, never digits glued to the base', async (t) => {
  t.same(math('is 3² equal to 32'), { expression: '3 ^ 2', claimed: '32' });
  t.same(math('is 3² equal to 9'), { expression: '3 ^ 2', claimed: '9' });
  t.same(math('what is 10⁻³'), { expression: '10 ^ (-3)', claimed: null });
  t.same(math('what is 2³²'), { expression: '2 ^ 32', claimed: null });
  t.same(math('what is negative 3²'), { expression: '(-3) ^ 2', claimed: null }, 'as "negative 3 squared"');
  for (const text of ['is 2₁ equal to 21', 'what is 2⁽³⁾', 'what is 2ⁿ']) t.equal(math(text), null, text);
  t.equal(await logic('x² is 4'), 'cannot_translate', 'not the name x2');
  t.equal(await logic('x is 10⁻³'), 'cannot_translate', 'not 10 - 3');
  t.equal(await logic('x₁ is 4'), 'cannot_translate');
});

t.test('"between" does not depend on the order of its two ends', async (t) => {
  t.same(math('is the difference between 3 and 10 equal to 7'), { expression: '10 - 3', claimed: '7' });
  t.same(math('is the difference between 10 and 3 equal to 7'), { expression: '10 - 3', claimed: '7' });
  t.same(math('what is the difference between 0.25 and 0.5'), { expression: '0.5 - 0.25', claimed: null });
  t.same(math('what is the difference between negative 10 and negative 3'), { expression: '(-3) - (-10)', claimed: null });
  t.same(math('what is the difference between 2 plus 1 and 10'), { expression: 'abs(2 + 1 - 10)', claimed: null }, 'not numbers: |a − b|');
  t.same(math('what is the difference of 3 and 10'), { expression: '3 - 10', claimed: null }, '"difference of" is a − b');
  t.equal(await logic('x is between 5 and 1'), '(AND (GTE x 1) (LTE x 5))');
  t.equal(await logic('x is between 1 and 5'), '(AND (GTE x 1) (LTE x 5))');
  t.equal(await logic('x is between negative 5 and negative 10'), '(AND (GTE x -10) (LTE x -5))');
  t.equal(await logic('x is between y and 1'), '(OR (AND (GTE x y) (LTE x 1)) (AND (GTE x 1) (LTE x y)))');
});

t.test('a word operator whose argument has no end in English is refused unless parenthesised', async (t) => {
  for (const text of [
    'is the square root of 16 plus 9 equal to 5',
    'is the square root of 16 plus 9 equal to 13',
    'is the product of 2 and 3 plus 4 equal to 14',
    'is the sum of 2 and 3 times 4 equal to 20',
    'is half of 10 plus 2 equal to 7',
    'is twice 3 plus 1 equal to 7',
    'is 10% of 200 plus 5 equal to 25',
    'what is sqrt 16 + 9',
  ]) {
    t.equal(math(text), null, text);
  }
  t.same(math('is the square root of (16 plus 9) equal to 5'), { expression: 'sqrt(16 + 9)', claimed: '5' });
  t.same(math('is (the square root of 16) plus 9 equal to 13'), { expression: 'sqrt(16) + 9', claimed: '13' });
  t.same(math('what is sqrt(16) + 9'), { expression: 'sqrt(16) + 9', claimed: null });
  t.same(math('what is the product of 2 and (3 plus 4)'), { expression: '2 * (3 + 4)', claimed: null });
  t.same(math('what is 15% of 80'), { expression: '15 / 100 * 80', claimed: null });
  t.same(math('what is 50% of 50% of 80'), { expression: '50 / 100 * (50 / 100 * 80)', claimed: null });
  t.same(math('what is the sum of the sum of 1 and 2 and 3'), { expression: '1 + 2 + 3', claimed: null });
  t.same(math('what is the square root of 16 squared'), { expression: 'sqrt(16 ^ 2)', claimed: null });
});

t.test('a bare percentage is added only to percentages ("100 plus 10%" is 110 in English)', async (t) => {
  for (const text of ['is 100 plus 10% equal to 110', 'what is 100 minus 10 percent', 'what is 10% plus 100', 'what is 100 - -10%']) t.equal(math(text), null, text);
  t.same(math('is 10% plus 5% equal to 15%'), { expression: '10 / 100 + 5 / 100', claimed: '0.15' });
  t.same(math('what is 100 minus 10% of 100'), { expression: '100 - 10 / 100 * 100', claimed: null });
  t.same(math('what is 200 times 10%'), { expression: '200 * (10 / 100)', claimed: null });
});

t.test('the logic translator reads numbers in digits, never number words as free variables', async (t) => {
  for (const text of ['x is greater than twenty', 'x times x is less than zero', 'x is between one and five', 'Ten is x', 'x is half', 'x is greater than pi', 'x is less than infinity']) {
    t.equal(await logic(text), 'cannot_translate', text);
  }
  t.equal(await logic('x is greater than 20'), '(GT x 20)');
  t.equal(await logic('x is greater than twentyone'), '(GT x twentyone)', 'a name that only starts like a number word is a name');
});

t.test('a comma outside a number is refused, not skipped as a space', async (t) => {
  // the comma groups the sum: (2 + 3) * 4 = 20, where skipping it read 2 + 3 * 4
  for (const text of ['is 2 plus 3, times 4, equal to 20', 'what is twenty, one', 'what is the sum of 2, and 3', 'what is 1,5 plus 1']) t.equal(math(text), null, text);
  t.same(math('is 1,000,000 equal to 1000000'), { expression: '1000000', claimed: '1000000' }, 'thousands groups still read');
  t.same(math('what is 12,345.67 minus .5'), { expression: '12345.67 - 0.5', claimed: null });
});

t.test('the logic translator refuses words that describe a number rather than taking them as names', async (t) => {
  // "x is positive and x is less than 0" was (AND (EQ x positive) (LT x 0)): SAT, with positive = x
  for (const text of ['x is positive', 'x is positive and x is less than 0', 'x is even', 'x is prime', 'x is nonzero', 'Real is x']) {
    t.equal(await logic(text), 'cannot_translate', text);
  }
  t.equal(await logic('x is y'), '(EQ x y)', 'a name is still a name');
  t.equal(await logic('x is positives'), '(EQ x positives)');
});

t.test('an exponent in words ends where English says it does, or the text is refused', async (t) => {
  // "2 raised to 3 plus 1" was 2 ^ 3 + 1 = 9, as likely meant 2 ^ 4 = 16
  for (const text of ['is 2 raised to 3 plus 1 equal to 16', 'what is 2 to the power of 3 plus 1', 'what is 2 to the power of 3 to the power of 2', 'is 2 to the power of 3 times 2 equal to 16']) {
    t.equal(math(text), null, text);
  }
  t.same(math('what is 2 to the power of (3 plus 1)'), { expression: '2 ^ (3 + 1)', claimed: null });
  t.same(math('what is (2 to the power of 3) plus 1'), { expression: '2 ^ 3 + 1', claimed: null });
  t.same(math('what is 2 to the power of negative 3'), { expression: '2 ^ (-3)', claimed: null });
  t.same(math('what is 2 ^ 3 + 1'), { expression: '2 ^ 3 + 1', claimed: null }, 'the symbol keeps its precedence');
});

t.test('a number followed by an ellipsis is a repeating decimal, not the digits shown', async (t) => {
  // the trailing "..." was dropped as punctuation: "1/3 = 0.333" checked, and answered false
  for (const text of ['is 1/3 equal to 0.333...', 'is 2/3 equal to 0.666…', 'what is 0.333... times 3']) t.equal(math(text), null, text);
  t.same(math('is 0.5 plus 0.5 equal to 1.'), { expression: '0.5 + 0.5', claimed: '1' }, 'a full stop is still punctuation');
  t.equal(await logic('x is 0.333...'), 'cannot_translate');
  t.equal(await logic('x is 5.'), '(EQ x 5)');
});
