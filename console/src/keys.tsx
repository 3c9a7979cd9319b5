import { useEffect, useState } from 'preact/hooks';
import { call, describe, type Me } from './api.js';

const SCOPES = ['verify:read', 'attestation:read', 'agent:write', 'admin:all'] as const;

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  created_by: string | null;
}

/**
 * The organisation's API keys through the same routes as the CLI: list, create and revoke with the
 * sign-in JWT, rotate with the API key in use (POST /admin/keys/rotate takes an API key only). The
 * API applies its own rules (a member asking for admin:all, revoking another user's key, rotating a
 * key with more scopes than the caller's) and the page shows its answer.
 */
export function KeysView({ keyed }: { me: Me; keyed: boolean }) {
  const [keys, setKeys] = useState<KeyRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ label: string; key: string } | null>(null);
  const [msg, setMsg] = useState<string | null>(null);
  const load = async () => {
    setError(null);
    try {
      setKeys((await call<{ keys: KeyRow[] }>('GET', '/auth/api-keys')).keys);
    } catch (err) {
      setError(describe(err));
    }
  };
  useEffect(() => void load(), []);
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    setMsg(null);
    setShown(null);
    try {
      const r = await call<{ id: string; key: string; name: string }>('POST', '/auth/api-keys', {
        body: { name: String(f.get('key-name') ?? ''), scopes: SCOPES.filter((s) => f.get(`scope-${s}`) === 'on') },
      });
      setShown({ label: `new key ${r.name}`, key: r.key });
      form.reset();
      void load();
    } catch (err) {
      setMsg(describe(err));
    }
  };
  const revoke = async (k: KeyRow) => {
    setMsg(null);
    try {
      await call('DELETE', `/auth/api-keys/${encodeURIComponent(k.id)}`);
      setMsg(`revoked ${k.name}`);
      void load();
    } catch (err) {
      setMsg(describe(err));
    }
  };
  const rotate = async (k: KeyRow) => {
    setMsg(null);
    setShown(null);
    try {
      const r = await call<{ key: string; name: string }>('POST', '/admin/keys/rotate', { cred: 'key', body: { key_id: k.id } });
      setShown({ label: `successor of ${r.name}`, key: r.key });
      void load();
    } catch (err) {
      setMsg(describe(err));
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <form onSubmit={create} class="card">
        <h3>Create a key</h3>
        <label for="key-name">Name</label>
        <input id="key-name" name="key-name" type="text" required maxLength={100} />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s} class="inline">
              <input type="checkbox" name={`scope-${s}`} defaultChecked={s === 'verify:read'} /> {s}
            </label>
          ))}
        </fieldset>
        <button type="submit">Create key</button>
      </form>
      {shown && (
        <p role="status" class="ok" data-testid="key-shown">
          {shown.label}: <code>{shown.key}</code> — shown only now; copy it.
        </p>
      )}
      {msg && <p role="status" data-testid="keys-msg">{msg}</p>}
      {error && <p role="alert" class="error">{error}</p>}
      {keys && (
        <div class="table-wrap">
          <table data-testid="keys-table">
            <caption class="sr-only">Active API keys of the organisation</caption>
            <thead>
              <tr><th scope="col">name</th><th scope="col">prefix</th><th scope="col">scopes</th><th scope="col">created</th><th scope="col">actions</th></tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-testid="key-row">
                  <td>{k.name}</td>
                  <td><code>{k.prefix}</code></td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{k.created_at}</td>
                  <td>
                    <button type="button" onClick={() => void revoke(k)} aria-label={`Revoke ${k.name}`}>Revoke</button>
                    {keyed && <button type="button" onClick={() => void rotate(k)} aria-label={`Rotate ${k.name}`}>Rotate</button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
