import { useEffect, useState } from 'preact/hooks';
import { call, describe, fetchBlob, type AuditEntry, type Me } from './api.js';
import { AuditState } from './audit-state.js';

const STATUSES = ['verified', 'blocked', 'unverifiable', 'admin', 'refused'] as const;
const PAGE = 20;

interface Row extends AuditEntry {
  /** only in the JWT listing (GET /audit/logs): the hash links */
  prev_hash?: string;
  payload_hash?: string;
}
interface EntryCheck {
  valid: boolean;
  checks: { payload_hash: { ok: boolean }; hmac: { ok: boolean }; chain: { ok: boolean; detail: string | null } };
}

const short = (h: string | null | undefined) => (h ? h.replace(/^sha256:/, '').slice(0, 10) : '—');

/**
 * With only the sign-in JWT: the newest entries (GET /audit/logs). With an API key: pages back
 * through the chain by cursor (GET /logs), checks each shown entry (GET /admin/compliance/verify/…,
 * admin:all) and the whole chain (the SOC 2 report's integrity control, which walks every link).
 */
export function AuditView({ me, keyed }: { me: Me; keyed: boolean }) {
  const [status, setStatus] = useState('');
  const [rows, setRows] = useState<Row[] | null>(null);
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checks, setChecks] = useState<Record<string, EntryCheck | string>>({});
  const [progress, setProgress] = useState<string | null>(null);
  const [chain, setChain] = useState<{ ok: boolean; text: string } | null>(null);

  const load = async (cursor: string | null) => {
    setError(null);
    setChecks({});
    setProgress(null);
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (status) q.set('status', status);
    try {
      if (keyed) {
        if (cursor) q.set('cursor', cursor);
        const r = await call<{ logs: Row[]; next_cursor: string | null }>('GET', `/logs?${q}`, { cred: 'key' });
        setRows(r.logs);
        setNext(r.next_cursor);
      } else {
        const r = await call<{ logs: Row[] }>('GET', `/audit/logs?${q}`);
        setRows(r.logs);
        setNext(null);
      }
    } catch (err) {
      setRows(null);
      setError(describe(err));
    }
  };
  useEffect(() => {
    setCursors([null]);
    void load(null);
  }, [status, keyed]);

  const older = () => {
    if (!next) return;
    setCursors([...cursors, next]);
    void load(next);
  };
  const newer = () => {
    const back = cursors.slice(0, -1);
    setCursors(back.length ? back : [null]);
    void load(back[back.length - 1] ?? null);
  };
  const verifyShown = async () => {
    if (!rows) return;
    const out: Record<string, EntryCheck | string> = {};
    for (const [i, r] of rows.entries()) {
      setProgress(`checking ${i + 1} of ${rows.length}`);
      try {
        out[r.log_id] = await call<EntryCheck>('GET', `/admin/compliance/verify/${encodeURIComponent(r.log_id)}`, { cred: 'key' });
      } catch (err) {
        out[r.log_id] = describe(err);
      }
      setChecks({ ...out });
    }
    const bad = Object.values(out).filter((c) => typeof c === 'string' || !c.valid).length;
    setProgress(`${rows.length} checked, ${bad} failed`);
  };
  const verifyChain = async () => {
    setChain({ ok: true, text: 'walking the chain…' });
    try {
      const r = await call<{ chain_integrity: { ok: boolean; entries_checked: number; first_break: { seq: number; reason: string } | null } }>(
        'GET',
        `/admin/compliance/report/soc2/${encodeURIComponent(me.org_id)}`,
        { cred: 'key' },
      );
      const c = r.chain_integrity;
      setChain({ ok: c.ok, text: c.ok ? `chain intact: ${c.entries_checked} entries verified` : `chain broken at seq ${c.first_break?.seq}: ${c.first_break?.reason}` });
    } catch (err) {
      setChain({ ok: false, text: describe(err) });
    }
  };

  const exportCsv = async () => {
    setError(null);
    try {
      const blob = await fetchBlob(`/audit/export${status ? `?status=${encodeURIComponent(status)}` : ''}`);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = 'audit-export.csv';
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(describe(err));
    }
  };
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit chain</h2>
      <div class="row">
        <label for="audit-status">Status</label>
        <select id="audit-status" value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">all</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <button type="button" onClick={() => void load(cursors[cursors.length - 1] ?? null)}>Reload</button>
        <button type="button" onClick={() => void exportCsv()} data-testid="audit-export">Export CSV</button>
        {keyed && <button type="button" onClick={newer} disabled={cursors.length <= 1}>Newer</button>}
        {keyed && <button type="button" onClick={older} disabled={!next} data-testid="audit-older">Older</button>}
        {keyed && <button type="button" onClick={() => void verifyShown()} data-testid="verify-entries">Verify these entries</button>}
        {keyed && <button type="button" onClick={() => void verifyChain()} data-testid="verify-chain">Verify the whole chain</button>}
      </div>
      <AuditState />
      {!keyed && <p>The newest entries. With an API key the console pages further back and verifies entries.</p>}
      {progress && <p role="status" data-testid="verify-progress">{progress}</p>}
      {chain && <p role="status" class={chain.ok ? 'ok' : 'error'} data-testid="chain-result">{chain.text}</p>}
      {error && <p role="alert" class="error" data-testid="audit-error">{error}</p>}
      {rows && rows.length === 0 && <p data-testid="audit-empty">No entry.</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table data-testid="audit-table">
            <caption class="sr-only">Audit entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">time</th><th scope="col">route</th><th scope="col">status</th><th scope="col">engine</th>
                <th scope="col">constraint</th><th scope="col">links</th><th scope="col">check</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const c = checks[r.log_id];
                return (
                  <tr key={r.log_id} data-testid="audit-row">
                    <td>{r.timestamp}</td>
                    <td><code>{r.method} {r.route}</code> {r.http_status}</td>
                    <td>{r.status}</td>
                    <td>{r.engine ?? '—'}</td>
                    <td>{r.constraint_id ?? '—'}</td>
                    <td>
                      <code data-testid="log-id">{r.log_id}</code>
                      {r.payload_hash && <> · prev <code>{short(r.prev_hash)}</code> → <code>{short(r.payload_hash)}</code></>}
                      {r.proof_ref && <> · proof <code>{short(r.proof_ref)}</code></>}
                    </td>
                    <td data-testid="entry-check">
                      {c === undefined ? '' : typeof c === 'string' ? <span class="error">{c}</span> : c.valid ? <span class="ok">valid</span> : <span class="error">invalid{c.checks.chain.detail ? `: ${c.checks.chain.detail}` : ''}</span>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
