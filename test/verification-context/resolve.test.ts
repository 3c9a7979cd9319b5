import t from 'tap';
import { sha256Ref } from '../../core/json/canonical.js';
import type { AttestationRecord } from '../../plugins/attestation/types.js';
import vc, { documentProofRef, SEAL_TYP, sealedHash, whyUnresolved, type VcDocument } from '../../plugins/verification-context/index.js';
import { P256_PEM } from '../helpers/attestation/fixtures.js';
import { es256, otherKey } from '../helpers/attestation/forge.js';
import { startHarness, type Harness } from '../helpers/attestation/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const PERSISTENT = { attestation: { key_continuity_policy: 'persistent' as const, signing_key_pem: P256_PEM } };
const Q = '(x+1)^2=x^2+2x+1';

/** A VERIFIED document through the public routes: a verification, then from-diagnostic with its token. */
async function issueDocument(h: Harness, expression = Q, mode?: string) {
  const src = await h.request('POST', '/test/attestable', { body: { expression, ...(mode ? { mode } : {}) } });
  const diagnostic = { status: src.body.status, agent_message: src.body.agent_message, developer_fields: src.body.developer_fields, proof_ref: src.body.proof_ref };
  const r = await h.request('POST', '/verification-context/from-diagnostic', { body: { diagnostic, attestation_token: src.body.attestation, query: expression, verifier: 'math' } });
  return { doc: r.body as VcDocument, attestationId: src.body.attestation_id as string };
}

const resolve = async (h: Harness, document: unknown) => (await h.request('POST', '/verification-context/resolve', { body: { document } })).body.resolved as boolean;
const validate = async (h: Harness, document: unknown) => (await h.request('POST', '/verification-context/validate', { body: { document } })).body.valid as boolean;

