import { randomBytes } from 'node:crypto';
import type { Store } from '../../core/store/store.js';
import type { Role, Tier } from '../../core/types.js';
import { dummyHash, hashPassword, verifyPassword, type PasswordHash } from './passwords.js';

/**
 * Users and organisations. Uniqueness of emails and organisation names is claimed with `insert`
 * (compare-and-set) on an index collection, so two replicas racing on one sign-up cannot both win.
 */
export interface Organization {
  id: string;
  name: string;
  /** the organisation's plan (a name of limits.plans); kept under its historical field name */
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

/**
 * Why `name` cannot be an organisation name, or null. Its normalised form is a store key (the
 * uniqueness index): NFKC may expand one character to eighteen (U+FDFA), past what a key may hold
 * (LMDB 1,978 bytes, a PostgreSQL index row ~2.7 kB), and PostgreSQL text cannot hold NUL. Either
 * failed as a 500 when the index was written.
 */
export function orgNameProblem(name: string): string | null {
  const key = norm(name);
  if (key.includes('\0')) return 'must not contain NUL';
  if (Buffer.byteLength(key) > 1024) return 'is too long once normalised (NFKC): at most 1,024 bytes of UTF-8';
  return null;
}

export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export class Accounts {
  constructor(
    private readonly store: Store,
    /** plan of organisations created by sign-up */
    private readonly defaultPlan: Tier = 'free',
  ) {}

  private get users() {
    return this.store.collection<User>(COLLECTIONS.users);
  }
  private get orgs() {
    return this.store.collection<Organization>(COLLECTIONS.orgs);
  }

  /**
   * null when the email or the organisation name is taken; the caller must not say which. The
   * caller has checked the name (orgNameProblem).
   */
  async signup(email: string, password: string, orgName: string): Promise<User | null> {
    // hash first: the work is the same whether or not the sign-up then conflicts
    const hash = await hashPassword(password);
    const userId = newId('usr');
    const orgId = newId('org');
    const emails = this.store.collection<string>(COLLECTIONS.emails);
    const names = this.store.collection<string>(COLLECTIONS.orgNames);
    if (!(await emails.insert(norm(email), userId))) return null;
    let claimedName = false;
    try {
      claimedName = await names.insert(norm(orgName), orgId);
      if (!claimedName) {
        await emails.delete(norm(email));
        return null;
      }
      const now = new Date().toISOString();
      const org: Organization = { id: orgId, name: orgName.trim(), tier: this.defaultPlan, created_at: now };
      const user: User = { id: userId, email: norm(email), org_id: orgId, role: 'owner', password: hash, created_at: now };
      await Promise.all([this.orgs.put(orgId, org), this.users.put(userId, user)]);
      return user;
    } catch (err) {
      // a claim whose user was never written would hold the email (and name) for nobody, forever:
      // every later sign-up with it is a conflict. Give them back before failing.
      await Promise.allSettled([emails.delete(norm(email)), ...(claimedName ? [names.delete(norm(orgName))] : []), this.orgs.delete(orgId), this.users.delete(userId)]);
      throw err;
    }
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

  /** Sets an organisation's plan; undefined when there is no such organisation. */
  async setPlan(orgId: string, plan: Tier): Promise<Organization | undefined> {
    let out: Organization | undefined;
    await this.orgs.update(orgId, (o) => (o ? (out = { ...o, tier: plan }) : undefined));
    return out;
  }

  async setTier(orgId: string, tier: Tier): Promise<void> {
    await this.setPlan(orgId, tier);
  }

  /** Sets a user's role within `orgId`; undefined when the user is not a member of it. */
  async setRole(orgId: string, userId: string, role: Role): Promise<User | undefined> {
    let out: User | undefined;
    await this.users.update(userId, (u) => (u && u.org_id === orgId ? (out = { ...u, role }) : undefined));
    return out;
  }

  async listUsers(orgId: string): Promise<User[]> {
    return (await this.users.list()).map((e) => e.value).filter((u) => u.org_id === orgId);
  }

  userByEmail(email: string): Promise<string | undefined> {
    return this.store.collection<string>(COLLECTIONS.emails).get(norm(email));
  }

  /**
   * Create-or-update of an organisation with a chosen id (provisioning). The name is claimed like a
   * sign-up's; a name held by another organisation is an error, never a silent takeover.
   */
  /** `plan` undefined: a new organisation gets `planIfNew` (default: the sign-up plan), an existing one keeps its own. */
  async upsertOrg(o: { id: string; name: string; plan?: Tier; planIfNew?: Tier }): Promise<{ org: Organization; created: boolean }> {
    const bad = orgNameProblem(o.name);
    if (bad) throw new Error(`organisation ${o.id}: the name ${bad}`);
    const names = this.store.collection<string>(COLLECTIONS.orgNames);
    const cur = await this.orgs.get(o.id);
    if (!cur || norm(cur.name) !== norm(o.name)) {
      if (!(await names.insert(norm(o.name), o.id)) && (await names.get(norm(o.name))) !== o.id) {
        throw new Error(`organisation name ${JSON.stringify(o.name)} is taken by another organisation`);
      }
      if (cur) await names.delete(norm(cur.name));
    }
    let created = false;
    const org = (await this.orgs.update(o.id, (c) => {
      created = !c;
      return { id: o.id, name: o.name.trim(), tier: o.plan ?? c?.tier ?? o.planIfNew ?? this.defaultPlan, created_at: c?.created_at ?? new Date().toISOString() };
    }))!;
    return { org, created };
  }

  /** Create-or-update of a user with a chosen id and a given password hash (provisioning). */
  /** `previousRole`: what the record held before this write (null when created), read in the same atomic update. */
  async upsertUser(u: { id: string; email: string; orgId: string; role: Role; password: PasswordHash }): Promise<{ user: User; created: boolean; previousRole: Role | null }> {
    const emails = this.store.collection<string>(COLLECTIONS.emails);
    const cur = await this.users.get(u.id);
    if (cur && cur.org_id !== u.orgId) throw new Error(`user ${u.id} belongs to another organisation`);
    if (!cur || cur.email !== norm(u.email)) {
      if (!(await emails.insert(norm(u.email), u.id)) && (await emails.get(norm(u.email))) !== u.id) {
        throw new Error(`email ${JSON.stringify(u.email)} is taken by another user`);
      }
      if (cur) await emails.delete(cur.email);
    }
    let created = false;
    let previousRole: Role | null = null;
    const user = (await this.users.update(u.id, (c) => {
      created = !c;
      previousRole = c?.role ?? null;
      return { id: u.id, email: norm(u.email), org_id: u.orgId, role: u.role, password: u.password, created_at: c?.created_at ?? new Date().toISOString() };
    }))!;
    return { user, created, previousRole };
  }

  /** Deletes a user and frees its email (provisioning prune). */
  async deleteUser(userId: string): Promise<boolean> {
    const cur = await this.users.get(userId);
    if (!cur) return false;
    await this.store.collection<string>(COLLECTIONS.emails).delete(cur.email);
    return this.users.delete(userId);
  }

  async listOrgs(): Promise<Organization[]> {
    return (await this.orgs.list()).map((e) => e.value);
  }
}

export function publicUser(u: User): { id: string; email: string; org_id: string; role: Role } {
  return { id: u.id, email: u.email, org_id: u.org_id, role: u.role };
}
