import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, describe, session, signIn, type Me } from './api.js';
import { PinsView } from './pins.js';
import { AuditView } from './audit.js';
import { AttestationsView } from './attestations.js';
import { KeysView } from './keys.js';
import { HealthView } from './health.js';
import { LiveView } from './live.js';
import { OrgsView } from './orgs.js';
import { A2AView } from './a2a.js';

const VIEWS = [
  { id: 'live', label: 'Live verdicts', View: LiveView },
  { id: 'pins', label: 'MCP tool pins', View: PinsView },
  { id: 'audit', label: 'Audit chain', View: AuditView },
  { id: 'a2a', label: 'Agent-to-agent', View: A2AView },
  { id: 'attestations', label: 'Attestations', View: AttestationsView },
  { id: 'keys', label: 'API keys', View: KeysView },
  { id: 'orgs', label: 'Organisations', View: OrgsView },
  { id: 'health', label: 'Health and API', View: HealthView },
] as const;
type ViewId = (typeof VIEWS)[number]['id'];

const viewFromHash = (): ViewId => {
  const h = location.hash.replace(/^#\/?/, '');
  return (VIEWS.find((v) => v.id === h)?.id ?? 'live') as ViewId;
};

function SignIn({ onDone, notice }: { onDone: (me: Me) => void; notice: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      onDone(await signIn(String(f.get('email') ?? ''), String(f.get('password') ?? '')));
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card narrow" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in to proofgate</h1>
      {notice && <p role="status" data-testid="signin-notice">{notice}</p>}
      <form onSubmit={submit}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>Sign in</button>
      </form>
      {error && <p role="alert" class="error" data-testid="signin-error">{error}</p>}
    </section>
  );
}

/**
 * Routes that take an API key (MCP pins, attestations) are reached with one the user pastes, or a
 * key the console creates through POST /auth/api-keys and revokes at sign-out: the same rules as the
 * API decide which scopes the user may have.
 */
function KeyPanel({ me, created, onKey }: { me: Me; created: string | null; onKey: (k: string | null, createdId: string | null) => void }) {
  const [error, setError] = useState<string | null>(null);
  const privileged = me.role === 'owner' || me.role === 'admin';
  const create = async () => {
    setError(null);
    try {
      const scopes = privileged ? ['verify:read', 'attestation:read', 'admin:all'] : ['verify:read', 'attestation:read'];
      const r = await call<{ id: string; key: string }>('POST', '/auth/api-keys', { body: { name: 'console session', scopes } });
      onKey(r.key, r.id);
    } catch (err) {
      setError(describe(err));
    }
  };
  const paste = (e: Event) => {
    e.preventDefault();
    const k = String(new FormData(e.currentTarget as HTMLFormElement).get('apikey') ?? '').trim();
    if (k) onKey(k, null);
  };
  if (session.hasKey()) {
    return (
      <p class="keynote" data-testid="key-state">
        API key in use{created ? ' (a console key, revoked when you sign out)' : ''}.{' '}
        <button type="button" class="link" onClick={() => onKey(null, null)}>Forget it</button>
      </p>
    );
  }
  return (
    <section class="card" aria-labelledby="key-title">
      <h2 id="key-title">API key</h2>
      <p>MCP pins and attestations are API-key routes. Paste a key, or create one for this session.</p>
      <form onSubmit={paste} class="row">
        <label for="apikey" class="sr-only">API key</label>
        <input id="apikey" name="apikey" type="password" autocomplete="off" placeholder="svc_live_…" />
        <button type="submit">Use key</button>
        <button type="button" onClick={create} data-testid="create-key">Create a console key</button>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
    </section>
  );
}

function Shell({ me, onSignOut }: { me: Me; onSignOut: (notice: string | null) => void }) {
  const [view, setView] = useState<ViewId>(viewFromHash());
  const [createdKey, setCreatedKey] = useState<string | null>(null);
  // read by the expiry callback, which is registered once
  const createdRef = useRef<string | null>(null);
  createdRef.current = createdKey;
  const [, setKeyTick] = useState(0);
  useEffect(() => {
    const onHash = () => setView(viewFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const onKey = (k: string | null, id: string | null) => {
    if (k === null && createdKey) void call('DELETE', `/auth/api-keys/${encodeURIComponent(createdKey)}`).catch(() => undefined);
    session.setKey(k);
    setCreatedKey(id);
    setKeyTick((n) => n + 1);
  };
  const signOut = async (notice: string | null = null) => {
    // a key the console made dies with the session; one the user pasted is theirs to keep
    const made = createdRef.current;
    if (made) await call('DELETE', `/auth/api-keys/${encodeURIComponent(made)}`, { atSignOut: true }).catch(() => undefined);
    session.setKey(null);
    session.setToken(null);
    onSignOut(notice);
  };
  useEffect(() => {
    // the JWT's exp, less a margin (api.ts): signed out while the console's key can still be revoked
    session.onExpire(() => void signOut('Your session expired: sign in again.'));
    return () => session.onExpire(null);
  }, []);
  const Current = VIEWS.find((v) => v.id === view)!.View;
  return (
    <>
      <header class="top">
        <span class="brand">proofgate</span>
        <span data-testid="whoami">
          {me.email} · {me.organization.name} · {me.role}
        </span>
        <span data-testid="session-ends">signs out at {new Date(session.signsOutAt()).toLocaleTimeString()}</span>
        <button type="button" onClick={() => void signOut()} data-testid="signout">Sign out</button>
      </header>
      <nav aria-label="Views">
        {VIEWS.map((v) => (
          <a href={`#/${v.id}`} aria-current={v.id === view ? 'page' : undefined} key={v.id}>
            {v.label}
          </a>
        ))}
      </nav>
      <KeyPanel me={me} created={createdKey} onKey={onKey} />
      <Current me={me} keyed={session.hasKey()} key={`${view}-${session.hasKey()}`} />
    </>
  );
}

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const signedOut = (n: string | null) => {
    setNotice(n);
    setMe(null);
  };
  const signedIn = (m: Me) => {
    setNotice(null);
    setMe(m);
  };
  return me ? <Shell me={me} onSignOut={signedOut} /> : <SignIn onDone={signedIn} notice={notice} />;
}

render(<App />, document.getElementById('app')!);
