import t from 'tap';
import { v, df } from '../../../helpers/math.js';
import { proofRefOf } from '../../../../core/verdict.js';
import { ENGINE_VERSION } from '../../../../plugins/engines/math/engine.js';

t.test('proof_ref binds the input, the parameters and the result', async (t) => {
  const inputs = ['1 + 1 = 2', '1+1=2', '2 + 0 = 2', '(x+1)^2 = x^2+2x+1', '(y+1)^2 = y^2+2y+1', '2+2=5', '2+2=6', 'sin(x)^2+cos(x)^2 = 1'];
  const refs = inputs.map((e) => v(e).proof_ref);
  refs.forEach((r, i) => t.match(r, /^sha256:[0-9a-f]{64}$/, inputs[i]));
  t.equal(new Set(refs).size, refs.length, 'two different inputs never share a proof_ref');
  // determinism
  t.same(inputs.map((e) => v(e).proof_ref), refs);
  // the domain is a parameter of the proof
  t.not(v('sqrt(x^2) = x', { context: { domain: 'real' } }).proof_ref, v('sqrt(x^2) = x').proof_ref);
  // tolerance checks bind expected value and tolerance
  const a = v('sqrt(2)', { expected_value: '1.414214', tolerance: '0.000001' }).proof_ref;
  const b = v('sqrt(2)', { expected_value: '1.414214', tolerance: '0.0000011' }).proof_ref;
  const c = v('sqrt(2)', { expected_value: '1.4142136', tolerance: '0.000001' }).proof_ref;
  t.equal(new Set([a, b, c]).size, 3);
  t.equal(v('sqrt(2)', { expected_value: '1.414214', tolerance: '0.000001' }).proof_ref, a);
});

t.test('proof_ref is the core derivation over the documented evidence', async (t) => {
  const o = v('2+2=5');
  const d = df(o);
  const expected = proofRefOf({
    engine: 'math',
    engine_version: ENGINE_VERSION,
    input: '2+2=5',
    parameters: { context: { domain: 'complex' } },
    result: { is_valid: false, method: d.method, counterexample: d.counterexample },
  });
  t.equal(o.proof_ref, expected);
});

t.test('non-VERIFIED results never carry a proof_ref', async (t) => {
  for (const e of ['pi', 'x+1', '1/0', '9^9^9', '1/2(3+1)', 'import(1)', 'sqrt(x)^2 = x']) t.equal(v(e).proof_ref, null, e);
});
