import { useState } from 'preact/hooks';
import { call, describe, type Me } from './api.js';

interface RecordView {
  id: string;
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  status: string;
  result: unknown;
  query_hash: string;
  proof_hash: string;
  revoked_at: number | null;
}
interface Decoded {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  local: string;
  server: string;
}

const b64url = (s: string): Uint8Array<ArrayBuffer> => {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
};
const json = (s: string) => JSON.parse(new TextDecoder().decode(b64url(s))) as Record<string, unknown>;
const when = (s: number | null) => (s === null ? '—' : new Date(s * 1000).toISOString());

/**
 * Checks an ES256 token's signature in the page against the keys the server publishes (WebCrypto),
 * so the answer does not rest on the server saying so; the server's own check (revocation, trusted
 * issuers) is asked separately and shown beside it.
 */
async function verifyLocally(token: string, header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
  if (header.alg !== 'ES256') return `refused: alg ${String(header.alg)} is not ES256`;
  // attestation keys are published in /health/identity; the A2A signer's in /.well-known/jwks.json
  const keys: Array<Record<string, unknown>> = [];
  const identity = await call<{ attestation?: { public_jwk?: Record<string, unknown> } }>('GET', '/health/identity', { cred: 'none' }).catch(() => null);
  if (identity?.attestation?.public_jwk) keys.push(identity.attestation.public_jwk);
  const jwks = await call<{ keys: Array<Record<string, unknown>> }>('GET', '/.well-known/jwks.json', { cred: 'none' }).catch(() => null);
  if (jwks) keys.push(...jwks.keys);
  const jwk = keys.find((k) => k.kid === header.kid && k.kty === 'EC' && k.crv === 'P-256');
  if (!jwk) return `no key ${String(header.kid)} among the keys this server publishes`;
  const key = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string, ext: true }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const [h, p, sig] = token.split('.');
  const ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, b64url(sig), new TextEncoder().encode(`${h}.${p}`));
  if (!ok) return 'signature INVALID';
  const exp = typeof claims.exp === 'number' ? claims.exp : 0;
  return exp * 1000 < Date.now() ? 'signature valid, token EXPIRED' : 'signature valid';
}

export function AttestationsView({ me, keyed }: { me: Me; keyed: boolean }) {
  const [record, setRecord] = useState<RecordView | null>(null);
  const [decoded, setDecoded] = useState<Decoded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [msg, setMsg] = useState<string | null>(null);
  const privileged = me.role === 'owner' || me.role === 'admin';

  const lookup = async (e: Event) => {
    e.preventDefault();
    const id = String(new FormData(e.currentTarget as HTMLFormElement).get('attestation-id') ?? '').trim();
    setError(null);
    setMsg(null);
    setRecord(null);
    if (!id) return;
    try {
      setRecord(await call<RecordView>('GET', `/attestation/${encodeURIComponent(id)}`, { cred: 'key' }));
    } catch (err) {
      setError(describe(err));
    }
  };
  const decode = async (e: Event) => {
    e.preventDefault();
    const token = String(new FormData(e.currentTarget as HTMLFormElement).get('token') ?? '').trim();
    setError(null);
    setDecoded(null);
    const parts = token.split('.');
    if (parts.length !== 3) return setError('not a compact JWS (three dot-separated parts)');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = json(parts[0]);
      claims = json(parts[1]);
    } catch {
      return setError('the token does not decode as JSON');
    }
    let local: string;
    try {
      local = await verifyLocally(token, header, claims);
    } catch (err) {
      local = `could not check: ${describe(err)}`;
    }
    let server = 'needs an API key';
    if (keyed) {
      try {
        const r = await call<{ status: string }>('POST', '/attestation/verify', { cred: 'key', body: { jwt: token } });
        server = r.status;
      } catch (err) {
        server = describe(err);
      }
    }
    setDecoded({ header, claims, local, server });
  };
  const revoke = async () => {
    if (!record) return;
    try {
      const r = await call<{ status: string; revoked_at: number }>('POST', `/attestation/${encodeURIComponent(record.id)}/revoke`, { cred: 'key' });
      setRecord({ ...record, status: r.status, revoked_at: r.revoked_at });
      setMsg('revoked');
    } catch (err) {
      setMsg(describe(err));
    }
  };

  return (
    <section aria-labelledby="att-title">
      <h2 id="att-title">Attestations</h2>
      {!keyed && <p>Looking up and revoking attestations needs an API key; decoding and checking a token's signature does not.</p>}
      <form onSubmit={lookup} class="row">
        <label for="attestation-id">Attestation id</label>
        <input id="attestation-id" name="attestation-id" type="text" autocomplete="off" />
        <button type="submit" disabled={!keyed}>Look up</button>
      </form>
      <form onSubmit={decode}>
        <label for="token">Attestation token</label>
        <textarea id="token" name="token" rows={3} />
        <button type="submit">Decode and verify</button>
      </form>
      {error && <p role="alert" class="error" data-testid="att-error">{error}</p>}
      {record && (
        <article class="card" data-testid="att-record">
          <h3><code>{record.id}</code> <span class="badge" data-testid="att-status">{record.status}</span></h3>
          <dl>
            <dt>issuer</dt><dd>{record.iss}</dd>
            <dt>subject</dt><dd><code>{record.sub}</code></dd>
            <dt>issued</dt><dd>{when(record.iat)}</dd>
            <dt>expires</dt><dd>{when(record.exp)}</dd>
            <dt>revoked</dt><dd>{when(record.revoked_at)}</dd>
            <dt>proof</dt><dd><code>{record.proof_hash}</code></dd>
          </dl>
          <pre>{JSON.stringify(record.result, null, 2)}</pre>
          {privileged && record.revoked_at === null && <button type="button" onClick={() => void revoke()} data-testid="revoke">Revoke</button>}
          {msg && <p role="status" data-testid="revoke-result">{msg}</p>}
        </article>
      )}
      {decoded && (
        <article class="card" data-testid="att-decoded">
          <p data-testid="att-local">In this page: {decoded.local}</p>
          <p data-testid="att-server">Server: {decoded.server}</p>
          <pre>{JSON.stringify({ header: decoded.header, claims: decoded.claims }, null, 2)}</pre>
        </article>
      )}
    </section>
  );
}
