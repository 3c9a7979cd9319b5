import { useEffect, useState } from 'preact/hooks';
import { call, describe, type Me } from './api.js';

interface Peer {
  id: string;
  card_path: string;
  require_signed_card: boolean;
  jwks_configured: boolean;
  card_url: string | null;
  endpoint: string | null;
  jwks_url: string | null;
}
interface Decision {
  org_id: string;
  sender: string;
  receiver: string;
  payload_type: string;
  status: string;
  engine: string | null;
  constraint_id: string | null;
  trace_id: string;
  verified_at: string;
}
interface Trust {
  operator: boolean;
  default_allow: boolean;
  max_requests_per_minute: number;
  trusted_agents: Array<{ agent_id: string; org_id: string | null; allowed_receivers: string[] | null; allowed_payload_types: string[] | null; valid_until: string | null; has_jwk: boolean }>;
  blocklist: string[];
  blocked_pairs: Array<{ sender: string; receiver: string }>;
}
interface Provenance {
  card_url?: string;
  card_sha256?: string;
  signed?: boolean;
  signers?: Array<{ alg?: string; kid?: string; jku?: string }>;
}

const PROVENANCE = 'https://proofgate.dev/a2a/extensions/card-provenance/v1';

/** the provenance extension of a card served by the proxy: who signed the peer's original */
function provenanceOf(card: Record<string, unknown>): Provenance | null {
  const caps = card.capabilities as { extensions?: Array<{ uri?: unknown; params?: unknown }> } | undefined;
  const ext = Array.isArray(caps?.extensions) ? caps.extensions.find((e) => e?.uri === PROVENANCE) : undefined;
  return ext && ext.params && typeof ext.params === 'object' ? (ext.params as Provenance) : null;
}

/**
 * The card is fetched through the same route an A2A client uses (an API-key route): the proxy fetches
 * the peer's card, verifies its signatures and serves it re-signed, or answers the refusal.
 */
function PeerRow({ peer, keyed }: { peer: Peer; keyed: boolean }) {
  const [state, setState] = useState<{ ok: boolean; text: string; prov: Provenance | null } | null>(null);
  const check = async () => {
    setState(null);
    try {
      const card = await call<Record<string, unknown>>('GET', peer.card_path, { cred: 'key' });
      const prov = provenanceOf(card);
      const text = prov?.signed ? `signed card, verified (${(prov.signers ?? []).map((s) => `${s.alg ?? '?'}${s.kid ? ' ' + s.kid : ''}`).join(', ')})` : 'unsigned card, accepted';
      setState({ ok: true, text, prov });
    } catch (err) {
      setState({ ok: false, text: describe(err), prov: null });
    }
  };
  return (
    <tr data-testid="peer-row">
      <td class="nowrap"><code>{peer.id}</code></td>
      <td>{peer.card_url ?? '—'}{peer.endpoint ? <><br />{peer.endpoint}</> : null}</td>
      <td>{peer.require_signed_card ? 'required' : 'optional'}{peer.jwks_configured ? ', JWKS set' : ', no JWKS'}</td>
      <td>
        <button type="button" disabled={!keyed} onClick={check} aria-label={`Fetch card of ${peer.id}`}>Fetch card</button>
        {state && (
          <p class={state.ok ? 'ok' : 'error'} data-testid="peer-card" role="status">
            {state.text}
            {state.prov?.card_sha256 && <><br /><small>original <code>{state.prov.card_sha256.slice(0, 16)}</code> from {state.prov.card_url ?? '?'}</small></>}
          </p>
        )}
      </td>
    </tr>
  );
}

/** decisions grouped by sender → receiver, newest pair first, each pair's newest decisions first */
function byPair(list: Decision[]): Array<[string, Decision[]]> {
  const m = new Map<string, Decision[]>();
  for (const d of list) {
    const k = `${d.sender} → ${d.receiver}`;
    m.set(k, [...(m.get(k) ?? []), d]);
  }
  return [...m.entries()];
}

