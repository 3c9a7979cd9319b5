import { verify as cryptoVerify } from 'node:crypto';
import t from 'tap';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { sha256Ref } from '../../../core/json/canonical.js';
import { blocked, unverifiable, verified, type DiagnosticResult } from '../../../core/verdict.js';
import { subjectOf } from '../../../plugins/attestation/issue.js';
import { kit, proven } from '../../helpers/attestation/fixtures.js';

t.test('success: ISSUED with an ES256 token carrying the nested svc claim', async (t) => {
  const k = await kit();
  const d = proven('x+x=2*x');
  const r = await k.issue(d, { engine: 'math', query: 'x+x=2*x', org_id: 'org-a' });
  t.equal(r.status, 'ISSUED');
  t.equal(r.is_issued, true);
  t.equal(r.error_code, null);
  t.equal(r.error, null);
  t.type(r.token, 'string');
  const token = r.token!;
  t.same(decodeProtectedHeader(token), { alg: 'ES256', typ: 'svc-attestation+jwt', kid: 'did:svc:node:staging#key-1' });
  const { payload } = await jwtVerify(token, k.key.publicKey, { algorithms: ['ES256'], currentDate: new Date(k.clock.t * 1000) });
  t.equal(payload.iss, 'did:svc:node:staging');
  t.equal(payload.jti, r.attestation_id);
  t.equal(payload.iat, k.clock.t);
  t.equal(payload.exp, k.clock.t + 3600, 'lifetime_seconds default 3600');
  const svc = payload.svc as any;
  t.same(svc, {
    version: '1.0',
    result: { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 },
    query_hash: sha256Ref('x+x=2*x'),
    proof_hash: d.proof_ref,
  });
  t.equal(payload.sub, subjectOf(svc.query_hash, svc.proof_hash));
  t.match(payload.sub, /^sha256:[0-9a-f]{64}$/);
  // the raw signature is r||s (64 bytes), checkable with node:crypto as well
  const [h, p, s] = token.split('.');
  t.equal(Buffer.from(s, 'base64url').length, 64);
  t.ok(cryptoVerify('sha256', Buffer.from(`${h}.${p}`), { key: k.key.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')));
  const rec = await k.records.get(r.attestation_id!);
  t.equal(rec?.org_id, 'org-a');
  t.equal(rec?.revoked_at, null);
});

t.test('svc.result.verified is what the proof found: false for a claim proven false', async (t) => {
  const k = await kit();
  const d = verified('Identity is false', { is_valid: false, result: false }, { engine: 'math', engine_version: '1', input: '2+2=5', result: false });
  const r = await k.issue(d, { engine: 'math', query: '2+2=5' });
  t.equal(r.status, 'ISSUED', 'a proof was done: it is attested');
  const payload = JSON.parse(Buffer.from(r.token!.split('.')[1], 'base64url').toString());
  t.same(payload.svc.result, { status: 'VERIFIED', verified: false, engine: 'math', confidence: 1 });
  t.equal((await k.records.get(r.attestation_id!))?.result.verified, false);
  const noClaim = verified('checked', { result: 3 }, { engine: 'math', engine_version: '1', input: 'q', result: 3 });
  t.equal(JSON.parse(Buffer.from((await k.issue(noClaim, { engine: 'math', query: 'q' })).token!.split('.')[1], 'base64url').toString()).svc.result.verified, true, 'no is_valid: as before');
});

t.test('lifetime comes from config', async (t) => {
  const k = await kit({ cfg: { lifetime_seconds: 120 } });
  const r = await k.issue(proven(), { engine: 'math', query: '2+2=4' });
  const payload = JSON.parse(Buffer.from(r.token!.split('.')[1], 'base64url').toString());
  t.equal(payload.exp - payload.iat, 120);
});

t.test('caller passes VERIFIED with no proof artifact: BLOCKED VERIFIED_WITHOUT_PROOF, no token', async (t) => {
  const k = await kit();
  const forged = Object.freeze({ status: 'VERIFIED', agent_message: 'trust me', developer_fields: {}, proof_ref: null }) as unknown as DiagnosticResult;
  for (const d of [forged, { ...forged, proof_ref: 'sha256:nothex' } as unknown as DiagnosticResult]) {
    const r = await k.issue(d, { engine: 'math', query: 'q' });
    t.same(r, { status: 'BLOCKED', token: null, error_code: 'VERIFIED_WITHOUT_PROOF', error: r.error, is_issued: false, attestation_id: null });
    t.type(r.error, 'string');
  }
  t.equal(k.records.map.size, 0, 'nothing stored');
});

t.test('non-VERIFIED results have no proof to attest', async (t) => {
  const k = await kit();
  for (const d of [unverifiable('computed'), blocked('parse error', 'math.parse_error')]) {
    const r = await k.issue(d, { engine: 'math', query: 'q' });
    t.equal(r.status, 'BLOCKED');
    t.equal(r.error_code, 'VERIFIED_WITHOUT_PROOF');
    t.equal(r.is_issued, false);
  }
});

t.test('signing library present, signing fails: BLOCKED SIGNING_FAILURE', async (t) => {
  const k = await kit({
    sign: () => {
      throw new Error('HSM offline');
    },
  });
  const r = await k.issue(proven(), { engine: 'math', query: '2+2=4' });
  t.equal(r.status, 'BLOCKED');
  t.equal(r.error_code, 'SIGNING_FAILURE');
  t.equal(r.token, null);
  t.equal(r.is_issued, false);
  t.notMatch(r.error ?? '', /HSM/, 'exception text is not surfaced');
  t.equal(k.logs.events('attestation.signing_failed').length, 1);
});

t.test('an unhashable query or a failed record write is a signing failure too', async (t) => {
  const k = await kit();
  const r1 = await k.issue(proven(), { engine: 'math', query: undefined });
  t.equal(r1.error_code, 'SIGNING_FAILURE');
  const k2 = await kit({ failWrites: true });
  const r2 = await k2.issue(proven(), { engine: 'math', query: '2+2=4' });
  t.equal(r2.status, 'BLOCKED');
  t.equal(r2.error_code, 'SIGNING_FAILURE');
  t.equal(r2.token, null, 'no token that could not be revoked');
});

t.test('signing library / key not available: UNVERIFIABLE CRYPTO_UNAVAILABLE', async (t) => {
  const k = await kit({ keyless: true });
  const r = await k.issue(proven(), { engine: 'math', query: '2+2=4' });
  t.same(
    { status: r.status, token: r.token, error_code: r.error_code, is_issued: r.is_issued },
    { status: 'UNVERIFIABLE', token: null, error_code: 'CRYPTO_UNAVAILABLE', is_issued: false },
  );
});

t.test('an issued token verifies; jti and records are unique per issuance', async (t) => {
  const k = await kit();
  const a = await k.issue(proven(), { engine: 'math', query: '2+2=4' });
  const b = await k.issue(proven(), { engine: 'math', query: '2+2=4' });
  t.not(a.attestation_id, b.attestation_id);
  const v = await k.verify(a.token);
  t.equal(v.ok, true);
  if (v.ok) t.equal(v.claims.jti, a.attestation_id);
});
