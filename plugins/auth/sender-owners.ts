/**
 * Who owns an A2A sender id (issue 38): an API key bound to a sender id (`a2a_senders`) speaks as
 * it on /a2a/intercept, so only the organisation that owns the id may bind it. Ownership is not the
 * auth plugin's to know: the plugins that hold the facts add a source here — the agents plugin (an
 * active agent registered in an organisation) and the a2a plugin (a trust entry the operator
 * assigned to an organisation with `org_id`). An id is owned by an organisation when at least one
 * source claims it and every claim names that organisation: no claim, or claims naming two
 * organisations (an operator's mistake), and nobody owns it — fail closed.
 *
 * Checked where a binding is written (POST /auth/api-keys, the bootstrap file) and again where it
 * is used (the a2a sender step), so a binding whose id stops being owned — the agent deleted, the
 * trust entry changed — stops authenticating at once, on every replica reading the same store.
 */
export type OwnerSource = (senderId: string) => readonly string[] | Promise<readonly string[]>;

export class SenderOwners {
  private readonly sources = new Map<string, OwnerSource>();

  /** `name` names the source (one per plugin); adding a name again replaces it */
  addSource(name: string, source: OwnerSource): void {
    this.sources.set(name, source);
  }

  /** the organisation owning `senderId`, or null (no claim, or conflicting claims) */
  async ownerOf(senderId: string): Promise<string | null> {
    const claims = new Set<string>();
    for (const source of this.sources.values()) for (const org of await source(senderId)) claims.add(org);
    return claims.size === 1 ? [...claims][0] : null;
  }

  async owns(orgId: string, senderId: string): Promise<boolean> {
    return (await this.ownerOf(senderId)) === orgId;
  }

  /** the ids of `senderIds` that `orgId` does not own, in order, each once */
  async notOwned(orgId: string, senderIds: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of new Set(senderIds)) if (!(await this.owns(orgId, id))) out.push(id);
    return out;
  }
}

/** the message of a refused binding: names the ids, never who owns them (another tenant's secret) */
export function notOwnedMessage(ids: readonly string[]): string {
  return `a key may be bound only to A2A sender ids your organisation owns (an agent registered in it, or a trust entry the operator assigned to it); not owned: ${ids.map((i) => JSON.stringify(i)).join(', ')}`;
}
