import t from 'tap';
import { sha256Ref } from '../../core/json/canonical.js';
import { blocked, unverifiable, verified } from '../../core/verdict.js';
import vc, { commitmentHolds, documentProofRef, MALFORMED_DIAGNOSTIC, validateDocument } from '../../plugins/verification-context/index.js';
import { startHarness } from '../helpers/attestation/harness.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';
import health from '../../plugins/health/index.js';
import attestation from '../../plugins/attestation/index.js';
import { claimsFor, es256, HEADER } from '../helpers/attestation/forge.js';
import { P256_PEM } from '../helpers/attestation/fixtures.js';

/** Every leaf path of a JSON value (arrays and objects), for field-by-field tampering. */
function leaves(v: unknown, path: string[] = []): string[][] {
  if (v && typeof v === 'object') return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [path];
}
function tamper(doc: unknown, path: string[]): unknown {
  const copy = structuredClone(doc) as Record<string, unknown>;
  let cur = copy as Record<string, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  const k = path[path.length - 1];
  const v = cur[k];
  cur[k] = typeof v === 'string' ? (v.startsWith('sha256:') ? 'sha256:' + '0'.repeat(64) : v + 'x') : typeof v === 'boolean' ? !v : v === null ? 'x' : 1;
  return copy;
}

t.test('verification context endpoints', async (t) => {
  const h = await startHarness({ plugins: [vc], config: { attestation: { key_continuity_policy: 'persistent', signing_key_pem: P256_PEM } } });
  t.teardown(() => h.close());
  const Q = '(x+1)^2=x^2+2x+1';
  const src = await h.request('POST', '/test/attestable', { body: { expression: Q } });
  const diagnostic = { status: src.body.status, agent_message: src.body.agent_message, developer_fields: src.body.developer_fields, proof_ref: src.body.proof_ref };
  const token: string = src.body.attestation;
  const convert = (body: unknown) => h.request('POST', '/verification-context/from-diagnostic', { body });

  let doc: any;
  t.test('VERIFIED diagnostic + valid matching token: VERIFIED document, ADMIT, self-committing proof_ref', async (t) => {
    const r = await convert({ diagnostic, attestation_token: token, query: Q, verifier: 'math' });
    t.equal(r.status, 200);
    doc = r.body;
    t.equal(doc.spec_version, '1.0');
    t.same(Object.keys(doc).sort(), ['context', 'object', 'spec_version', 'verdict']);
    t.equal(doc.verdict, 'VERIFIED');
    t.equal(doc.object.statement, Q);
    t.equal(doc.object.statement_hash, sha256Ref(Q));
    t.same(doc.object.formalization, { source: 'caller_supplied', verified: false });
    t.equal(doc.context.decision.admission, 'ADMIT');
    t.equal(doc.context.proof.verifier, 'math');
    t.equal(doc.context.proof.evidence.diagnostic_proof_ref, diagnostic.proof_ref);
    t.equal(doc.context.proof.evidence.attestation_id, src.body.attestation_id);
    t.equal(doc.context.proof.evidence.proof_ref, documentProofRef(doc));
    t.type(doc.context.proof.evidence.seal, 'string', 'sealed by the service');
    const inside = await convert({ diagnostic: { ...diagnostic, attestation_token: token }, query: Q, verifier: 'math' });
    t.equal(inside.body.verdict, 'VERIFIED', 'the token may ride inside the diagnostic payload');
    t.same((await h.request('POST', '/verification-context/validate', { body: { document: doc } })).body, { valid: true });
    t.same((await h.request('POST', '/verification-context/resolve', { body: { document: doc } })).body, { resolved: true });
  });

  t.test('VERIFIED without a valid, matching token: UNVERIFIABLE document', async (t) => {
    const other = verified('ok', { is_valid: true }, { engine: 'm', engine_version: '1', input: 'other', result: true });
    const forged = es256(P256_PEM, { ...HEADER, kid: 'did:svc:node:staging#nope' }, claimsFor({ proof_ref: diagnostic.proof_ref, query: Q }));
    const cases: Record<string, [unknown, string]> = {
      'no token': [{ diagnostic, query: Q }, 'trust_gate.mandatory_attestation_missing'],
      'garbage token': [{ diagnostic, query: Q, attestation_token: 'x.y.z' }, 'trust_gate.invalid_attestation_token'],
      'forged token': [{ diagnostic, query: Q, attestation_token: forged }, 'trust_gate.invalid_attestation_token'],
      'other query': [{ diagnostic, query: '1=1', attestation_token: token }, 'trust_gate.claims_query_mismatch'],
      'no query': [{ diagnostic, attestation_token: token }, 'trust_gate.claims_query_mismatch'],
      'token of another proof': [{ diagnostic: { ...other }, query: Q, attestation_token: token }, 'trust_gate.claims_proof_mismatch'],
    };
    for (const [name, [body, cid]] of Object.entries(cases)) {
      const r = await convert(body);
      t.equal(r.status, 200, name);
      t.equal(r.body.verdict, 'UNVERIFIABLE', name);
      t.equal(r.body.context.interpretation.constraint_id, cid, name);
      t.equal(r.body.context.decision.admission, 'DENY', name);
      t.equal(r.body.context.proof.evidence.proof_ref, null, name);
      t.same(validateDocument(r.body), [], `${name}: valid document`);
      t.equal(r.body.context.proof.evidence.seal, null, `${name}: not sealed`);
      t.same((await h.request('POST', '/verification-context/resolve', { body: { document: r.body } })).body, { resolved: false }, `${name}: never resolves`);
    }
  });

  t.test('malformed diagnostic: BLOCKED document (200, not 400)', async (t) => {
    const bad = [
      undefined,
      null,
      'VERIFIED',
      { status: 'VERIFIED', agent_message: 'x', developer_fields: {}, proof_ref: null },
      { status: 'MAYBE', agent_message: 'x', developer_fields: {}, proof_ref: null },
      { status: 'BLOCKED', agent_message: 'x', developer_fields: [], proof_ref: null },
    ];
    for (const d of bad) {
      const r = await convert(d === undefined ? {} : { diagnostic: d, attestation_token: token, query: Q });
      t.equal(r.status, 200);
      t.equal(r.body.verdict, 'BLOCKED');
      t.equal(r.body.context.interpretation.constraint_id, MALFORMED_DIAGNOSTIC);
      t.equal(r.body.context.decision.admission, 'DENY');
    }
  });

  t.test('UNVERIFIABLE and BLOCKED diagnostics keep their verdict and DENY', async (t) => {
    const u = await convert({ diagnostic: unverifiable('value computed', { value: 4 }), query: '2+2' });
    t.equal(u.body.verdict, 'UNVERIFIABLE');
    const b = await convert({ diagnostic: blocked('parse error', 'math.parse_error'), query: '2+' });
    t.equal(b.body.verdict, 'BLOCKED');
    t.equal(b.body.context.interpretation.constraint_id, 'math.parse_error');
    t.equal(b.body.context.decision.admission, 'DENY');
  });

  t.test('proven-unsafe (admission BLOCKED) stays VERIFIED with DENY', async (t) => {
    const unsafe = await h.request('POST', '/test/attestable', { body: { expression: 'eval(x)', mode: 'false' } });
    const d = { status: 'VERIFIED', agent_message: 'unsafe', developer_fields: { is_valid: false }, proof_ref: unsafe.body.proof_ref, admission: 'BLOCKED' };
    const r = await convert({ diagnostic: d, attestation_token: unsafe.body.attestation, query: 'eval(x)' });
    t.equal(r.body.verdict, 'VERIFIED');
    t.equal(r.body.context.decision.admission, 'DENY');
  });

  t.test('a claim proven false is VERIFIED with DENY, and its token cannot be turned into ADMIT', async (t) => {
    const F = '2+2=5';
    const src2 = await h.request('POST', '/test/attestable', { body: { expression: F, mode: 'false' } });
    t.equal(src2.body.status, 'VERIFIED');
    const rec = await h.request('GET', `/attestation/${src2.body.attestation_id}`);
    t.match(rec.body.result, { status: 'VERIFIED', verified: false }, 'the record says what was proven');
    const d = { status: 'VERIFIED', agent_message: src2.body.agent_message, developer_fields: src2.body.developer_fields, proof_ref: src2.body.proof_ref };
    const r = await convert({ diagnostic: d, attestation_token: src2.body.attestation, query: F, verifier: 'math' });
    t.equal(r.body.verdict, 'VERIFIED', 'a proof was done');
    t.equal(r.body.context.decision.admission, 'DENY', 'today: ADMIT for a false claim');
    // the caller drops is_valid (or sets it true): the signed `verified: false` no longer matches
    for (const fields of [{}, { is_valid: true, result: false }]) {
      const lie = await convert({ diagnostic: { ...d, developer_fields: fields }, attestation_token: src2.body.attestation, query: F, verifier: 'math' });
      t.equal(lie.body.verdict, 'UNVERIFIABLE', JSON.stringify(fields));
      t.equal(lie.body.context.decision.admission, 'DENY');
      t.equal(lie.body.context.interpretation.constraint_id, 'trust_gate.claims_status_mismatch');
    }
    // and a true claim's token cannot back a diagnostic that now says false either
    const flipped = await convert({ diagnostic: { ...diagnostic, developer_fields: { ...diagnostic.developer_fields, is_valid: false } }, attestation_token: token, query: Q });
    t.equal(flipped.body.verdict, 'UNVERIFIABLE');
  });

  t.test('validate: schema and invariants; 200 either way', async (t) => {
    const bad: Record<string, unknown> = {
      'extra top-level key': { ...doc, extra: 1 },
      'extra nested key': { ...doc, context: { ...doc.context, proof: { ...doc.context.proof, evidence: { ...doc.context.proof.evidence, x: 1 } } } },
      'proof_ref on UNVERIFIABLE': { ...doc, verdict: 'UNVERIFIABLE' },
      'UNVERIFIABLE with ADMIT': {
        ...doc,
        verdict: 'UNVERIFIABLE',
        context: { ...doc.context, proof: { ...doc.context.proof, evidence: { proof_ref: null, diagnostic_proof_ref: null, attestation_id: null } } },
      },
      'VERIFIED without proof_ref': { ...doc, context: { ...doc.context, proof: { ...doc.context.proof, evidence: { ...doc.context.proof.evidence, proof_ref: null } } } },
      'wrong spec_version': { ...doc, spec_version: '2.0' },
      'formalization claimed verified': { ...doc, object: { ...doc.object, formalization: { source: 'caller_supplied', verified: true } } },
      'not an object': 'doc',
    };
    for (const [name, d] of Object.entries(bad)) {
      const r = await h.request('POST', '/verification-context/validate', { body: { document: d } });
      t.equal(r.status, 200, name);
      t.equal(r.body.valid, false, name);
      t.equal(r.body.error, 'validation_failed', name);
      t.ok(r.body.details.length > 0, name);
      t.equal((await h.request('POST', '/verification-context/resolve', { body: { document: d } })).body.resolved, false, name);
    }
  });

  t.test('resolve: tampering any single field breaks the commitment', async (t) => {
    const paths = leaves(doc);
    t.ok(paths.length >= 14, 'every leaf is exercised');
    for (const p of paths) {
      const r = await h.request('POST', '/verification-context/resolve', { body: { document: tamper(doc, p) } });
      t.equal(r.body.resolved, false, `tampered ${p.join('.')}`);
    }
    const resealed = tamper(doc, ['context', 'interpretation', 'summary']) as any;
    resealed.context.proof.evidence.proof_ref = documentProofRef(resealed);
    t.equal(commitmentHolds(resealed), true, 'a re-derived proof_ref matches: it is integrity, not authenticity');
    t.same((await h.request('POST', '/verification-context/resolve', { body: { document: resealed } })).body, { resolved: false }, 'the seal no longer covers the edited document');
  });

  t.test('a statement that is not the one statement_hash (and so the attestation) covers neither validates nor resolves', async (t) => {
    // a genuine document, its statement swapped and re-sealed: the attestation still matches statement_hash
    const swapped = structuredClone(doc);
    swapped.object.statement = '1+1=3';
    swapped.context.proof.evidence.proof_ref = documentProofRef(swapped);
    const v = await h.request('POST', '/verification-context/validate', { body: { document: swapped } });
    t.equal(v.body.valid, false);
    t.same(v.body.details, [{ path: '/object/statement_hash', message: 'is not the hash of the statement' }]);
    t.same((await h.request('POST', '/verification-context/resolve', { body: { document: swapped } })).body, { resolved: false });
    const unhashed = structuredClone(doc);
    unhashed.object.statement_hash = null;
    unhashed.context.proof.evidence.proof_ref = documentProofRef(unhashed);
    t.equal(commitmentHolds(unhashed), false, 'a statement without its hash');
    // a non-string query: the statement is its canonical JSON, statement_hash the hash of that text
    const fromObject = await convert({ diagnostic: {}, query: { b: [1, 2], a: 'x' } });
    t.equal(fromObject.body.object.statement, '{"a":"x","b":[1,2]}');
    t.same(validateDocument(fromObject.body), [], 'documents built from a JSON query still validate');
  });
});

t.test('a query longer than a document can hold is a 400 naming the field (found by the fuzz test)', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(['verify:read']), health, attestation, vc] });
  t.teardown(() => s.close());
  const long = await s.request('POST', '/verification-context/from-diagnostic', { apiKey: TEST_API_KEY, body: { diagnostic: {}, query: 'x'.repeat(65537) } });
  t.equal(long.status, 400);
  t.equal(long.body.errors[0].field, '/body/query');
  const longObject = await s.request('POST', '/verification-context/from-diagnostic', { apiKey: TEST_API_KEY, body: { diagnostic: {}, query: { q: 'y'.repeat(65536) } } });
  t.equal(longObject.status, 400, 'the canonical JSON of a non-string query counts too');
  const atLimit = await s.request('POST', '/verification-context/from-diagnostic', { apiKey: TEST_API_KEY, body: { diagnostic: {}, query: 'x'.repeat(65536) } });
  t.equal(atLimit.status, 200);
  t.equal(atLimit.body.verdict, 'BLOCKED', 'a malformed diagnostic still becomes a BLOCKED document');
});
