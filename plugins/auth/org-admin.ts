import type { Config } from '../../core/config.js';
import type { Role, Tier } from '../../core/types.js';
import { ROLES, type Accounts, type Organization, type User } from './accounts.js';
import type { TierCache } from './authenticators.js';
import { creatorChanged } from './creators.js';
import type { SecurityEvents } from './events.js';
import type { ApiKeys } from './keys.js';
import type { Plans } from './ratelimit.js';

/**
 * Plan of organisations created by sign-up or by a bootstrap entry without `plan`: `free` while
 * anyone may sign up, `unlimited` when only the operator creates organisations (sidecar mode) —
 * so enabling sign-up on a sidecar does not hand strangers an unlimited plan.
 */
export function defaultPlanOf(c: Pick<Config, 'limits' | 'mode' | 'auth'>): Tier {
  return c.limits.default_plan ?? (signupOpen(c) ? 'free' : 'unlimited');
}

/** Plan of an organisation the bootstrap file declares without `plan`: `unlimited` on a sidecar (its one organisation is the pod's own). */
export function provisionedPlanOf(c: Pick<Config, 'limits' | 'mode'>): Tier {
  return c.limits.default_plan ?? (c.mode === 'sidecar' ? 'unlimited' : 'free');
}

/** Sign-up is open in server mode and closed in sidecar mode unless SVC_SIGNUP_ENABLED says otherwise. */
export function signupOpen(c: Pick<Config, 'auth' | 'mode'>): boolean {
  return c.auth.signup_enabled ?? c.mode !== 'sidecar';
}

export class UnknownValueError extends Error {}

/**
 * What an operator may change on an organisation (service `auth.orgs`; the ops plugin's
 * PATCH /admin/orgs routes and the `proofgate orgs` CLI both go through it). Names are checked
 * against what exists, and the error lists the allowed values.
 */
export class OrgAdmin {
  constructor(
    readonly accounts: Accounts,
    readonly plans: Plans,
    private readonly cache: TierCache | null,
    private readonly keys: ApiKeys,
    /** null where nothing flushes them (the CLI records none) */
    private readonly events: SecurityEvents | null,
  ) {}

  async setPlan(orgId: string, plan: Tier): Promise<Organization | undefined> {
    if (!this.plans.has(plan)) throw new UnknownValueError(`unknown plan ${JSON.stringify(plan)}; allowed: ${this.plans.names().join(', ')}`);
    const org = await this.accounts.setPlan(orgId, plan);
    this.cache?.invalidate(orgId);
    return org;
  }

  async setRole(orgId: string, userId: string, role: Role): Promise<User | undefined> {
    if (!ROLES.includes(role)) throw new UnknownValueError(`unknown role ${JSON.stringify(role)}; allowed: ${ROLES.join(', ')}`);
    const user = await this.accounts.setRole(orgId, userId, role);
    // on every call, not only on a change: setting the same role again repairs keys that an
    // interrupted earlier call (user written, keys not yet) left with the old role's scopes
    if (user) await creatorChanged(this.keys, this.events, orgId, userId, role);
    return user;
  }
}
