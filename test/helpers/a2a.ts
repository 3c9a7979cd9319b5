import { createPublicKey, generateKeyPairSync, verify as cryptoVerify } from 'node:crypto';
import a2a from '../../plugins/a2a/index.js';
import health from '../../plugins/health/index.js';
import code from '../../plugins/engines/code/index.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import type { Plugin } from '../../core/types.js';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from './server.js';
import type { DeepPartial } from '../../core/config.js';
import type { A2aSettings } from '../../plugins/a2a/settings.js';

/** Test keys are made here, by the test: the server itself never generates its A2A key. */
export function p256Pem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
export function p384Pem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
export function rsaPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

export const KEY_PEM = p256Pem();

export type A2AConfig = DeepPartial<A2aSettings>;

/** A gateway with the code plugin beside it (code_guard parses through its `code.analyzer`); `withCode: false` leaves it out. */
export async function startA2A(a2aConfig: A2AConfig = {}, extra: Plugin[] = [], config: ConfigOverrides = {}, opts: { withCode?: boolean } = {}): Promise<TestServer> {
  return startServer({
    plugins: [testAuthPlugin(['verify:read']), health, a2a, ...(opts.withCode === false ? [] : [code]), ...extra],
    config: {
      ...config,
      // claim-only by default: these servers test the boundary and the guards; the sender-auth tests
      // (test/a2a/sender-auth.test.ts) turn it on
      a2a: { deployment_id: 'test-deploy', signing_key_pem: KEY_PEM, default_allow: true, sender_auth: 'off', ...a2aConfig } as A2aSettings,
    },
  });
}

/**
 * The gateway alone, for tests that send no code payload: without the code plugin, no tree-sitter
 * warm-up runs in a worker beside the test (code_guard then fails closed, which they never reach).
 */
export function startA2AWithoutCode(a2aConfig: A2AConfig = {}, extra: Plugin[] = [], config: ConfigOverrides = {}): Promise<TestServer> {
  return startA2A(a2aConfig, extra, config, { withCode: false });
}

export function message(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sender_agent_id: 'agent-a',
    receiver_agent_id: 'agent-b',
    payload_type: 'general',
    payload: { text: 'hello' },
    timestamp: '2026-11-23T01:00:00Z',
    ...over,
  };
}

export function invoice(items: unknown[], claimed: unknown): Record<string, unknown> {
  return { data: { claimed_total: claimed, line_items: items } };
}

export async function intercept(s: TestServer, msg: Record<string, unknown>) {
  return s.request('POST', '/a2a/intercept', { body: msg, apiKey: TEST_API_KEY });
}

export function decodeJwt(token: string): { header: any; claims: any; signingInput: string; signature: Buffer } {
  const [h, p, sig] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')),
    claims: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')),
    signingInput: `${h}.${p}`,
    signature: Buffer.from(sig, 'base64url'),
  };
}

/** Verifies a compact ES256 JWS with node:crypto and nothing but a JWK from the JWKS (no jose). */
export function verifyWithJwk(token: string, jwk: Record<string, unknown>): boolean {
  const { signingInput, signature } = decodeJwt(token);
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as any, format: 'jwk' });
  return cryptoVerify('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' }, signature);
}

export { TEST_API_KEY };