t.test('resolve: only documents this service sealed, whose attestation still stands', async (t) => {
  const h = await startHarness({ plugins: [vc], config: PERSISTENT });
  t.teardown(() => h.close());
  const records = h.kernel.app.store.collection<AttestationRecord>('attestations');

  t.test('a genuine document resolves', async (t) => {
    const { doc } = await issueDocument(h);
    t.equal(doc.verdict, 'VERIFIED');
    t.match(doc.context.proof.evidence.seal, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    t.equal(await resolve(h, doc), true);
  });

  t.test('a forged document with a recomputed proof_ref does not resolve', async (t) => {
    const { doc } = await issueDocument(h);
    const reseal = (d: any) => ((d.context.proof.evidence.proof_ref = documentProofRef(d)), d);
    // another statement, its hash and proof_ref recomputed: a plain hash anyone can redo
    const other = structuredClone(doc) as any;
    other.object.statement = '1+1=3';
    other.object.statement_hash = sha256Ref('1+1=3');
    t.equal(await validate(h, reseal(other)), true, 'structurally a fine document');
    t.equal(await resolve(h, other), false, 'the seal covers the original statement');
    // the same forgery without a seal, and a document built from scratch: valid, never resolved
    const unsealed = structuredClone(other);
    delete unsealed.context.proof.evidence.seal;
    t.equal(await validate(h, reseal(unsealed)), true, 'a document of an earlier release (no seal) still validates');
    t.equal(await resolve(h, unsealed), false);
    const nullSeal = structuredClone(doc) as any;
    nullSeal.context.proof.evidence.seal = null;
    t.equal(await resolve(h, reseal(nullSeal)), false);
    // a seal of the right shape and kid, signed by someone else's key, over the forged document
    const kid = doc.context.proof.evidence.seal!.split('.')[0];
    const header = JSON.parse(Buffer.from(kid, 'base64url').toString());
    const foreign = structuredClone(other);
    foreign.context.proof.evidence.seal = es256(otherKey(), header, { document_hash: sealedHash(foreign) });
    t.equal(await resolve(h, reseal(foreign)), false, 'a seal by another key');
    const wrongTyp = structuredClone(other);
    wrongTyp.context.proof.evidence.seal = es256(P256_PEM, { ...header, typ: 'svc-attestation+jwt' }, { document_hash: sealedHash(wrongTyp) });
    t.equal(await resolve(h, reseal(wrongTyp)), false, 'a statement of another type signed by the service key');
    // a genuine seal lifted onto another document (a DENY turned into ADMIT)
    const { doc: falseClaim } = await issueDocument(h, '2+2=5', 'false');
    t.equal(falseClaim.context.decision.admission, 'DENY');
    t.equal(await resolve(h, falseClaim), true, 'a claim proven false is a resolvable VERIFIED document (with DENY)');
    const admitted = structuredClone(falseClaim) as any;
    admitted.context.decision.admission = 'ADMIT';
    t.equal(await resolve(h, reseal(admitted)), false, 'DENY flipped to ADMIT');
    const lifted = structuredClone(falseClaim) as any;
    lifted.context.proof.evidence.seal = doc.context.proof.evidence.seal;
    t.equal(await resolve(h, reseal(lifted)), false, 'a seal of another document');
  });

  t.test('revoking the attestation, or its expiry, ends resolution', async (t) => {
    const a = await issueDocument(h, '3*3=9');
    const b = await issueDocument(h, '4*4=16');
    t.equal(await resolve(h, a.doc), true);
    t.equal(await resolve(h, b.doc), true);
    t.equal((await h.request('POST', `/attestation/${a.attestationId}/revoke`, { key: 'a-operator' })).status, 200);
    t.equal(await resolve(h, a.doc), false, 'revoked');
    // no clock to wait for: the stored record's expiry is moved into the past
    await records.update(b.attestationId, (r) => r && { ...r, iat: r.iat - 7200, exp: r.iat - 3600 });
    t.equal((await h.request('GET', `/attestation/${b.attestationId}`)).body.status, 'EXPIRED');
    t.equal(await resolve(h, b.doc), false, 'expired');
    // and a pruned (deleted) attestation
    const c = await issueDocument(h, '5*5=25');
    await records.delete(c.attestationId);
    t.equal(await resolve(h, c.doc), false, 'attestation gone');
  });

  t.test('the operator log says why a document did not resolve', async (t) => {
    const { doc } = await issueDocument(h, '6*6=36');
    const edited = structuredClone(doc) as any;
    edited.context.interpretation.summary = 'edited';
    edited.context.proof.evidence.proof_ref = documentProofRef(edited);
    t.equal(await resolve(h, edited), false);
    t.equal(h.logs.events('verification_context.unresolved').at(-1)?.reason, 'seal_mismatch');
  });
});

t.test('resolve across restarts follows the attestation key', async (t) => {
  for (const [name, config, expected] of [
    ['ephemeral key', {}, false],
    ['persistent key', PERSISTENT, true],
  ] as const) {
    const dir = tempDir(t, 'proofgate-vc-restart-');
    const h1 = await startHarness({ plugins: [vc], config, dataDir: dir });
    const { doc } = await issueDocument(h1);
    t.equal(await resolve(h1, doc), true, `${name}: resolves in the process that sealed it`);
    await h1.close();
    const h2 = await startHarness({ plugins: [vc], config, dataDir: dir });
    t.equal(await resolve(h2, doc), expected, `${name}: after a restart`);
    await h2.close();
  }
});

t.test('whyUnresolved: the attestation must say what the document says', async (t) => {
  const h = await startHarness({ plugins: [vc], config: PERSISTENT });
  t.teardown(() => h.close());
  const { doc, attestationId } = await issueDocument(h);
  const record = (await h.kernel.app.store.collection<AttestationRecord>('attestations').get(attestationId))!;
  // a seal taken at face value: what is left to catch is a document its attestation does not back
  const deps = (r: AttestationRecord, status = 'VALID' as const) => ({
    verifyStatement: async (typ: string, jws: unknown) => (typ === SEAL_TYP && typeof jws === 'string' ? { document_hash: sealedHash(doc) } : null),
    attestation: async (id: string) => (id === attestationId ? { status, record: r } : null),
  });
  t.equal(await whyUnresolved(doc, deps(record)), null);
  t.equal(await whyUnresolved(doc, {}), 'bad_seal', 'no attestation plugin: nothing resolves');
  t.equal(await whyUnresolved(doc, deps(record, 'UNVERIFIABLE' as never)), 'attestation_not_valid');
  t.equal(await whyUnresolved(doc, deps({ ...record, query_hash: sha256Ref('other') })), 'attestation_mismatch');
  t.equal(await whyUnresolved(doc, deps({ ...record, proof_hash: sha256Ref('other') })), 'attestation_mismatch');
  t.equal(await whyUnresolved(doc, deps({ ...record, result: { ...record.result, verified: false } })), 'attestation_mismatch', 'ADMIT needs a claim that holds');
});
