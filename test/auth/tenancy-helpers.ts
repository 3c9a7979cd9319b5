import { diagnosticBody, verified, blocked, unverifiable } from '../../core/verdict.js';
import type { Plugin } from '../../core/types.js';
import type { TestServer } from '../helpers/server.js';

/** Helpers shared by the tenancy tests (auth, audit, ops). */
let n = 0;
export function uniq(prefix: string): string {
  return `${prefix}${process.pid}-${Date.now().toString(36)}-${n++}`;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function signup(s: TestServer, o: { email?: string; org?: string; password?: string; headers?: Record<string, string> } = {}) {
  const r = await s.request('POST', '/auth/signup', {
    body: { email: o.email ?? `${uniq('u')}@example.com`, password: o.password ?? 'correct horse battery', organization_name: o.org ?? uniq('Org ') },
    headers: o.headers,
  });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${r.text}`);
  return { token: r.body.access_token as string, user: r.body.user as { id: string; email: string; org_id: string; role: string } };
}

export async function createKey(s: TestServer, token: string, body: Record<string, unknown> = { name: 'k' }) {
  const r = await s.request('POST', '/auth/api-keys', { body, headers: bearer(token) });
  if (r.status !== 201) throw new Error(`key creation failed: ${r.status} ${r.text}`);
  return r.body as { id: string; name: string; key: string; created_at: string; scopes: string[] };
}

/** A tenant with an admin:all key: what most tests start from. */
export async function tenant(s: TestServer, scopes = ['verify:read', 'attestation:read', 'admin:all']) {
  const acct = await signup(s);
  const key = await createKey(s, acct.token, { name: 'main', scopes });
  return { ...acct, key: key.key, keyId: key.id, orgId: acct.user.org_id };
}

/**
 * A tiny verification route (tagged 'verification', so audited and limited like the real engines):
 * POST /test/verify {outcome, constraint_id?, llm?} answers with the DiagnosticResult layout.
 */
export const verificationTestPlugin: Plugin = {
  name: 'test-verification',
  register(app) {
    app.route({
      method: 'POST',
      path: '/test/verify',
      auth: 'apiKey',
      scope: 'verify:read',
      tags: ['verification'],
      handler(ctx) {
        const b = (ctx.body ?? {}) as { outcome?: string; constraint_id?: string; llm?: string };
        const extra = b.llm ? { engine: 'test', raw_llm_output: b.llm } : { engine: 'test' };
        if (b.outcome === 'blocked') return { status: 403, body: diagnosticBody(blocked('no', b.constraint_id ?? 'test.blocked', extra)) };
        if (b.outcome === 'unverifiable') return { body: diagnosticBody(unverifiable('maybe', extra)) };
        return { body: diagnosticBody(verified('yes', extra, { engine: 'test', engine_version: '1', input: b, result: true })) };
      },
    });
  },
};
