import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import t from 'tap';
import { SignJWT } from 'jose';
import { verifyAttestationOffline } from '../../plugins/attestation/offline.js';
import { subjectOf } from '../../plugins/attestation/subject.js';
import { TOKEN_TYPE } from '../../plugins/attestation/token.js';
import { createVerifier } from '../../plugins/attestation/verify.js';
import type { AttestationRecord } from '../../plugins/attestation/types.js';
import { memoryCollection } from '../helpers/attestation/harness.js';
import { builtinsWithEngines, startServer } from '../helpers/server.js';
import { tenant } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Rotation (issue 43): a key retired by `attestation.retired_keys` stays in the JWKS and keeps its
 * tokens verifiable, on the service and offline, until the last token it signed expires; then it is
 * gone. Signing always uses the configured key alone.
 */
const ISSUER = 'did:svc:node:staging';
const pair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privPem = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }) as string;
const pubPem = (k: KeyObject) => k.export({ format: 'pem', type: 'spki' }) as string;
const A = pair();
const B = pair();
const LIFETIME = 600;

const attestation = (over: Record<string, unknown>) => ({ key_continuity_policy: 'persistent' as const, lifetime_seconds: LIFETIME, issuer: ISSUER, ...over });

t.test('a rotated key: its tokens verify on the service and offline while they can live, then the key is gone', async (t) => {
  const dataDir = tempDir(t, 'proofgate-rotation-');
  const first = await startServer({ dataDir, plugins: builtinsWithEngines('math'), config: { attestation: attestation({ signing_key_pem: privPem(A.privateKey), key_name: 'key-a' }) } });
  const org = await tenant(first);
  const issued = await first.request('POST', '/verify/math', { apiKey: org.key, body: { expression: '2+2=4' } });
  t.equal(issued.status, 200);
  const token = issued.body.attestation as string;
  const id = issued.body.attestation_id as string;
  t.match(token, /^ey/);
  await first.close();

  // the operator rotates: key-b signs, key-a is retired now
  const second = await startServer({
    dataDir,
    plugins: builtinsWithEngines('math'),
    config: { attestation: attestation({ signing_key_pem: privPem(B.privateKey), key_name: 'key-b', retired_keys: [{ key_name: 'key-a', public_key_pem: pubPem(A.publicKey), retired_at: new Date().toISOString() }] }) },
  });
  t.teardown(() => second.close());
  const jwks = await second.request('GET', '/.well-known/jwks.json');
  const kids = (jwks.body.keys as Array<{ kid: string }>).map((k) => k.kid);
  t.ok(kids.includes(`${ISSUER}#key-b`), 'the signing key is published');
  t.ok(kids.includes(`${ISSUER}#key-a`), 'the retired key is published while its tokens live');
  t.notOk((jwks.body.keys as Array<Record<string, unknown>>).some((k) => 'd' in k), 'public halves only');

  const onService = await second.request('POST', '/attestation/verify', { apiKey: org.key, body: { jwt: token } });
  t.equal(onService.body.valid, true, `the service still verifies the old token: ${onService.text}`);
  t.equal(onService.body.header.kid, `${ISSUER}#key-a`);
  const status = await second.request('GET', `/attestation/${id}`, { apiKey: org.key });
  t.equal(status.body.status, 'VALID', 'its record is VALID, not UNVERIFIABLE');
  const offline = await verifyAttestationOffline(token, { jwksUrl: `${second.url}/.well-known/jwks.json`, issuer: ISSUER });
  t.equal(offline.valid, true, 'and offline, against the served JWKS');

  const fresh = await second.request('POST', '/verify/math', { apiKey: org.key, body: { expression: '3+3=6' } });
  const header = JSON.parse(Buffer.from((fresh.body.attestation as string).split('.')[0], 'base64url').toString());
  t.equal(header.kid, `${ISSUER}#key-b`, 'new tokens are signed by the new key only');
  await second.close();

  // later than retired_at + lifetime: every token key-a signed has expired; the key leaves the JWKS
  const third = await startServer({
    dataDir,
    plugins: builtinsWithEngines('math'),
    config: { attestation: attestation({ signing_key_pem: privPem(B.privateKey), key_name: 'key-b', retired_keys: [{ key_name: 'key-a', public_key_pem: pubPem(A.publicKey), retired_at: new Date(Date.now() - (LIFETIME + 5) * 1000).toISOString() }] }) },
  });
  t.teardown(() => third.close());
  const later = await third.request('GET', '/.well-known/jwks.json');
  t.notOk((later.body.keys as Array<{ kid: string }>).some((k) => k.kid === `${ISSUER}#key-a`), 'past its window the retired key is not published');
  const refused = await third.request('POST', '/attestation/verify', { apiKey: org.key, body: { jwt: token } });
  t.equal(refused.status, 400, 'nor accepted');
  t.equal(refused.body.code, 'invalid_token', refused.text);
});

