import t from 'tap';
import { createNlVerifier, type Issuer } from '../../../plugins/engines/natural-language/index.js';
import { translateMath, type LlmTranslator } from '../../../plugins/providers/index.js';
import { unverifiable, verified, type DiagnosticResult } from '../../../core/verdict.js';
import type { Verifier } from '../../../core/types.js';

/** the local rules as the translator; a math stand-in that checks claims by plain arithmetic on two integers */
const translator: LlmTranslator = {
  defaultProvider: 'local',
  resolve: () => 'local',
  available: () => ['local'],
  translate: (async (req: { text: string }) => translateMath(req.text)) as LlmTranslator['translate'],
};

const mathCalls: Record<string, unknown>[] = [];
const math: Verifier = {
  async verify(input) {
    mathCalls.push(input);
    const [a, b] = String(input.expression).split(' + ').map(Number);
    const value = a + b;
    if (input.expected_value === undefined) return unverifiable('value', { is_valid: true, value, is_symbolic: false, is_complex: false });
    const ok = value === Number(input.expected_value);
    return verified('checked', { is_valid: ok, is_correct: ok, calculated_value: String(value), difference: String(Math.abs(value - Number(input.expected_value))) }, {
      engine: 'math',
      engine_version: 'test',
      input: input.expression,
      result: { is_correct: ok },
    });
  },
};

function issuerReturning(result: Awaited<ReturnType<Issuer['issue']>>, seen: Array<{ d: DiagnosticResult; opts: unknown }>): Issuer {
  return {
    async issue(d, opts) {
      seen.push({ d, opts });
      return result;
    },
  };
}

t.test('signing failure: BLOCKED, attestation_error carries the code, nothing of the evaluation surfaces', async (t) => {
  const seen: Array<{ d: DiagnosticResult; opts: unknown }> = [];
  const v = createNlVerifier({
    translator: () => translator,
    math: () => math,
    attestation: () => issuerReturning({ is_issued: false, token: null, error_code: 'SIGNING_FAILURE', attestation_id: null }, seen),
  });
  const r = await v.verify({ query: 'is 2 plus 3 equal to 5' }, { orgId: 'org-1' });
  t.equal(r.httpStatus, 503);
  t.match(r.body, { status: 'BLOCKED', verification: null, final_answer: null, error_code: 'SIGNING_FAILURE', trust_boundary: { overall_status: 'BLOCKED', attestation_error: 'SIGNING_FAILURE' } });
  t.notOk('attestation' in r.body);
  t.equal(seen.length, 1);
  t.same(seen[0].opts, { engine: 'math', query: '2 + 3', org_id: 'org-1' }, 'issued for the translated expression and the caller’s organisation');
  t.equal(seen[0].d.status, 'VERIFIED');
  t.same(mathCalls.at(-1), { expression: '2 + 3', context: { domain: 'real' }, expected_value: '5' });
});

t.test('ISSUED: the token is returned in `attestation`; the verdict stays UNVERIFIABLE', async (t) => {
  const seen: Array<{ d: DiagnosticResult; opts: unknown }> = [];
  const v = createNlVerifier({
    translator: () => translator,
    math: () => math,
    attestation: () => issuerReturning({ is_issued: true, token: 'tok.en.sig', error_code: null, attestation_id: 'att_1' }, seen),
  });
  const r = await v.verify({ query: 'is 2 plus 3 equal to 6' });
  t.equal(r.httpStatus, 200);
  t.match(r.body, { status: 'INCONCLUSIVE', attestation: 'tok.en.sig', attestation_id: 'att_1', verification: { is_correct: false, diff: 1, inner_status: 'CORRECTION_NEEDED' } });
  t.equal(r.body.diagnostic.status, 'UNVERIFIABLE');
  t.equal(r.body.diagnostic.proof_ref, null);
  const none = await v.verify({ query: 'what is 2 plus 3' });
  t.match(none.body, { status: 'INCONCLUSIVE', final_answer: 5 });
  t.equal(seen.length, 1, 'no claim, no issuance');
});

t.test('missing services fail closed', async (t) => {
  const noTranslator = createNlVerifier({ translator: () => undefined, math: () => math, attestation: () => undefined });
  t.match((await noTranslator.verify({ query: '1 + 1' })).body, { status: 'ERROR', diagnostic: { developer_fields: { constraint_id: 'nl_verifier.translator_unavailable' } } });
  const noMath = createNlVerifier({ translator: () => translator, math: () => undefined, attestation: () => undefined });
  const r = await noMath.verify({ query: 'what is 1 plus 1' });
  t.equal(r.httpStatus, 503);
  t.match(r.body, { status: 'ERROR', diagnostic: { developer_fields: { constraint_id: 'nl_verifier.math_unavailable' } } });
});
