import { useEffect, useState } from 'preact/hooks';
import { call, describe, type Me } from './api.js';

interface Op {
  method: string;
  path: string;
  plugin: string;
  auth: string;
}

/** The public probes and the OpenAPI document, rendered as text: what the CLI's `health` reads. */
export function HealthView(_: { me: Me; keyed: boolean }) {
  const [health, setHealth] = useState<Record<string, unknown> | null>(null);
  const [ready, setReady] = useState<string | null>(null);
  const [identity, setIdentity] = useState<Record<string, unknown> | null>(null);
  const [ops, setOps] = useState<Op[] | null>(null);
  const [filter, setFilter] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void (async () => {
      try {
        setHealth(await call('GET', '/health', { cred: 'none' }));
        setIdentity(await call('GET', '/health/identity', { cred: 'none' }));
        setReady(await call<{ status: string }>('GET', '/readyz', { cred: 'none' }).then((r) => r.status, (err) => describe(err)));
        const doc = await call<{ paths: Record<string, Record<string, { tags?: string[]; security?: Array<Record<string, unknown>>; 'x-proofgate-scope'?: string }>> }>('GET', '/openapi.json', { cred: 'none' });
        const out: Op[] = [];
        for (const [path, methods] of Object.entries(doc.paths)) {
          for (const [method, op] of Object.entries(methods)) {
            const kinds = (op.security ?? []).flatMap((s) => Object.keys(s)).join(' or ');
            out.push({ method: method.toUpperCase(), path, plugin: op.tags?.[0] ?? '', auth: kinds ? `${kinds} (${op['x-proofgate-scope'] ?? 'authenticated'})` : 'none' });
          }
        }
        setOps(out);
      } catch (err) {
        setError(describe(err));
      }
    })();
  }, []);
  const engines = (identity?.engines ?? []) as Array<{ name: string; version: string }>;
  const shown = ops?.filter((o) => !filter || `${o.method} ${o.path} ${o.plugin} ${o.auth}`.toLowerCase().includes(filter.toLowerCase()));
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Health</h2>
      {error && <p role="alert" class="error">{error}</p>}
      <dl data-testid="health">
        <dt>service</dt><dd>{String(health?.service ?? '…')} {String(health?.version ?? '')}</dd>
        <dt>ready</dt><dd data-testid="readiness">{ready ?? '…'}</dd>
        <dt>engines</dt><dd data-testid="engines">{engines.map((e) => `${e.name} ${e.version}`).join(', ') || '—'}</dd>
      </dl>
      <h2 id="openapi-title">API reference</h2>
      <label for="op-filter">Filter operations</label>
      <input id="op-filter" type="search" value={filter} onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)} />
      {shown && (
        <div class="table-wrap">
          <table data-testid="openapi-table" aria-labelledby="openapi-title">
            <thead>
              <tr><th scope="col">operation</th><th scope="col">credential</th><th scope="col">plugin</th></tr>
            </thead>
            <tbody>
              {shown.map((o) => (
                <tr key={`${o.method} ${o.path}`} data-testid="op-row">
                  <td><code>{o.method} {o.path}</code></td>
                  <td>{o.auth}</td>
                  <td>{o.plugin}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
