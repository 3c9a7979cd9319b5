import { createPrivateKey } from 'node:crypto';
import t from 'tap';
import a2a from '../../plugins/a2a/index.js';
import health from '../../plugins/health/index.js';
import { startServer, testAuthPlugin } from '../helpers/server.js';
import { intercept, invoice, message, p256Pem, p384Pem, rsaPem, startA2AWithoutCode } from '../helpers/a2a.js';
import { waitFor } from '../helpers/wait.js';

/** the same kind of P-256 key in SEC1 form (BEGIN EC PRIVATE KEY): not the PKCS#8 the spec requires */
const ecSec1 = () => createPrivateKey(p256Pem()).export({ type: 'sec1', format: 'pem' }).toString();

const BAD_KEYS: Array<[string, () => string | null]> = [
  ['missing', () => null],
  ['RSA', rsaPem],
  ['P-384', p384Pem],
  ['SEC1 instead of PKCS#8', ecSec1],
  ['garbage', () => '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'],
];

for (const [name, pem] of BAD_KEYS) {
  t.test(`${name} key: the server starts, intercept and JWKS answer 503 Signing key unavailable`, async (t) => {
    const s = await startA2AWithoutCode({ signing_key_pem: pem() });
    t.teardown(() => s.close());
    const r = await intercept(s, message({ payload_type: 'financial_transaction', payload: invoice([{ amount: 1 }], 1) }));
    t.equal(r.status, 503);
    t.equal(r.headers.get('content-type'), 'application/problem+json');
    t.equal(r.body.detail, 'Signing key unavailable');
    t.notOk(r.text.includes('BEGIN'), 'nothing about the key leaks');
    const invalid = await intercept(s, { nonsense: true });
    t.equal(invalid.status, 503, 'refused before the body is even validated');
    const jwks = await s.request('GET', '/.well-known/jwks.json');
    t.equal(jwks.status, 503);
    t.equal(jwks.body.detail, 'Signing key unavailable');
    t.equal((await s.request('GET', '/healthz')).status, 200, 'alive');
    t.equal((await s.request('GET', '/readyz')).status, 503, 'not ready');
    t.equal((await s.request('GET', '/a2a/health')).body.status, 'degraded');
  });
}

t.test('a valid key makes /readyz ready (once the code parser is warm)', async (t) => {
  const s = await startA2AWithoutCode();
  t.teardown(() => s.close());
  await waitFor(async () => (await s.request('GET', '/readyz')).status === 200, { what: '/readyz to answer 200', timeoutMs: 60_000, everyMs: 50 });
  t.pass('ready');
});

t.test('deployment_id is required when the plugin is enabled', async (t) => {
  await t.rejects(
    startServer({ plugins: [testAuthPlugin(), health, a2a], config: { a2a: { signing_key_pem: p256Pem() } as any } }),
    /deployment_id/,
  );
  // disabled plugin: no requirement
  const s = await startServer({ plugins: [health, a2a], config: { plugins: { disabled: ['a2a'], extra: [] } } });
  t.teardown(() => s.close());
  t.equal((await s.request('GET', '/a2a/health')).status, 404);
});

t.test('the kid is stable across restarts for an unchanged key', async (t) => {
  const pem = p256Pem();
  const kid = async () => {
    const s = await startA2AWithoutCode({ signing_key_pem: pem });
    try {
      return (await s.request('GET', '/.well-known/jwks.json')).body.keys[0].kid as string;
    } finally {
      await s.close();
    }
  };
  const a = await kid();
  t.equal(await kid(), a);
  const other = await startA2AWithoutCode({ signing_key_pem: p256Pem() });
  t.teardown(() => other.close());
  t.not((await other.request('GET', '/.well-known/jwks.json')).body.keys[0].kid, a, 'another key, another kid');
});
