import { randomBytes } from 'node:crypto';
import type { Store } from '../../core/store.js';
import type { Role, Tier } from '../../core/types.js';
import { dummyHash, hashPassword, verifyPassword, type PasswordHash } from './passwords.js';

/**
 * Users and organisations. Uniqueness of emails and organisation names is claimed with `insert`
 * (compare-and-set) on an index collection, so two replicas racing on one sign-up cannot both win.
 */
export interface Organization {
  id: string;
  name: string;
  tier: Tier;
  created_at: string;
}

export interface User {
  id: string;
  email: string;
  org_id: string;
  role: Role;
  password: PasswordHash;
  created_at: string;
}

export const COLLECTIONS = {
  users: 'auth.users',
  emails: 'auth.emails',
  orgs: 'auth.orgs',
  orgNames: 'auth.org_names',
} as const;

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

const norm = (s: string) => s.normalize('NFKC').trim().toLowerCase();

export class Accounts {
  constructor(private readonly store: Store) {}

  private get users() {
    return this.store.collection<User>(COLLECTIONS.users);
  }
  private get orgs() {
    return this.store.collection<Organization>(COLLECTIONS.orgs);
  }

  /** null when the email or the organisation name is taken; the caller must not say which. */
  async signup(email: string, password: string, orgName: string): Promise<User | null> {
    // hash first: the work is the same whether or not the sign-up then conflicts
    const hash = await hashPassword(password);
    const userId = newId('usr');
    const orgId = newId('org');
    const emails = this.store.collection<string>(COLLECTIONS.emails);
    const names = this.store.collection<string>(COLLECTIONS.orgNames);
    if (!(await emails.insert(norm(email), userId))) return null;
    if (!(await names.insert(norm(orgName), orgId))) {
      await emails.delete(norm(email));
      return null;
    }
    const now = new Date().toISOString();
    const org: Organization = { id: orgId, name: orgName.trim(), tier: 'free', created_at: now };
    const user: User = { id: userId, email: norm(email), org_id: orgId, role: 'owner', password: hash, created_at: now };
    await Promise.all([this.orgs.put(orgId, org), this.users.put(userId, user)]);
    return user;
  }

  /** Same scrypt work for unknown emails as for known ones. `user` is set when the email exists. */
  async signin(email: string, password: string): Promise<{ ok: boolean; user: User | null }> {
    const userId = await this.store.collection<string>(COLLECTIONS.emails).get(norm(email));
    const user = userId ? ((await this.users.get(userId)) ?? null) : null;
    const ok = await verifyPassword(password, user ? user.password : await dummyHash());
    return { ok: ok && user !== null, user };
  }

  user(id: string): Promise<User | undefined> {
    return this.users.get(id);
  }

  org(id: string): Promise<Organization | undefined> {
    return this.orgs.get(id);
  }

  async setTier(orgId: string, tier: Tier): Promise<void> {
    await this.orgs.update(orgId, (o) => (o ? { ...o, tier } : undefined));
  }

  async listOrgs(): Promise<Organization[]> {
    return (await this.orgs.list()).map((e) => e.value);
  }
}

export function publicUser(u: User): { id: string; email: string; org_id: string; role: Role } {
  return { id: u.id, email: u.email, org_id: u.org_id, role: u.role };
}
