import { createPublicKey, createPrivateKey } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { sha256Ref } from '../../core/json/canonical.js';
import type { AttestationRecord } from '../../plugins/attestation/types.js';
import { startHarness } from '../helpers/attestation/harness.js';
import { P256_PEM } from '../helpers/attestation/fixtures.js';
import { algNone, claimsFor, es256, HEADER, hs256WithPublicKey, otherKey, recordFor } from '../helpers/attestation/forge.js';
import { tempDir } from '../helpers/temp-dir.js';

t.test('attestation routes', async (t) => {
  const h = await startHarness({ config: { attestation: { key_continuity_policy: 'persistent', signing_key_pem: P256_PEM } } });
  t.teardown(() => h.close());
  const records = h.kernel.app.store.collection<AttestationRecord>('attestations');

  const issued = await h.request('POST', '/test/attestable', { body: { expression: '2+2=4' } });
  t.equal(issued.status, 200);
  const token: string = issued.body.attestation;
  const id: string = issued.body.attestation_id;
  t.type(token, 'string');
  t.match(id, /^att_/);

  t.test('verify: a good token returns its claims and status', async (t) => {
    const r = await h.request('POST', '/attestation/verify', { body: { jwt: token } });
    t.equal(r.status, 200);
    t.equal(r.body.valid, true);
    t.equal(r.body.status, 'VALID');
    t.equal(r.body.claims.jti, id);
    t.equal(r.body.claims.svc.proof_hash, issued.body.proof_ref);
    t.equal(r.body.claims.svc.query_hash, sha256Ref('2+2=4'));
    t.same(r.body.header, HEADER);
    const v1 = await h.request('POST', '/v1/attestation/verify', { body: { jwt: token } });
    t.equal(v1.status, 200, 'also under /v1');
  });

  t.test('GET /attestation/{id}: own organisation only', async (t) => {
    const r = await h.request('GET', `/attestation/${id}`);
    t.equal(r.status, 200);
    t.same(Object.keys(r.body).sort(), ['exp', 'iat', 'id', 'iss', 'proof_hash', 'query_hash', 'result', 'revoked_at', 'status', 'sub']);
    t.equal(r.body.status, 'VALID');
    t.equal(r.body.proof_hash, issued.body.proof_ref);
    t.same(r.body.result, { status: 'VERIFIED', verified: true, engine: 'attestable', confidence: 1 });
    const other = await h.request('GET', `/attestation/${id}`, { key: 'b-owner' });
    const missing = await h.request('GET', `/attestation/att_nope`);
    t.equal(other.status, 404);
    t.equal(missing.status, 404);
    t.equal(other.body.detail, missing.body.detail, 'existence is not leaked');
    const noScope = await h.request('GET', `/attestation/${id}`, { key: 'a-verify-only' });
    t.equal(noScope.status, 403);
  });

  t.test('every rejection is the same Invalid token response', async (t) => {
    const now = Math.floor(Date.now() / 1000);
    const proof = issued.body.proof_ref as string;
    const expiredClaims = claimsFor({ proof_ref: proof, iat: now - 7200, exp: now - 3600 });
    await records.put(expiredClaims.jti, recordFor(expiredClaims));
    const revokedIssue = await h.request('POST', '/test/attestable', { body: { expression: '3+3=6' } });
    t.equal((await h.request('POST', `/attestation/${revokedIssue.body.attestation_id}/revoke`, { key: 'a-operator' })).status, 200);
    const spki = createPublicKey(createPrivateKey(P256_PEM)).export({ format: 'pem', type: 'spki' }) as string;
    const good = claimsFor({ proof_ref: proof });
    const [hp] = token.split('.');
    const cases: Record<string, { jwt: unknown; reason: string }> = {
      'signed by another key': { jwt: es256(otherKey(), HEADER, good), reason: 'bad_signature' },
      'alg none': { jwt: algNone(good), reason: 'unsupported_alg' },
      'HS256 with the public key as secret': { jwt: hs256WithPublicKey(spki, good), reason: 'unsupported_alg' },
      expired: { jwt: es256(P256_PEM, HEADER, expiredClaims), reason: 'expired' },
      revoked: { jwt: revokedIssue.body.attestation, reason: 'revoked' },
      'untrusted issuer': { jwt: es256(P256_PEM, HEADER, claimsFor({ proof_ref: proof, iss: 'did:svc:node:rogue' })), reason: 'untrusted_issuer' },
      'untrusted issuer with a bad signature': {
        jwt: es256(otherKey(), HEADER, claimsFor({ proof_ref: proof, iss: 'did:svc:node:rogue' })),
        reason: 'bad_signature',
      },
      oversized: { jwt: `${hp}.${'A'.repeat(9000)}.sig`, reason: 'oversized' },
      malformed: { jwt: 'not-a-jwt', reason: 'malformed' },
      'malformed header': { jwt: 'e30x.e30.abc', reason: 'malformed' },
      'wrong typ': { jwt: es256(P256_PEM, { ...HEADER, typ: 'JWT' }, good), reason: 'wrong_typ' },
      'unknown kid': { jwt: es256(P256_PEM, { ...HEADER, kid: 'did:svc:node:staging#old' }, good), reason: 'unknown_key' },
      'valid signature, never issued': { jwt: es256(P256_PEM, HEADER, good), reason: 'unknown_attestation' },
      'tampered payload': { jwt: [hp, Buffer.from(JSON.stringify({ ...good, jti: id })).toString('base64url'), token.split('.')[2]].join('.'), reason: 'bad_signature' },
      'non-string jwt': { jwt: 42, reason: 'not_a_string' },
    };
    let reference: { status: number; text: string } | null = null;
    for (const [name, c] of Object.entries(cases)) {
      const before = h.logs.events('attestation.rejected').length;
      const r = await h.request('POST', '/attestation/verify', { body: c.jwt === undefined ? {} : { jwt: c.jwt } });
      t.equal(r.status, 400, name);
      t.equal(r.headers.get('content-type'), 'application/problem+json', name);
      t.equal(r.body.title, 'Invalid token', name);
      t.equal(r.body.detail, 'Invalid token', name);
      reference ??= { status: r.status, text: r.text };
      t.equal(r.text, reference.text, `${name}: byte-identical body`);
      const ev = h.logs.events('attestation.rejected');
      t.equal(ev.length, before + 1, `${name}: logged`);
      t.equal(ev[ev.length - 1].reason, c.reason, `${name}: operator reason`);
    }
    t.notMatch(reference!.text, /expired|revoked|issuer|signature|oversized/i, 'the reason never reaches the caller');
    // issue 43: a body with no token at all names the member it lacks (nothing about any token is told)
    for (const body of [{}, { token }]) {
      const r = await h.request('POST', '/attestation/verify', { body });
      t.equal(r.status, 400);
      t.equal(r.headers.get('content-type'), 'application/problem+json');
      t.equal(r.body.code, 'invalid_token');
      t.equal(r.body.title, 'Invalid token');
      t.match(r.body.detail, /^Invalid token: the request body has no "jwt" member; send \{"jwt": "<the token>"\}/);
      t.equal(/not "token"/.test(r.body.detail), 'token' in body, 'the misnamed member is named when it is there');
    }
    const exp = await h.request('GET', `/attestation/${expiredClaims.jti}`);
    t.equal(exp.body.status, 'EXPIRED');
  });

  t.test('revocation: admin:all of the organisation only; persisted', async (t) => {
    const member = await h.request('POST', `/attestation/${id}/revoke`, { key: 'a-member' });
    t.equal(member.status, 403);
    const owner = await h.request('POST', `/attestation/${id}/revoke`, { key: 'a-owner' });
    t.equal(owner.status, 403, "a default-scope key of the organisation's owner may not revoke");
    const otherOrg = await h.request('POST', `/attestation/${id}/revoke`, { key: 'b-owner' });
    t.equal(otherOrg.status, 403, 'without admin:all: 403 whatever the id, so nothing is learnt about it');
    const operatorOtherOrg = await h.request('POST', `/attestation/${id}/revoke`, { key: 'b-operator' });
    t.equal(operatorOtherOrg.status, 404, 'admin:all of another organisation does not see it');
    t.equal((await h.request('GET', `/attestation/${id}`)).body.status, 'VALID', 'refused revocations changed nothing');
    const ok = await h.request('POST', `/attestation/${id}/revoke`, { key: 'a-operator' });
    t.equal(ok.status, 200);
    t.equal(ok.body.status, 'REVOKED');
    const again = await h.request('POST', `/attestation/${id}/revoke`, { key: 'a-operator' });
    t.equal(again.body.revoked_at, ok.body.revoked_at, 'idempotent');
    t.equal((await records.get(id))?.revoked_at, ok.body.revoked_at, 'stored');
    t.equal((await h.request('GET', `/attestation/${id}`)).body.status, 'REVOKED');
    t.equal((await h.request('POST', '/attestation/verify', { body: { jwt: token } })).status, 400);
  });
});

