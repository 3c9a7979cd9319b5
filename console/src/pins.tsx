import { useEffect, useState } from 'preact/hooks';
import { call, describe, type Me } from './api.js';
import { SideBySide } from './diff.js';

interface Finding {
  detector: string;
  constraint_id: string;
  details: string;
}
interface ToolRow {
  tool: string;
  hash: string;
  status: 'pinned' | 'pending' | 'changed' | 'poisoned' | 'duplicate';
  pinned_hash: string | null;
  findings: Finding[];
  seen_at: string;
  approved_at: string | null;
  approved_by: string | null;
  definition: Record<string, unknown> | null;
  pinned_definition: Record<string, unknown> | null;
}
interface Rejection {
  tool: string;
  hash: string;
  rejected_at: string;
  rejected_by: string;
}
interface Server {
  name: string;
  url: string;
  tools: ToolRow[] | null;
  rejections: Rejection[];
  error: string | null;
}

const short = (h: string | null) => (h === null ? '—' : h.replace(/^sha256:/, '').slice(0, 12));

/** Everything from the server is rendered as text (JSX escapes it): a definition is the upstream's words, not ours. */
function ToolCard({ server, row, rejection, onApproved }: { server: string; row: ToolRow; rejection: Rejection | null; onApproved: () => void }) {
  const [accept, setAccept] = useState(false);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const approvable = row.status !== 'pinned' && row.status !== 'duplicate';
  const id = `${server}-${row.tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const approve = async () => {
    setMsg(null);
    try {
      const r = await call<{ hash: string; approved_by: string }>('POST', `/admin/mcp/servers/${encodeURIComponent(server)}/tools/${encodeURIComponent(row.tool)}/approve`, {
        cred: 'key',
        body: { hash: row.hash, ...(accept ? { accept_findings: true } : {}) },
      });
      setMsg({ ok: true, text: `approved ${short(r.hash)}` });
      onApproved();
    } catch (err) {
      setMsg({ ok: false, text: describe(err) });
    }
  };
  // the hash shown is the one refused: a definition that changed again meanwhile is 409, not rejected unseen
  const reject = async () => {
    setMsg(null);
    try {
      const r = await call<{ hash: string }>('POST', `/admin/mcp/servers/${encodeURIComponent(server)}/tools/${encodeURIComponent(row.tool)}/reject`, { cred: 'key', body: { hash: row.hash } });
      setMsg({ ok: true, text: `rejected ${short(r.hash)}` });
      onApproved();
    } catch (err) {
      setMsg({ ok: false, text: describe(err) });
    }
  };
  const rejected = rejection && rejection.hash === row.hash && row.status !== 'pinned' ? rejection : null;
  return (
    <article class={`tool status-${row.status}`} data-testid={`tool-${row.tool}`} aria-labelledby={`${id}-name`}>
      <h4 id={`${id}-name`}>
        <code>{row.tool}</code> <span class="badge" data-testid="tool-status">{row.status}</span>
      </h4>
      <dl>
        <dt>seen</dt>
        <dd><code>{short(row.hash)}</code> at {row.seen_at}</dd>
        <dt>pinned</dt>
        <dd><code>{short(row.pinned_hash)}</code>{row.approved_at ? ` at ${row.approved_at} by ${row.approved_by ?? '?'}` : ''}</dd>
        {rejected && (
          <>
            <dt>rejected</dt>
            <dd data-testid="tool-rejected"><code>{short(rejected.hash)}</code> at {rejected.rejected_at} by {rejected.rejected_by}</dd>
          </>
        )}
      </dl>
      {row.definition && typeof row.definition.description === 'string' && (
        <p class="description" data-testid="tool-description">{row.definition.description}</p>
      )}
      {row.findings.length > 0 && (
        <ul class="findings" aria-label="Screening findings">
          {row.findings.map((f, i) => (
            <li key={i}><code>{f.constraint_id}</code>: {f.details}</li>
          ))}
        </ul>
      )}
      {row.status === 'changed' && row.pinned_definition && row.definition && <SideBySide before={row.pinned_definition} after={row.definition} />}
      <details>
        <summary>Definition last seen</summary>
        <pre>{JSON.stringify(row.definition, null, 2)}</pre>
      </details>
      {approvable && (
        <div class="row">
          {row.findings.length > 0 && (
            <label>
              <input type="checkbox" checked={accept} onChange={(e) => setAccept((e.currentTarget as HTMLInputElement).checked)} /> accept the findings
            </label>
          )}
          <button type="button" onClick={approve} data-testid="approve">Approve {short(row.hash)}</button>
          {!rejected && <button type="button" onClick={reject} data-testid="reject">Reject {short(row.hash)}</button>}
        </div>
      )}
      {msg && <p role="status" class={msg.ok ? 'ok' : 'error'} data-testid="approve-result">{msg.text}</p>}
    </article>
  );
}

export function PinsView({ keyed }: { me: Me; keyed: boolean }) {
  const [servers, setServers] = useState<Server[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    setError(null);
    try {
      const r = await call<{ servers: Array<{ name: string; url: string }> }>('GET', '/admin/mcp/servers', { cred: 'key' });
      const out: Server[] = [];
      for (const s of r.servers) {
        try {
          const path = `/admin/mcp/servers/${encodeURIComponent(s.name)}`;
          const [t, r] = await Promise.all([call<{ tools: ToolRow[] }>('GET', `${path}/tools`, { cred: 'key' }), call<{ rejections: Rejection[] }>('GET', `${path}/rejections`, { cred: 'key' })]);
          out.push({ ...s, tools: t.tools, rejections: r.rejections, error: null });
        } catch (err) {
          out.push({ ...s, tools: null, rejections: [], error: describe(err) });
        }
      }
      setServers(out);
    } catch (err) {
      setServers(null);
      setError(describe(err));
    }
  };
  useEffect(() => {
    if (keyed) void load();
  }, [keyed]);
  return (
    <section aria-labelledby="pins-title">
      <h2 id="pins-title">MCP tool pins</h2>
      {!keyed && <p>Use an API key with <code>admin:all</code> held by an operator to review pins.</p>}
      {keyed && <button type="button" onClick={() => void load()}>Reload</button>}
      {error && <p role="alert" class="error" data-testid="pins-error">{error}</p>}
      {servers?.length === 0 && <p>No MCP server is configured.</p>}
      {servers?.map((s) => (
        <section key={s.name} class="card" aria-label={`server ${s.name}`} data-testid={`server-${s.name}`}>
          <h3>{s.name} <small>{s.url}</small></h3>
          {s.error && <p role="alert" class="error">{s.error}</p>}
          {s.tools?.length === 0 && <p>No tool listed yet.</p>}
          {s.tools?.map((row) => <ToolCard key={row.tool} server={s.name} row={row} rejection={s.rejections.find((x) => x.tool === row.tool) ?? null} onApproved={() => void load()} />)}
        </section>
      ))}
    </section>
  );
}
