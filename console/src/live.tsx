import { useEffect, useRef, useState } from 'preact/hooks';
import { describe, stream, type AuditEntry, type Me } from './api.js';

/** schemas/audit/stream-event.json; the last three are null for an entry another replica appended */
interface Entry extends AuditEntry {
  seq: number;
  latency_ms: number | null;
  admission: string | null;
  attestation_id: string | null;
}
const KEEP = 200;

/** The organisation's audit entries as they are appended (GET /audit/stream), filterable and pausable. */
export function LiveView(_: { me: Me; keyed: boolean }) {
  const [rows, setRows] = useState<Entry[]>([]);
  const [paused, setPaused] = useState(false);
  const [waiting, setWaiting] = useState(0);
  const [state, setState] = useState('connecting');
  const [filter, setFilter] = useState('');
  const held = useRef<Entry[]>([]);
  const pausedRef = useRef(false);
  useEffect(() => {
    const ac = new AbortController();
    void stream(
      '/audit/stream',
      (name, data) => {
        if (name === 'ready') setState('live');
        else if (name === 'meta') {
          // the fields of an entry sent before its request recorded them
          const m = data as Pick<Entry, 'log_id' | 'latency_ms' | 'admission' | 'attestation_id'>;
          const fill = (e: Entry) => (e.log_id === m.log_id ? { ...e, latency_ms: m.latency_ms, admission: m.admission, attestation_id: m.attestation_id } : e);
          held.current = held.current.map(fill);
          setRows((r) => r.map(fill));
        } else if (name === 'entry') {
          if (pausedRef.current) {
            held.current.push(data as Entry);
            setWaiting(held.current.length);
          } else setRows((r) => [data as Entry, ...r].slice(0, KEEP));
        }
      },
      ac.signal,
    ).then(
      () => setState('ended (sign in again to resume)'),
      (err) => !ac.signal.aborted && setState(`stopped: ${describe(err)}`),
    );
    return () => ac.abort();
  }, []);
  const toggle = () => {
    const now = !paused;
    pausedRef.current = now;
    setPaused(now);
    if (!now) {
      const add = held.current.reverse();
      held.current = [];
      setWaiting(0);
      setRows((r) => [...add, ...r].slice(0, KEEP));
    }
  };
  const f = filter.toLowerCase();
  const shown = f ? rows.filter((r) => `${r.status} ${r.engine ?? ''} ${r.route} ${r.constraint_id ?? ''} ${r.admission ?? ''} ${r.attestation_id ?? ''}`.toLowerCase().includes(f)) : rows;
  return (
    <section aria-labelledby="live-title">
      <h2 id="live-title">Live verdicts</h2>
      <p role="status" data-testid="live-state">{state}</p>
      <div class="row">
        <label for="live-filter">Filter</label>
        <input id="live-filter" type="search" value={filter} onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)} placeholder="status, engine, route, constraint" />
        <button type="button" onClick={toggle} aria-pressed={paused} data-testid="live-pause">{paused ? `Resume (${waiting} waiting)` : 'Pause'}</button>
      </div>
      <div class="table-wrap">
        <table data-testid="live-table">
          <caption class="sr-only">Verdicts as they are made, newest first</caption>
          <thead>
            <tr><th scope="col">time</th><th scope="col">route</th><th scope="col">status</th><th scope="col">engine</th><th scope="col">constraint</th><th scope="col">admission</th><th scope="col">latency</th><th scope="col">attestation</th><th scope="col">proof</th></tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.log_id} data-testid="live-row">
                <td>{r.timestamp}</td>
                <td><code>{r.method} {r.route}</code> {r.http_status}</td>
                <td>{r.status}</td>
                <td>{r.engine ?? '—'}</td>
                <td>{r.constraint_id ?? '—'}</td>
                <td data-testid="live-admission">{r.admission ?? '—'}</td>
                <td data-testid="live-latency">{r.latency_ms === null ? '—' : `${r.latency_ms} ms`}</td>
                <td data-testid="live-attestation">{r.attestation_id ? <a href={`#/attestations`} title="look it up in Attestations"><code>{r.attestation_id}</code></a> : '—'}</td>
                <td><code>{r.proof_ref ?? '—'}</code></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
