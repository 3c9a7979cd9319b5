import { createPublicKey } from 'node:crypto';
import { compactVerify } from 'jose';
import { pino } from 'pino';
import t from 'tap';
import { Metrics } from '../../../core/obs/metrics.js';
import { A2AGateway } from '../../../plugins/a2a/gateway.js';
import { createFinanceGuard } from '../../../plugins/a2a/guards/finance.js';
import { GuardRegistry } from '../../../plugins/a2a/guards/registry.js';
import { A2AMetrics } from '../../../plugins/a2a/metrics.js';
import { SenderAuthenticator } from '../../../plugins/a2a/sender-auth.js';
import { loadSigningKey, type VerdictSigner } from '../../../plugins/a2a/signer.js';
import { TrustBoundary } from '../../../plugins/a2a/trust-boundary.js';
import { decodeJwt, invoice, KEY_PEM, message } from '../../helpers/a2a.js';

/** the verdict is signed off the event loop; a signature that fails leaves no verdict at all (fail closed) */
function gateway(signer: VerdictSigner, metrics = new A2AMetrics(new Metrics())): A2AGateway {
  const guards = new GuardRegistry();
  guards.registerBuiltin('financial_transaction', createFinanceGuard());
  const boundary = new TrustBoundary({ blocklist: new Set(), blockedPairs: new Set(), allowlist: new Map(), defaultAllow: true, maxRequestsPerMinute: 60 });
  const senders = new SenderAuthenticator({ mode: 'off', allowlist: new Map(), agentKey: async () => undefined });
  return new A2AGateway({ signer, boundary, senders, guards, metrics, blockOnError: true, disabled: new Map() });
}

const key = loadSigningKey(KEY_PEM, 'sign-test', 300);
if (!key.ok) throw new Error(key.reason);
const signer = key.signer;
const log = pino({ level: 'silent' });
const forwarded = () => message({ payload_type: 'financial_transaction', payload: invoice([{ amount: '2.50', quantity: 2 }], '5.00') }) as any;

t.test('a forwarded verdict carries a JWT that verifies against the published key', async (t) => {
  const v = await gateway(signer).intercept(forwarded(), { principal: null, raw: null }, new AbortController().signal, log);
  t.equal(v.status, 'forwarded');
  const { header, claims } = decodeJwt(v.attestation_jwt!);
  t.equal(header.kid, signer.kid);
  t.equal(claims.jti, v.audit_trace_id);
  const pub = createPublicKey({ key: signer.jwk as any, format: 'jwk' });
  await t.resolves(compactVerify(v.attestation_jwt!, pub, { algorithms: ['ES256'] }));
});

t.test('a signature that fails rejects the intercept: nothing forwarded, nothing counted', async (t) => {
  const failing = Object.create(signer) as VerdictSigner;
  failing.signAsync = async () => {
    throw new Error('signing failed');
  };
  const metrics = new A2AMetrics(new Metrics());
  await t.rejects(gateway(failing, metrics).intercept(forwarded(), { principal: null, raw: null }, new AbortController().signal, log), /signing failed/);
  t.equal(metrics.snapshot('').total_intercepts, 0);
  t.equal(metrics.snapshot('').forwarded, 0);
});
