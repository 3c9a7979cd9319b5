import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { pino } from 'pino';
import { loadServiceConfig } from '../../sidecar/config.js';
import { AttestationKeyError } from '../../plugins/attestation/errors.js';
import { loadSigningKey } from '../../plugins/attestation/keys.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { LogSink } from '../helpers/attestation/harness.js';
import { attestationConfig, memoryStore, P256_PEM } from '../helpers/attestation/fixtures.js';
import { startHarness } from '../helpers/attestation/harness.js';

const pem = (k: ReturnType<typeof generateKeyPairSync>['privateKey']) => k.export({ format: 'pem', type: 'pkcs8' }) as string;

t.test('ephemeral (default): fresh P-256 key, attestation.key_generated logged with generated_at', async (t) => {
  const logs = new LogSink();
  const before = Math.floor(Date.now() / 1000);
  const a = await loadSigningKey(attestationConfig(), memoryStore(), pino(logs.stream));
  const b = await loadSigningKey(attestationConfig(), memoryStore(), pino(logs.stream));
  t.equal(a.policy, 'ephemeral');
  t.equal(a.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  t.not(a.thumbprint, b.thumbprint, 'a new key per start');
  t.ok(a.generatedAt >= before);
  const ev = logs.events('attestation.key_generated');
  t.equal(ev.length, 2);
  t.equal(ev[0].kid, 'did:svc:node:staging#key-1');
  t.equal(ev[0].generated_at, a.generatedAt);
  t.equal(a.publicJwk.kty, 'EC');
  t.equal(a.publicJwk.crv, 'P-256');
  t.notOk('d' in a.publicJwk, 'public JWK has no private part');
});

t.test('persistent: the PEM key is used and keeps its generated_at across restarts', async (t) => {
  const store = memoryStore();
  const cfg = attestationConfig({ key_continuity_policy: 'persistent', signing_key_pem: P256_PEM });
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const a = await loadSigningKey(cfg, store, pino({ level: 'silent' }), () => clock);
  // a restart an hour later: the same key keeps the first-seen time
  clock += 3_600_000;
  const b = await loadSigningKey(cfg, store, pino({ level: 'silent' }), () => clock);
  t.equal(a.thumbprint, b.thumbprint);
  t.equal(b.generatedAt, a.generatedAt);
  t.equal(a.policy, 'persistent');
});

t.test('persistent: wrong key type or curve, or an unreadable PEM, is a start-up error', async (t) => {
  const bad = {
    'P-384': pem(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey),
    secp256k1: pem(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey),
    rsa: pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
    ed25519: pem(generateKeyPairSync('ed25519').privateKey),
    garbage: '-----BEGIN PRIVATE KEY-----\nnotbase64\n-----END PRIVATE KEY-----\n',
    sec1: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'sec1' }) as string,
  };
  for (const [name, p] of Object.entries(bad)) {
    await t.rejects(
      loadSigningKey(attestationConfig({ key_continuity_policy: 'persistent', signing_key_pem: p }), memoryStore(), pino({ level: 'silent' })),
      AttestationKeyError,
      name,
    );
  }
  await t.rejects(startHarness({ config: { attestation: { key_continuity_policy: 'persistent', signing_key_pem: bad['P-384'] } } }), AttestationKeyError, 'the server refuses to start');
});

t.test('any other policy is a configuration error', async (t) => {
  t.throws(
    () => loadServiceConfig({ env: { SVC_ATTESTATION_KEY_CONTINUITY_POLICY: 'rotating' }, file: null, overrides: { secrets: TEST_SECRETS } }),
    { message: /key_continuity_policy.*allowed values/ },
  );
  t.throws(() => loadServiceConfig({ env: { SVC_ATTESTATION_KEY_CONTINUITY_POLICY: 'persistent' }, file: null, overrides: { secrets: TEST_SECRETS } }), { message: /signing_key_pem.*required/ }, 'persistent needs a PEM');
  await t.rejects(
    loadSigningKey({ ...attestationConfig(), key_continuity_policy: 'rotating' as 'ephemeral' }, memoryStore(), pino({ level: 'silent' })),
    AttestationKeyError,
    'refused in code as well',
  );
});

t.test('identity publishes issuer DID, kid and public JWK', async (t) => {
  const h = await startHarness({ config: { attestation: { key_continuity_policy: 'persistent', signing_key_pem: P256_PEM } } });
  t.teardown(() => h.close());
  const r = await h.request('GET', '/health/identity', { key: null });
  t.equal(r.status, 200);
  const a = r.body.attestation;
  t.equal(a.issuer, 'did:svc:node:staging');
  t.equal(a.kid, 'did:svc:node:staging#key-1');
  t.equal(a.public_jwk.kid, a.kid);
  t.equal(a.public_jwk.crv, 'P-256');
  t.notOk('d' in a.public_jwk);
  t.equal(a.key_continuity_policy, 'persistent');
  t.type(a.generated_at, 'number');
  t.equal(h.logs.events('attestation.key_loaded').length, 1);
});
