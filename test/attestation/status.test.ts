import { generateKeyPairSync } from 'node:crypto';
import t, { type Test } from 'tap';
import badges from '../../plugins/badges/index.js';
import type { AttestationRecord } from '../../plugins/attestation/types.js';
import { P256_PEM } from '../helpers/attestation/fixtures.js';
import { claimsFor, recordFor } from '../helpers/attestation/forge.js';
import { startHarness, type Harness } from '../helpers/attestation/harness.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { ConfigOverrides } from '../../core/config.js';

/**
 * The status of a stored attestation (GET /attestation/{id}, its badge) may say VALID only while
 * its token still verifies here: signed by a key the service accepts now. A restart with an
 * ephemeral key, or a persistent key rotated out, leaves tokens whose signature cannot be checked:
 * UNVERIFIABLE (the spec's status for what cannot be checked), not VALID — and not REVOKED, which
 * says someone withdrew it.
 */
const persistent = (pem: string, keyName = 'key-1') => ({ attestation: { key_continuity_policy: 'persistent' as const, signing_key_pem: pem, key_name: keyName } });
const otherPem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

async function issue(h: Harness, expression: string) {
  const r = await h.request('POST', '/test/attestable', { body: { expression } });
  return { id: r.body.attestation_id as string, token: r.body.attestation as string };
}
const status = async (h: Harness, id: string) => (await h.request('GET', `/attestation/${id}`)).body.status as string;
const verifies = async (h: Harness, token: string) => (await h.request('POST', '/attestation/verify', { body: { jwt: token } })).status === 200;
const badgeText = async (h: Harness, id: string) => (await h.request('GET', (await h.request('POST', `/attestation/${id}/badge-url`)).body.path, { key: null })).text;

/** Issues in one process, restarts on the same store with `next`, and hands both the second process. */
async function acrossRestart(t: Test, first: ConfigOverrides, next: ConfigOverrides) {
  const dir = tempDir(t, 'proofgate-status-');
  const h1 = await startHarness({ config: first, dataDir: dir, plugins: [badges] });
  const kept = await issue(h1, '1+1=2');
  const revoked = await issue(h1, '2+1=3');
  t.equal((await h1.request('POST', `/attestation/${revoked.id}/revoke`, { key: 'a-operator' })).status, 200);
  t.equal(await status(h1, kept.id), 'VALID', 'VALID in the process that signed it');
  await h1.close();
  const h2 = await startHarness({ config: next, dataDir: dir, plugins: [badges] });
  t.teardown(() => h2.close());
  return { h2, kept, revoked };
}

t.test('ephemeral key: after a restart, earlier tokens are UNVERIFIABLE, not VALID', async (t) => {
  const { h2, kept, revoked } = await acrossRestart(t, {}, {});
  t.equal(await verifies(h2, kept.token), false, 'its token no longer verifies');
  t.equal(await status(h2, kept.id), 'UNVERIFIABLE');
  t.match(await badgeText(h2, kept.id), />unverifiable</, 'nor does its badge say valid');
  t.equal(await status(h2, revoked.id), 'REVOKED', 'a revocation still shows as such');
  const fresh = await issue(h2, '3+1=4');
  t.equal(await status(h2, fresh.id), 'VALID', "the new process's own tokens are VALID");
  t.equal(await verifies(h2, fresh.token), true);
});

t.test('persistent key: the same key after a restart keeps VALID', async (t) => {
  const { h2, kept, revoked } = await acrossRestart(t, persistent(P256_PEM), persistent(P256_PEM));
  t.equal(await verifies(h2, kept.token), true);
  t.equal(await status(h2, kept.id), 'VALID');
  t.match(await badgeText(h2, kept.id), />valid</);
  t.equal(await status(h2, revoked.id), 'REVOKED');
});

t.test('persistent key rotated (new PEM, same kid): UNVERIFIABLE, as verify refuses its tokens', async (t) => {
  const { h2, kept } = await acrossRestart(t, persistent(P256_PEM), persistent(otherPem()));
  t.equal(await verifies(h2, kept.token), false);
  t.equal(await status(h2, kept.id), 'UNVERIFIABLE');
});

t.test('same PEM under another key name (another kid): UNVERIFIABLE, as verify refuses its tokens', async (t) => {
  const { h2, kept } = await acrossRestart(t, persistent(P256_PEM), persistent(P256_PEM, 'key-2'));
  t.equal(await verifies(h2, kept.token), false);
  t.equal(await status(h2, kept.id), 'UNVERIFIABLE');
});

t.test('a record that does not name its key material is not VALID; expiry still shows', async (t) => {
  const h = await startHarness({ config: persistent(P256_PEM) });
  t.teardown(() => h.close());
  const records = h.kernel.app.store.collection<AttestationRecord>('attestations');
  const real = (await records.get((await issue(h, '5+5=10')).id))!;
  const now = Math.floor(Date.now() / 1000);
  const legacy = claimsFor({ proof_ref: real.proof_hash, iat: now, exp: now + 3600 });
  await records.put(legacy.jti, recordFor(legacy));
  t.equal(await status(h, legacy.jti), 'UNVERIFIABLE', 'a record of an earlier release (no thumbprint)');
  const named = claimsFor({ proof_ref: real.proof_hash, iat: now, exp: now + 3600 });
  await records.put(named.jti, { ...recordFor(named), jkt: real.jkt });
  t.equal(await status(h, named.jti), 'VALID', 'the same record naming the current key');
  const expired = claimsFor({ proof_ref: real.proof_hash, iat: now - 7200, exp: now - 3600 });
  await records.put(expired.jti, recordFor(expired));
  t.equal(await status(h, expired.jti), 'EXPIRED', 'expiry is a fact whatever the key');
});