t.test('hostile or mistaken retired keys stop start-up with a message that says what to fix', async (t) => {
  const now = new Date().toISOString();
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['the current key name', { key_name: 'key-b', public_key_pem: pubPem(A.publicKey), retired_at: now }, /is the current key's/],
    ['the current key itself', { key_name: 'old', public_key_pem: pubPem(B.publicKey), retired_at: now }, /is the current signing key/],
    ['a private key', { key_name: 'old', public_key_pem: privPem(A.privateKey), retired_at: now }, /holds a private key/],
    ['not a key', { key_name: 'old', public_key_pem: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n', retired_at: now }, /could not be parsed/],
    ['another curve', { key_name: 'old', public_key_pem: pubPem(generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey), retired_at: now }, /P-256/],
  ];
  for (const [name, entry, message] of cases) {
    await t.rejects(
      startServer({ plugins: builtinsWithEngines(), config: { attestation: attestation({ signing_key_pem: privPem(B.privateKey), key_name: 'key-b', retired_keys: [entry] }) } }),
      { name: 'AttestationKeyError', message },
      name,
    );
  }
  const twice = { key_name: 'old', public_key_pem: pubPem(A.publicKey), retired_at: now };
  await t.rejects(startServer({ plugins: builtinsWithEngines(), config: { attestation: attestation({ signing_key_pem: privPem(B.privateKey), key_name: 'key-b', retired_keys: [twice, twice] }) } }), /retired twice/);
  // the schema: a date that is not RFC 3339, and a member it does not know
  await t.rejects(startServer({ plugins: builtinsWithEngines(), config: { attestation: attestation({ signing_key_pem: privPem(B.privateKey), retired_keys: [{ ...twice, retired_at: 'yesterday' }] }) } }), /retired_at/);
  await t.rejects(startServer({ plugins: builtinsWithEngines(), config: { attestation: attestation({ signing_key_pem: privPem(B.privateKey), retired_keys: [{ ...twice, private_key_pem: 'x' }] }) } }), /retired_keys/);
});

t.test('a retired key signs nothing after its retirement: a newer token under it is refused', async (t) => {
  const retiredAt = 1_800_000_000;
  const records = memoryCollection<AttestationRecord>();
  const verify = createVerifier({
    keys: new Map([[`${ISSUER}#key-a`, A.publicKey]]),
    trustedIssuers: [ISSUER],
    records,
    now: () => retiredAt + 60,
    signedBefore: new Map([[`${ISSUER}#key-a`, retiredAt]]),
  });
  // whoever still holds key-a's private half (a leaked key is a reason to rotate) signs a token dated after
  const query = 'sha256:' + 'a'.repeat(64);
  const proof = 'sha256:' + 'b'.repeat(64);
  const forged = await new SignJWT({ svc: { version: '1.0', result: { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 }, query_hash: query, proof_hash: proof } })
    .setProtectedHeader({ alg: 'ES256', typ: TOKEN_TYPE, kid: `${ISSUER}#key-a` })
    .setIssuer(ISSUER)
    .setSubject(subjectOf(query, proof))
    .setJti('att_forged')
    .setIssuedAt(retiredAt + 30)
    .setExpirationTime(retiredAt + 600)
    .sign(A.privateKey);
  const outcome = await verify(forged);
  t.same(outcome, { ok: false, reason: 'unknown_key' }, JSON.stringify(outcome));
});
