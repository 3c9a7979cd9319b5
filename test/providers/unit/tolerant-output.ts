import t, { type Test } from 'tap';
import { openAiProvider } from '../../../plugins/providers/openai.js';
import { anthropicProvider } from '../../../plugins/providers/anthropic.js';
import { firstObject, MAX_ECHO_CHARS, MAX_OBJECT_CHARS, untrustedReply } from '../../../plugins/providers/output.js';
import type { Provider } from '../../../plugins/providers/types.js';
import { startFakeLlm, type Behaviour } from '../../helpers/fake-llm.js';

// Real model replies: the spec's translation object without is_math, JSON in fences or prose,
// numbers as strings. Each is read; anything else is refused with the reply kept as untrusted data.

const SPEC_OBJECT = { expression: '17 * 3', claimed_answer: null, reasoning: 'seventeen times three', confidence: 0.9 };

async function provider(t: Test, kind: 'openai' | 'anthropic', replies: Behaviour[]): Promise<Provider> {
  let n = 0;
  const fake = await startFakeLlm(kind, () => replies[n++] ?? { status: 599 });
  t.teardown(() => fake.close());
  return kind === 'openai'
    ? openAiProvider({ baseUrl: fake.url, apiKey: null, model: 'm', timeoutMs: 2000 })
    : anthropicProvider({ baseUrl: fake.url, apiKey: 'k', model: 'm', timeoutMs: 2000 });
}

for (const kind of ['openai', 'anthropic'] as const) {
  t.test(`${kind}: the variants real models write are read`, async (t) => {
    const p = await provider(t, kind, [
      { content: JSON.stringify(SPEC_OBJECT) },
      { content: JSON.stringify({ ...SPEC_OBJECT, expression: null }) },
      { content: 'Here is the translation:\n```json\n' + JSON.stringify(SPEC_OBJECT) + '\n```\nLet me know if you need more.' },
      { content: 'Sure! {"expression": "2 + 2", "claimed_answer": "4", "reasoning": "uses {braces} and \\"quotes\\"", "confidence": "0.75"} Hope that helps.' },
      { content: '```\n{"is_math": true, "expression": "10 / 4", "claimed_answer": "2.5", "reasoning": "r", "confidence": 1}\n```' },
      { content: 'The formula: {"expression": "(AND (GT x 5) (LT x 3))"} — done.' },
      { content: 'My reading: {"verdict": "REFUTED", "reasoning": "no", "confidence": "0.6"}' },
    ]);
    t.same(await p.translate('math', 'What is seventeen times three?'), {
      is_math: true, expression: '17 * 3', claimed_answer: null, claimed_answer_exact: null, reasoning: 'seventeen times three', confidence: 0.9, provider: kind,
    }, 'is_math absent: inferred true from the expression');
    t.match(await p.translate('math', 'hello'), { is_math: false, expression: null }, 'is_math absent and no expression: not math');
    t.match(await p.translate('math', 'q'), { is_math: true, expression: '17 * 3' }, 'fenced JSON inside prose');
    t.match(await p.translate('math', 'q'), { is_math: true, expression: '2 + 2', claimed_answer: 4, claimed_answer_exact: '4', confidence: 0.75, reasoning: 'uses {braces} and "quotes"' }, 'prose around, numbers as strings, braces in strings');
    t.match(await p.translate('math', 'q'), { claimed_answer_exact: '2.5', confidence: 1 });
    t.same(await p.translate('logic_dsl', 'q'), { expression: '(AND (GT x 5) (LT x 3))', provider: kind });
    t.same(await p.translate('fact_opinion', 'q'), { verdict: 'REFUTED', reasoning: 'no', confidence: 0.6, provider: kind });
  });

  t.test(`${kind}: anything else is refused, and the error keeps what the model said`, async (t) => {
    const bad = [
      'I think the answer is 51.',
      '{"expression": "17 * 3", "claimed_answer": null, "reasoning": "unclosed"',
      JSON.stringify({ ...SPEC_OBJECT, confidence: 'very' }),
      JSON.stringify({ ...SPEC_OBJECT, confidence: '1.5' }),
      JSON.stringify({ ...SPEC_OBJECT, claimed_answer: 'fifty-one' }),
      JSON.stringify({ ...SPEC_OBJECT, is_math: true, expression: null }),
      JSON.stringify({ expression: '17 * 3' }),
      '[{"expression": "1", "claimed_answer": null, "reasoning": "r", "confidence": 1}]',
      'prose {not json at all} more prose',
    ];
    const p = await provider(t, kind, bad.map((content) => ({ content })));
    for (const text of bad) {
      const err = await p.translate('math', 'q').then(() => null, (e: unknown) => e as { name: string; code: string; modelOutput?: string });
      t.match(err, { name: 'ProviderError', code: 'malformed_output' }, text);
      t.equal(err?.modelOutput, text, 'the refused reply is kept verbatim');
    }
  });
}

t.test('firstObject: one pass, bounded, string-aware', async (t) => {
  t.equal(firstObject('a {"x": "}"} b {"y": 1}'), '{"x": "}"}');
  t.equal(firstObject('{"a": "\\\\"} tail'), '{"a": "\\\\"}');
  t.equal(firstObject('no braces'), null);
  t.equal(firstObject('{"open": {"never": "closed"}'), null);
  const long = '{"x": "' + 'a'.repeat(MAX_OBJECT_CHARS) + '"}';
  t.equal(firstObject(long), null, 'an object longer than the bound is not looked for to its end');
  const deep = '{'.repeat(200_000);
  t.equal(firstObject(deep), null, 'deep nesting costs one bounded pass');
});

t.test('untrustedReply: flagged, capped, well-formed', async (t) => {
  t.same(untrustedReply('hi'), { untrusted: true, model_output: 'hi', truncated: false });
  const long = untrustedReply('x'.repeat(MAX_ECHO_CHARS + 10));
  t.equal(long.model_output.length, MAX_ECHO_CHARS);
  t.equal(long.truncated, true);
  const pair = untrustedReply('x'.repeat(MAX_ECHO_CHARS - 1) + '😀');
  t.equal(pair.model_output, 'x'.repeat(MAX_ECHO_CHARS - 1), 'a surrogate pair is not split at the cap');
  t.equal(untrustedReply('a\uD800b').model_output, 'a\uFFFDb', 'a lone surrogate becomes U+FFFD');
});
