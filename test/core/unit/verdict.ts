import t from 'tap';
import { blocked, diagnosticBody, diagnosticProblem, proofRefOf, renderVerdict, reviveDiagnostic, unverifiable, verified } from '../../../core/verdict.js';
import { canonicalJson, sha256Ref } from '../../../core/json/canonical.js';

const ev = (input: unknown, result: unknown = true) => ({ engine: 'test', engine_version: '1', input, result });

t.test('VERIFIED always carries a sha256 proof_ref derived from its evidence', async (t) => {
  const d = verified('ok', { is_valid: true }, ev('1+1=2'));
  t.equal(d.status, 'VERIFIED');
  t.match(d.proof_ref, /^sha256:[0-9a-f]{64}$/);
  t.equal(d.proof_ref, proofRefOf(ev('1+1=2')));
});

t.test('a VERIFIED without evidence cannot be constructed', async (t) => {
  t.throws(() => verified('x', {}, undefined as never));
  t.throws(() => verified('x', {}, { engine: '', engine_version: '1', input: 1, result: 1 }));
  t.throws(() => verified('x', {}, { engine: 'e', engine_version: '1', input: undefined, result: 1 }));
  t.throws(() => verified('x', {}, { engine: 'e', engine_version: '1', input: 1, result: Number.NaN }), 'NaN has no canonical form');
});

t.test('results are frozen: a status cannot be flipped after construction', async (t) => {
  const d = unverifiable('maybe');
  t.throws(() => {
    (d as { status: string }).status = 'VERIFIED';
  });
  t.throws(() => {
    (d.developer_fields as Record<string, unknown>).is_valid = true;
  });
});

t.test('non-VERIFIED results carry proof_ref null; BLOCKED names its constraint', async (t) => {
  t.equal(unverifiable('x').proof_ref, null);
  const b = blocked('no', 'engine.timeout');
  t.equal(b.proof_ref, null);
  t.equal(b.developer_fields.constraint_id, 'engine.timeout');
});

t.test('proof_ref is deterministic and insensitive to key order', async (t) => {
  const a = proofRefOf({ engine: 'm', engine_version: '1', input: { x: 1, y: 2 }, result: { ok: true } });
  const b = proofRefOf({ result: { ok: true }, input: { y: 2, x: 1 }, engine_version: '1', engine: 'm' });
  t.equal(a, b);
});

t.test('different inputs, results, parameters, engines or versions never share a proof_ref', async (t) => {
  const base = { engine: 'm', engine_version: '1', input: '2+2=4', parameters: { tol: '0.01' }, result: true };
  const refs = new Set([
    proofRefOf(base),
    proofRefOf({ ...base, input: '2+2=4 ' }),
    proofRefOf({ ...base, result: false }),
    proofRefOf({ ...base, parameters: { tol: '0.02' } }),
    proofRefOf({ ...base, parameters: undefined }),
    proofRefOf({ ...base, engine: 'n' }),
    proofRefOf({ ...base, engine_version: '2' }),
  ]);
  t.equal(refs.size, 7);
});

t.test('diagnosticProblem rejects every broken invariant', async (t) => {
  const good = verified('ok', {}, ev(1));
  t.equal(diagnosticProblem(JSON.parse(JSON.stringify(good))), null);
  t.match(diagnosticProblem({ ...good, proof_ref: null }), /requires a sha256 proof_ref/);
  t.match(diagnosticProblem({ ...good, proof_ref: 'sha256:abc' }), /requires a sha256 proof_ref/);
  t.match(diagnosticProblem({ ...unverifiable('x'), proof_ref: good.proof_ref }), /must be null/);
  t.match(diagnosticProblem({ ...good, status: 'SAT' }), /status/);
  t.match(diagnosticProblem({ ...good, admission: 'MAYBE' }), /admission/);
  t.match(diagnosticProblem([]), /not an object/);
  t.throws(() => reviveDiagnostic({ ...good, proof_ref: null }));
  t.equal(reviveDiagnostic(JSON.parse(JSON.stringify(good))).proof_ref, good.proof_ref);
  // what arrived from a worker stays the sender's: the revived verdict keeps a frozen copy of its fields
  const received = JSON.parse(JSON.stringify(verified('ok', { is_valid: true }, ev(1))));
  const revived = reviveDiagnostic(received);
  received.developer_fields.is_valid = false;
  t.equal(revived.developer_fields.is_valid, true);
  t.ok(Object.isFrozen(revived.developer_fields));
  t.ok(Object.isFrozen(revived));
});

t.test('wire layout: the DiagnosticResult on top, legacy fields copied beside it', async (t) => {
  const d = verified('ok', { is_valid: false, result: false, status: 'spoof' }, ev('2+2=5', false), 'BLOCKED');
  const body = diagnosticBody(d, { attestation: 'tok' });
  t.equal(body.status, 'VERIFIED', 'a developer field cannot overwrite the verdict');
  t.equal(body.is_valid, false);
  t.equal(body.result, false);
  t.equal(body.admission, 'BLOCKED');
  t.equal(body.attestation, 'tok');
  t.same(body.developer_fields, d.developer_fields);
});

t.test('renderVerdict: the body a reply carrying a verdict goes out with', async (t) => {
  const d = verified('ok', { is_valid: true, result: true }, ev('1=1'));
  const flat = renderVerdict({ status: 200, verdict: d, body: { latency_ms: 3 } });
  t.same(flat.body, diagnosticBody(d, { latency_ms: 3 }), 'flat: the same body diagnosticBody builds');
  t.equal(flat.verdict, d, 'the verdict stays on the reply');
  const nested = renderVerdict({ status: 403, verdict: blocked('no', 'x.y'), layout: 'nested', body: { status: 'BLOCKED', error: 'no' } });
  t.same(nested.body, { status: 'BLOCKED', error: 'no', diagnostic: blocked('no', 'x.y') }, 'nested: the endpoint keeps its status, the verdict under diagnostic');
  const plain = { status: 200, body: { anything: 1 } };
  t.equal(renderVerdict(plain), plain, 'a reply without a verdict is left as it is');
});

t.test('canonical JSON follows RFC 8785 for ordering, numbers and strings', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [3, { d: 1, c: 2 }] }), '{"a":[3,{"c":2,"d":1}],"b":1}');
  t.equal(canonicalJson([1e30, 4.5, 0.002, 1e-7, -0, 333333333.3333333]), '[1e+30,4.5,0.002,1e-7,0,333333333.3333333]');
  t.equal(canonicalJson('\u20ac$\u000f\nA\'B"\\\\"/'), '"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"');
  t.equal(canonicalJson({ '\u20ac': 1, '\r': 2, '1': 3 }), '{"\\r":2,"1":3,"€":1}');
  t.throws(() => canonicalJson({ a: Infinity }));
  t.equal(sha256Ref({}), 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
});