/**
 * Peers, recent decisions per pair and the trust lists, read with the caller's own credentials:
 * the API decides what an organisation sees (its own decisions and trust entries; everything for an
 * operator).
 */
export function A2AView({ keyed }: { me: Me; keyed: boolean }) {
  const [peers, setPeers] = useState<Peer[] | null>(null);
  const [decisions, setDecisions] = useState<Decision[] | null>(null);
  const [trust, setTrust] = useState<Trust | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    setError(null);
    try {
      const [p, d, t] = await Promise.all([
        call<{ peers: Peer[] }>('GET', '/a2a/peers'),
        call<{ decisions: Decision[] }>('GET', '/a2a/decisions?limit=100'),
        call<Trust>('GET', '/a2a/trust'),
      ]);
      setPeers(p.peers);
      setDecisions(d.decisions);
      setTrust(t);
    } catch (err) {
      setError(describe(err));
    }
  };
  useEffect(() => void load(), []);
  return (
    <section aria-labelledby="a2a-title">
      <h2 id="a2a-title">Agent-to-agent</h2>
      <button type="button" onClick={load}>Refresh</button>
      {error && <p role="alert" class="error" data-testid="a2a-error">{error}</p>}
      <h3>Peers</h3>
      {!keyed && <p>Fetching a card needs an API key (the card route is the one A2A clients use).</p>}
      <div class="table-wrap">
        <table data-testid="peers-table">
          <thead><tr><th scope="col">receiver</th><th scope="col">card URL, endpoint</th><th scope="col">signature</th><th scope="col">card</th></tr></thead>
          <tbody>{(peers ?? []).map((p) => <PeerRow key={p.id} peer={p} keyed={keyed} />)}</tbody>
        </table>
      </div>
      <h3>Recent decisions</h3>
      {decisions && decisions.length === 0 && <p data-testid="no-decisions">No decisions recorded by this server since it started.</p>}
      {decisions &&
        byPair(decisions).map(([pair, list]) => (
          <article class="card" key={pair} data-testid="pair" aria-label={`decisions ${pair}`}>
            <h4 data-testid="pair-name">{pair}</h4>
            <ul>
              {list.slice(0, 10).map((d) => (
                <li key={d.trace_id} data-testid="decision">
                  <span class="badge">{d.status}</span> {d.payload_type} · {d.engine ?? '—'}{d.constraint_id ? ` · ${d.constraint_id}` : ''} · {d.verified_at}
                  {d.org_id && trust?.operator ? <> · org <code>{d.org_id}</code></> : null}
                </li>
              ))}
            </ul>
          </article>
        ))}
      <h3>Trust lists</h3>
      {trust && (
        <div data-testid="trust">
          <p>Unlisted senders are {trust.default_allow ? 'allowed' : 'refused'}; at most {trust.max_requests_per_minute} messages a minute per pair.</p>
          <h4>Allowlist</h4>
          <ul data-testid="allowlist">
            {trust.trusted_agents.map((e, i) => (
              <li key={i} data-testid="allow-entry">
                <code>{e.agent_id}</code>
                {e.org_id ? ` (organisation ${e.org_id})` : ''} → {e.allowed_receivers ? e.allowed_receivers.join(', ') : 'any receiver'}
                {e.allowed_payload_types ? `; ${e.allowed_payload_types.join(', ')}` : ''}
                {e.valid_until ? `; until ${e.valid_until}` : ''}
                {e.has_jwk ? '; signing key set' : ''}
              </li>
            ))}
          </ul>
          <h4>Blocklist</h4>
          <ul data-testid="blocklist">
            {trust.blocklist.map((id) => <li key={id} data-testid="block-entry"><code>{id}</code></li>)}
            {trust.blocked_pairs.map((p, i) => <li key={`p${i}`} data-testid="block-entry"><code>{p.sender}</code> → <code>{p.receiver}</code></li>)}
          </ul>
        </div>
      )}
    </section>
  );
}
