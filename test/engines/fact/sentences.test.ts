import t from 'tap';
import { judge, sentences } from '../../../plugins/engines/fact/index.js';
import { builtinsWithEngines, startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/** Where a context sentence ends decides what is evidence: a fragment of a sentence never is. */

t.test('a line break inside a sentence is white space, not a sentence end', async (t) => {
  for (const [claim, context] of [
    ['The sky is green.', 'It is false that\nthe sky is green.'],
    ['The drug is safe for children.', 'We found no evidence that the\r\ndrug is safe for children.'],
    ['The tower is 330 m tall.', 'Nobody believes that\rThe tower is 330 m tall.'],
    ['Water is dry.', 'The following claims are false:\n- Water is dry\n- Fire is cold'],
  ]) {
    t.match(judge(claim, context), { verdict: 'INCONCLUSIVE' }, JSON.stringify(context));
  }
  t.match(judge('The tower is 300 m tall.', 'It is false that\nthe tower is 330 m tall.'), { verdict: 'INCONCLUSIVE' }, 'no REFUTED from a fragment either');
  t.match(judge('Paris is in France.', 'Summary\n\nParis is in France.'), { verdict: 'SUPPORTED' }, 'a blank line is a paragraph break');
  t.same(sentences('One.\nTwo!\r\nThree? Four.').map((s) => s.text), ['One.', 'Two!', 'Three?', 'Four.']);
});

t.test('an abbreviation or a lower-case word after a period does not start a sentence', async (t) => {
  for (const [claim, context] of [
    ['Economy grew 5% in 2020.', 'It is a myth that the U.S. economy grew 5% in 2020.'],
    ['Smith wrote the report.', 'It is untrue that Dr. Smith wrote the report.'],
    ['Vaccines cause autism.', 'Nobody seriously claims that e.g. Vaccines cause autism.'],
    ['500 people died.', 'The report denies that approx. 500 people died.'],
    ['5 won the race.', 'It is false that No. 5 won the race.'],
    ['The sky is green.', 'It is not so. the sky is green.'],
  ]) {
    t.match(judge(claim, context), { verdict: 'INCONCLUSIVE' }, context);
  }
  t.match(judge('The sky is blue.', 'The answer is no. The sky is blue.'), { verdict: 'SUPPORTED' }, '"no." before a word ends a sentence');
  t.match(judge('The tower is 330 m tall.', 'Built in 1889. The tower is 330 m tall.'), { verdict: 'SUPPORTED' });
  t.match(judge('Dr. Smith wrote the report.', 'Dr. Smith wrote the report.'), { verdict: 'SUPPORTED' }, 'the claim is split the same way');
});

t.test('any question mark makes a question, which is never evidence', async (t) => {
  for (const context of ['The sky is green？', '(The sky is green?)', 'The sky is green?!', 'The sky is green‽', 'The sky is green؟', 'The sky is green\u037e', '"The sky is green?"']) {
    t.match(judge('The sky is green.', context), { verdict: 'INCONCLUSIVE' }, JSON.stringify(context));
  }
  t.match(judge('The sky is green.', 'The sky is green!'), { verdict: 'SUPPORTED' });
  t.match(judge('The sky is blue; grass is green.', 'The sky is blue; grass is green.'), { verdict: 'SUPPORTED' }, 'a semicolon is no Greek question mark');
});

t.test('.5 is the number 0.5', async (t) => {
  t.match(judge('The interest rate is .5%.', 'The interest rate is 0.5%.'), { verdict: 'SUPPORTED' });
  t.match(judge('The interest rate is .5%.', 'The interest rate is 5%.'), { verdict: 'REFUTED', sentences: [{ claim_value: '0.5', context_value: '5' }] });
  t.match(judge('The change was -.25 points.', 'The change was -0.25 points.'), { verdict: 'SUPPORTED' });
});

t.test('over HTTP: a wrapped negation and an abbreviation are not VERIFIED', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), ...builtinsWithEngines('fact').filter((p) => p.name !== 'auth' && p.name !== 'agents')] });
  t.teardown(() => s.close());
  const post = (claim: string, context: string) => s.request('POST', '/verify/fact', { body: { claim, context }, apiKey: TEST_API_KEY });
  const wrapped = await post('The drug is safe for children.', 'We found no evidence that the\ndrug is safe for children.');
  t.equal(wrapped.status, 200);
  t.match(wrapped.body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null });
  const abbrev = await post('Economy grew 5% in 2020.', 'It is a myth that the U.S. economy grew 5% in 2020.');
  t.match(abbrev.body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null });
  const question = await post('The sky is green.', 'The sky is green？');
  t.match(question.body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null });
  const half = await post('The interest rate is .5%.', 'The interest rate is 5%.');
  t.match(half.body, { verdict: 'REFUTED', status: 'VERIFIED', developer_fields: { is_valid: false, engine_version: '1.2.0' } });
});
