import t from 'tap';
import { sha256Ref } from '../../core/json/canonical.js';
import { startHarness } from '../helpers/attestation/harness.js';

t.test('the seal phase of a route declared to attest', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

  t.test('a VERIFIED reply gets attestation + attestation_id bound to the expression', async (t) => {
    const r = await h.request('POST', '/test/attestable', { body: { expression: 'x*2=x+x' } });
    t.equal(r.status, 200);
    t.equal(r.body.status, 'VERIFIED', 'verdict untouched');
    t.type(r.body.attestation, 'string');
    const c = claims(r.body.attestation);
    t.equal(c.jti, r.body.attestation_id);
    t.equal(c.svc.query_hash, sha256Ref('x*2=x+x'));
    t.equal(c.svc.proof_hash, r.body.proof_ref);
    t.equal(c.svc.result.engine, 'attestable');
    t.notOk('attestation_error' in r.body);
    const rec = await h.request('GET', `/attestation/${r.body.attestation_id}`);
    t.equal(rec.status, 200, 'stored for the caller organisation');
    t.equal((await h.request('GET', `/attestation/${r.body.attestation_id}`, { key: 'b-owner' })).status, 404);
  });

  t.test('the subject of the reply is what is bound: a translated form rather than the prose', async (t) => {
    const a = await h.request('POST', '/test/attestable', { body: { query: 'p or not p' } });
    t.equal(claims(a.body.attestation).svc.query_hash, sha256Ref('p or not p'));
    const b = await h.request('POST', '/test/attestable', { body: { query: 'two plus two is four', state_query: '2+2=4' } });
    t.equal(claims(b.body.attestation).svc.query_hash, sha256Ref('2+2=4'), 'the translated expression, not the prose');
  });

  t.test('issuance failure: attestation_error with the code, verdict left as it is', async (t) => {
    // an input with no canonical JSON form (Infinity) cannot be hashed, so no token can be built
    const r = await h.request('POST', '/test/attestable', { body: { expression: '1=1', state_query: null } });
    t.type(r.body.attestation, 'string', 'null is a legitimate (hashable) query');
    const before = h.logs.events('attestation.signing_failed').length;
    const f = await h.request('POST', '/test/attestable', { body: { expression: '1=1', non_finite_query: true } });
    t.equal(f.status, 200);
    t.equal(f.body.status, 'VERIFIED');
    t.equal(f.body.attestation_error, 'SIGNING_FAILURE');
    t.notOk('attestation' in f.body);
    t.notOk('attestation_id' in f.body);
    t.equal(h.logs.events('attestation.signing_failed').length, before + 1);
  });

  t.test('non-VERIFIED replies and routes that do not attest are left alone', async (t) => {
    const u = await h.request('POST', '/test/attestable', { body: { expression: '2+2', mode: 'unverifiable' } });
    t.equal(u.body.status, 'UNVERIFIABLE');
    t.notOk('attestation' in u.body);
    t.notOk('attestation_error' in u.body);
    const p = await h.request('POST', '/test/plain', { body: { expression: '2+2=4' } });
    t.equal(p.body.status, 'VERIFIED');
    t.notOk('attestation' in p.body);
  });
});
