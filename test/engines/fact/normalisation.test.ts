import t from 'tap';
import { judge, tokens } from '../../../plugins/engines/fact/index.js';
import { builtinsWithEngines, startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * Normalisation may only erase what does not change what a sentence states (case, punctuation,
 * articles, number formatting). These pairs differ in meaning, and each was SUPPORTED or REFUTED
 * (VERIFIED) when the tokenizer kept only ASCII letters and digits and dropped every other
 * character — symbols, words in other scripts, non-ASCII digits — or missed a negation.
 */
const NOT_SUPPORTED: Array<[claim: string, context: string, why: string]> = [
  ['Latency is > 100 ms.', 'Latency is < 100 ms.', 'comparison symbols'],
  ['The error rate is ≤ 5%.', 'The error rate is ≥ 5%.', 'comparison symbols'],
  ['It costs $5.', 'It costs €5.', 'currency symbols'],
  ['The drug is safe.', 'The drug is ¬safe.', 'a negation symbol'],
  ['东京 has 14 million people.', '北京 has 14 million people.', 'an entity in another script'],
  ['Η Αθήνα έχει 3 εκατομμύρια κατοίκους.', 'Η Ρώμη έχει 3 εκατομμύρια κατοίκους.', 'a sentence in Greek'],
  ['Paris is the capital of France. Берлин — столица Франции.', 'Paris is the capital of France.', 'a claim sentence in Cyrillic is not dropped'],
  ['Café Zürich opened in 1990.', 'Caf Z rich opened in 1990.', 'accented letters'],
  ['The population is ٣ million.', 'The population is ٥ million.', 'Arabic-Indic digits'],
  ['The area is 10² m.', 'The area is 102 m.', 'a superscript exponent is not a digit (NFKC glues 10² into 102)'],
  ['The pipe is 1½ inches wide.', 'The pipe is 11/2 inches wide.', 'a vulgar fraction after a digit'],
  ['The temperature was –5 degrees.', 'The temperature was 5 degrees.', 'an en dash used as a minus sign'],
  ['The board is 5″ long.', 'The board is 5′ long.', 'inches are not feet'],
];

/** Claims whose wording differs from the context's only in the number, but which negate or bound it: never REFUTED. */
const NOT_REFUTED: Array<[claim: string, context: string, why: string]> = [
  ['The elevator cannot carry 500 kg.', 'The elevator cannot carry 600 kg.', 'cannot'],
  ['The bridge isnʼt 300 metres long.', 'The bridge isnʼt 200 metres long.', "n't with a modifier-letter apostrophe"],
  ['The bridge isnt 300 metres long.', 'The bridge isnt 200 metres long.', "n't without an apostrophe"],
  ['The bridge is n\u200bot 300 metres long.', 'The bridge is n\u200bot 200 metres long.', 'not split by a zero-width space'],
  ['The company was founded before 1990.', 'The company was founded before 2000.', 'a bound in time'],
  ['She has lived there since 2001.', 'She has lived there since 2005.', 'a bound in time'],
  ['Latency is < 100 ms.', 'Latency is < 200 ms.', 'a bound as a symbol'],
  ['The mass is ~5 kg.', 'The mass is ~6 kg.', 'an approximation as a symbol'],
];

t.test('meaning-bearing characters are tokens: no SUPPORTED across them', async (t) => {
  for (const [claim, context, why] of NOT_SUPPORTED) t.not(judge(claim, context).verdict, 'SUPPORTED', why);
});

t.test('negations and bounds outside the old list: no REFUTED', async (t) => {
  for (const [claim, context, why] of NOT_REFUTED) t.equal(judge(claim, context).verdict, 'INCONCLUSIVE', why);
});

t.test('what normalisation still equates, and conflicts still found', async (t) => {
  t.same(tokens('Le café coûte 3 €.'), ['le', 'café', 'coûte', '#3', '€']);
  t.same(tokens('Growth was 5% in 2010–2020'), ['growth', 'was', '#5', 'percent', 'in', '#2010', '#2020'], 'an en dash between numbers is a range');
  t.same(tokens('x\u00adyz is ＂big＂'), ['xyz', 'is', 'big'], 'invisible characters vanish; quotes are punctuation');
  t.equal(judge('Le café coûte 3 €.', 'Le café coûte 3 €.').verdict, 'SUPPORTED');
  t.equal(judge('Le café coûte 4 €.', 'Le café coûte 3 €.').verdict, 'REFUTED', 'same wording, symbol included, another number');
  t.equal(judge('It costs $5.', 'It costs $6.').verdict, 'REFUTED');
  t.equal(judge('The temperature was –5 degrees.', 'The temperature was 5 degrees.').verdict, 'REFUTED', '-5 is not 5');
  t.equal(judge('THE TOWER IS 330 METRES TALL', 'The tower is 330 metres tall.').verdict, 'SUPPORTED');
});

t.test('over HTTP: a symbol-only difference is not VERIFIED', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), ...builtinsWithEngines('fact').filter((p) => p.name !== 'auth' && p.name !== 'agents')] });
  t.teardown(() => s.close());
  const post = (claim: string, context: string) => s.request('POST', '/verify/fact', { body: { claim, context }, apiKey: TEST_API_KEY });
  const lt = await post('Latency is > 100 ms.', 'Latency is < 100 ms.');
  t.equal(lt.status, 200);
  t.match(lt.body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null });
  const tokyo = await post('东京 has 14 million people.', '北京 has 14 million people.');
  t.match(tokyo.body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null });
  const cannot = await post('The elevator cannot carry 500 kg.', 'The elevator cannot carry 600 kg.');
  t.match(cannot.body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null });
  const same = await post('東京 has 14 million people.', 'Beijing is large. 東京 has 14 million people.');
  t.match(same.body, { verdict: 'SUPPORTED', status: 'VERIFIED', developer_fields: { engine_version: '1.2.0' } });
});
