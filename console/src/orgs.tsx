import { useState } from 'preact/hooks';
import { call, describe, type Me } from './api.js';

interface OrgView {
  id: string;
  name: string;
  plan: string;
  users: Array<{ id: string; email: string; role: string }>;
}

/**
 * The caller's own organisation, and for operators PATCH /admin/orgs/{org_id} (plan, a user's role),
 * the route `proofgate orgs set-plan|set-role` uses; anyone else gets the API's 403 shown.
 */
export function OrgsView({ me, keyed }: { me: Me; keyed: boolean }) {
  const [result, setResult] = useState<OrgView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const org = String(f.get('org-id') ?? '').trim();
    const plan = String(f.get('plan') ?? '').trim();
    const user = String(f.get('user-id') ?? '').trim();
    const role = String(f.get('role') ?? '');
    setError(null);
    setResult(null);
    const body: Record<string, unknown> = {};
    if (plan) body.plan = plan;
    if (user && role) body.user_roles = { [user]: role };
    if (!org || Object.keys(body).length === 0) return setError('give an organisation id and a plan or a user and role');
    try {
      setResult(await call<OrgView>('PATCH', `/admin/orgs/${encodeURIComponent(org)}`, { cred: 'key', body }));
    } catch (err) {
      setError(describe(err));
    }
  };
  return (
    <section aria-labelledby="orgs-title">
      <h2 id="orgs-title">Organisations and plans</h2>
      <dl>
        <dt>yours</dt>
        <dd>{me.organization.name} (<code>{me.organization.id}</code>)</dd>
        <dt>plan</dt>
        <dd data-testid="own-plan">{me.organization.tier}</dd>
      </dl>
      <form onSubmit={submit} class="card">
        <h3>Change an organisation (operators)</h3>
        <label for="org-id">Organisation id</label>
        <input id="org-id" name="org-id" type="text" required autocomplete="off" />
        <label for="plan">Plan</label>
        <input id="plan" name="plan" type="text" autocomplete="off" placeholder="free, pro, enterprise, unlimited…" />
        <label for="user-id">User id</label>
        <input id="user-id" name="user-id" type="text" autocomplete="off" />
        <label for="role">Role</label>
        <select id="role" name="role">
          <option value="">unchanged</option>
          <option value="owner">owner</option>
          <option value="admin">admin</option>
          <option value="member">member</option>
        </select>
        <button type="submit" disabled={!keyed}>Apply</button>
      </form>
      {error && <p role="alert" class="error" data-testid="orgs-error">{error}</p>}
      {result && (
        <div class="card" role="status" data-testid="orgs-result">
          <p>{result.name} (<code>{result.id}</code>) is on plan <strong data-testid="orgs-plan">{result.plan}</strong></p>
          <ul>{result.users.map((u) => <li key={u.id}>{u.email}: {u.role}</li>)}</ul>
        </div>
      )}
    </section>
  );
}
