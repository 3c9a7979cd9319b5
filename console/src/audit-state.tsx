import { useEffect, useState } from 'preact/hooks';
import { call, describe } from './api.js';

interface Checkpoint {
  seq: number;
  head_hash: string;
  created_at: string;
  reason: string;
  kid: string;
  key_thumbprint: string | null;
  signature_valid: boolean;
  matches_chain: boolean | null;
}
interface State {
  chain: { first_seq: number | null; head_seq: number | null; oldest_at: string | null; newest_at: string | null };
  checkpoints: { enabled: boolean; interval_seconds: number; recent: Checkpoint[] };
  retention: { days: number | null; cutoff: string | null; pruned_through: Checkpoint | null };
}

const short = (h: string | null) => (h === null ? '—' : h.replace(/^sha256:/, '').slice(0, 12));

/** what the server's own check of a checkpoint says, in words; a failed one is shown as the problem it is */
function verdict(c: Checkpoint): { ok: boolean; text: string } {
  if (!c.signature_valid) return { ok: false, text: 'signature INVALID' };
  if (c.matches_chain === false) return { ok: false, text: 'signature valid, but the chain no longer holds this head' };
  return { ok: true, text: c.matches_chain === null ? 'signature valid (entry pruned)' : 'signature valid, matches the chain' };
}

/** GET /audit/state: the organisation's chain extent, its signed checkpoints and the retention setting */
export function AuditState() {
  const [state, setState] = useState<State | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    setError(null);
    try {
      setState(await call<State>('GET', '/audit/state'));
    } catch (err) {
      setError(describe(err));
    }
  };
  useEffect(() => void load(), []);
  if (error) return <p role="alert" class="error" data-testid="audit-state-error">{error}</p>;
  if (!state) return null;
  const { chain, checkpoints, retention } = state;
  const pruned = retention.pruned_through;
  return (
    <section class="card" aria-labelledby="audit-state-title" data-testid="audit-state">
      <h3 id="audit-state-title">Checkpoints and retention</h3>
      <dl>
        <dt>chain</dt>
        <dd data-testid="state-chain">{chain.head_seq === null ? 'no entry yet' : `entries ${chain.first_seq} to ${chain.head_seq} (${chain.oldest_at} to ${chain.newest_at})`}</dd>
        <dt>retention</dt>
        <dd data-testid="state-retention">{retention.days === null ? 'keep everything' : `${retention.days} days (entries before ${retention.cutoff} are exported, then pruned)`}</dd>
        <dt>pruned</dt>
        <dd data-testid="state-pruned">
          {pruned ? `through entry ${pruned.seq} at ${pruned.created_at}; anchor ${verdict(pruned).text}` : 'nothing pruned'}
        </dd>
        <dt>checkpoints</dt>
        <dd data-testid="state-checkpointing">{checkpoints.enabled ? `signed every ${checkpoints.interval_seconds} s when the head moved` : 'off (no attestation key): truncation cannot be detected'}</dd>
      </dl>
      <button type="button" onClick={() => void load()}>Reload state</button>
      {checkpoints.recent.length === 0 ? (
        <p data-testid="no-checkpoints">No checkpoint of this organisation's chain yet.</p>
      ) : (
        <div class="table-wrap">
          <table data-testid="checkpoints-table">
            <caption class="sr-only">Signed checkpoints, newest first</caption>
            <thead><tr><th scope="col">entry</th><th scope="col">head</th><th scope="col">time</th><th scope="col">reason</th><th scope="col">key</th><th scope="col">check</th></tr></thead>
            <tbody>
              {checkpoints.recent.map((c) => {
                const v = verdict(c);
                return (
                  <tr key={`${c.seq}-${c.created_at}`} data-testid="checkpoint-row">
                    <td>{c.seq}</td>
                    <td><code>{short(c.head_hash)}</code></td>
                    <td>{c.created_at}</td>
                    <td>{c.reason}</td>
                    <td><code>{short(c.key_thumbprint)}</code></td>
                    <td class={v.ok ? 'ok' : 'error'} data-testid="checkpoint-check">{v.text}</td>
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
