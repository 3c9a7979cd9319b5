import t from 'tap';
import mathPlugin from '../../../plugins/engines/math/index.js';
import { normalizeMathInput } from '../../../plugins/engines/math/index.js';
import { gluedDigits } from '../../../plugins/engines/math/normalize.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';
import type { Plugin } from '../../../core/types.js';

/**
 * NFKC folds "3²" into "32" and "10⁻³" into "10−3": `3² = 32` was proven true and attested.
 * Superscript digits are an exponent; other characters NFKC turns into digits are refused.
 */
t.test('normalizeMathInput reads superscripts as exponents and keeps width folding', async (t) => {
  t.equal(normalizeMathInput('3² = 32'), '3^(2) = 32');
  t.equal(normalizeMathInput('10⁻³'), '10^(-3)');
  t.equal(normalizeMathInput('x¹⁰+1'), 'x^(10)+1');
  t.equal(normalizeMathInput(' １+１＝２ '), '1+1=2', 'fullwidth forms still fold');
  t.equal(normalizeMathInput('  2+2=4 '), '2+2=4');
  for (const ch of ['₂', '①', '⑴', '⒈', '½', '㉑']) t.equal(gluedDigits(`2${ch}`), ch, `${ch} is refused`);
  for (const ok of ['１２', '𝟏𝟐', '3²', 'x⁻¹', 'π', '2·3']) t.equal(gluedDigits(ok), undefined, `${ok} is not glued`);
});

t.test('POST /verify/math: superscripts over HTTP', async (t) => {
  const subjects: Array<string | undefined> = [];
  const probe: Plugin = { name: 'subject-probe', register: (app) => app.phase('reply', (_c, o) => void (o.kind === 'reply' && subjects.push(o.reply.subject?.query as string | undefined))) };
  const s = await startServer({ plugins: [testAuthPlugin(), mathPlugin, probe], config: { workers: { threads: 1, task_timeout_ms: 120_000 } } });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const math = (expression: string) => s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression } });

  const false32 = await math('3² = 32');
  t.equal(false32.status, 200);
  t.equal(false32.body.status, 'VERIFIED');
  t.equal(false32.body.developer_fields.is_valid, false, '3² is 9, not 32');
  const nine = await math('3² = 9');
  t.equal(nine.body.developer_fields.is_valid, true);
  t.equal(subjects[subjects.length - 1], '3^(2) = 9', 'the attestation names what was proven');
  const milli = await math('10⁻³ = 0.001');
  t.equal(milli.body.developer_fields.is_valid, true, '10⁻³ is a thousandth, not 7');
  const seven = await math('10⁻³ = 7');
  t.equal(seven.body.developer_fields.is_valid, false);

  for (const e of ['2₂ = 22', '2① = 21', '1½ = 11/2']) {
    const r = await math(e);
    t.equal(r.body.status, 'BLOCKED', `${e} is refused, not read with glued digits`);
    t.equal(r.body.developer_fields.constraint_id ?? r.body.constraint_id, 'math_verifier.parse_error');
    t.match(r.body.agent_message + JSON.stringify(r.body), /not a digit/);
  }
});
