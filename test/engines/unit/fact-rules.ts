import t from 'tap';
import { judge, tokens, sentences } from '../../../plugins/engines/fact/index.js';
import { canonicalDecimal } from '../../../plugins/engines/fact/rules.js';

const CONTEXT = [
  'The Eiffel Tower is 330 metres tall.',
  'It was completed in 1889.',
  'In 2020 Paris had a population of 2.1 million.',
  'Is the tower painted green?',
  'The budget was about 5 million euros.',
  'Visitors are not allowed on 3 floors.',
  'The lift carries 20 people.',
  'The lift carries 25 people.',
].join(' ');

t.test('normalisation: case, punctuation, articles and number formatting only', async (t) => {
  t.same(tokens('The Eiffel Tower is 330 metres tall.'), ['eiffel', 'tower', 'is', '#330', 'metres', 'tall']);
  t.same(tokens('Paris: 2,100,000 people'), tokens('paris 2.1 million people'));
  t.same(tokens('Growth was 5% in 2010–2020'), ['growth', 'was', '#5', 'percent', 'in', '#2010', '#2020']);
  t.same(tokens('It fell to −3.50 degrees'), ['it', 'fell', 'to', '#-3.5', 'degrees']);
  t.same(tokens('between 2010-2020'), ['between', '#2010', '#2020'], 'a hyphen between numbers is a range, not a sign');
  t.equal(canonicalDecimal('007.2500'), '7.25');
  t.equal(canonicalDecimal('-0.0'), '0');
  t.equal(canonicalDecimal('2.5', 6), '2500000');
  t.equal(canonicalDecimal('1.2345', 3), '1234.5');
  t.equal(sentences('One. Two?\nThree! 3.5 is a number.').length, 4);
  t.same(sentences('Is it? Yes.').map((s) => s.assertive), [false, true]);
});

t.test('exact_sentence: SUPPORTED only for a sentence the context states', async (t) => {
  for (const claim of ['The Eiffel Tower is 330 metres tall.', 'the eiffel tower is 330 metres tall', 'Eiffel Tower is 330 metres tall!', 'In 2020 Paris had a population of 2,100,000.']) {
    t.match(judge(claim, CONTEXT), { verdict: 'SUPPORTED', rule: 'exact_sentence' }, claim);
  }
  t.match(judge('The Eiffel Tower is 330 metres tall. It was completed in 1889.', CONTEXT), { verdict: 'SUPPORTED' }, 'every sentence of a conjunction');
  for (const claim of [
    'The Eiffel Tower is tall.',
    'The Eiffel Tower is 330 m tall.',
    'The tower is painted green.',
    'Is the tower painted green?',
    'The Eiffel Tower is 330 metres tall and was completed in 1889.',
    'The Eiffel Tower is 330 metres tall. It is made of wood.',
  ]) {
    t.match(judge(claim, CONTEXT), { verdict: 'INCONCLUSIVE', rule: null }, claim);
  }
});

t.test('numeric_conflict: REFUTED only for the same wording with a different single number', async (t) => {
  const r = judge('The Eiffel Tower is 300 metres tall.', CONTEXT);
  t.match(r, { verdict: 'REFUTED', rule: 'numeric_conflict' });
  t.match(r.sentences[0], { kind: 'refuted', claim_value: '300', context_value: '330', sentence: { index: 0 } });
  t.match(judge('In 2020 Paris had a population of 3 million.', CONTEXT), { verdict: 'INCONCLUSIVE' }, 'two numbers: which one is the quantity is not decided');
  t.match(judge('It was completed in 1890. The Eiffel Tower is 330 metres tall.', CONTEXT), { verdict: 'REFUTED' }, 'one refuted sentence refutes the conjunction');
  t.match(judge('The budget was about 7 million euros.', CONTEXT), { verdict: 'INCONCLUSIVE' }, 'an approximate number is not a value');
  t.match(judge('Visitors are not allowed on 4 floors.', CONTEXT), { verdict: 'INCONCLUSIVE' }, 'negated numbers do not conflict');
  t.match(judge('The lift carries 30 people.', CONTEXT), { verdict: 'INCONCLUSIVE' }, 'a self-contradictory context decides nothing');
  t.match(judge('The lift carries 20 people.', CONTEXT), { verdict: 'INCONCLUSIVE' });
  t.match(judge('The Eiffel Tower is 330.0 metres tall.', CONTEXT), { verdict: 'SUPPORTED' }, 'equal values in another notation');
});

t.test('degenerate input is inconclusive, never an error', async (t) => {
  t.match(judge('...', CONTEXT), { verdict: 'INCONCLUSIVE' });
  t.match(judge('The Eiffel Tower is 330 metres tall.', '!!!'), { verdict: 'INCONCLUSIVE' });
});