t.test('a correctly signed token of an untrusted issuer is refused', async (t) => {
  const h = await startHarness({ config: { attestation: { key_continuity_policy: 'persistent', signing_key_pem: P256_PEM, issuer: 'did:svc:node:rogue' } } });
  t.teardown(() => h.close());
  const r = await h.request('POST', '/test/attestable', { body: { expression: '1+1=2' } });
  t.type(r.body.attestation, 'string');
  const v = await h.request('POST', '/attestation/verify', { body: { jwt: r.body.attestation } });
  t.equal(v.status, 400);
  t.equal(v.body.detail, 'Invalid token');
  t.equal(h.logs.events('attestation.rejected').at(-1)?.reason, 'untrusted_issuer');
});

t.test('persistent key: tokens and revocations survive a restart', async (t) => {
  const dir = tempDir(t, 'proofgate-restart-');
  const config = { attestation: { key_continuity_policy: 'persistent' as const, signing_key_pem: P256_PEM } };
  const h1 = await startHarness({ config, dataDir: dir });
  const kept = await h1.request('POST', '/test/attestable', { body: { expression: '1+1=2' } });
  const gone = await h1.request('POST', '/test/attestable', { body: { expression: '2+1=3' } });
  t.equal((await h1.request('POST', `/attestation/${gone.body.attestation_id}/revoke`, { key: 'a-operator' })).status, 200);
  await h1.close();
  const h2 = await startHarness({ config, dataDir: dir });
  t.teardown(() => h2.close());
  t.equal((await h2.request('POST', '/attestation/verify', { body: { jwt: kept.body.attestation } })).status, 200);
  t.equal((await h2.request('POST', '/attestation/verify', { body: { jwt: gone.body.attestation } })).status, 400);
  t.equal((await h2.request('GET', `/attestation/${gone.body.attestation_id}`)).body.status, 'REVOKED');
});

t.test('ephemeral key: tokens of a previous process are refused after a restart', async (t) => {
  const dir = tempDir(t, 'proofgate-restart-');
  const h1 = await startHarness({ dataDir: dir });
  const r = await h1.request('POST', '/test/attestable', { body: { expression: '1+1=2' } });
  t.equal((await h1.request('POST', '/attestation/verify', { body: { jwt: r.body.attestation } })).status, 200);
  await h1.close();
  const h2 = await startHarness({ dataDir: dir });
  t.teardown(() => h2.close());
  t.equal((await h2.request('POST', '/attestation/verify', { body: { jwt: r.body.attestation } })).status, 400);
  t.equal(h2.logs.events('attestation.rejected').at(-1)?.reason, 'bad_signature');
});
