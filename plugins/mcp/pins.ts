import type { Store } from '../../core/store.js';
import { definitionHash, pinnedPart, screenDefinition, type Finding, type ToolDefinition } from './definitions.js';

/**
 * Tool pins, per server and tool name. Three collections:
 *  - `mcp.seen`: the definition last listed by the server (hash, pinned part, screening findings),
 *    written only when it differs from the one before — that write is how a change is noticed once;
 *  - `mcp.pins`: the approved hash. A tool is offered and callable only while the definition the
 *    server lists hashes to its pin;
 *  - `mcp.duplicates`: a name the server listed more than once in one listing (one answer, or two
 *    pages of one listing: listings.ts). Which definition a call reaches is then up to the server,
 *    and the client may hold the first page's, so no call of it passes until a complete listing
 *    that started after the mark lists the name once.
 * All live in the shared store, so an approval on one replica holds on every replica.
 */
export const PIN_COLLECTIONS = { seen: 'mcp.seen', pins: 'mcp.pins', duplicates: 'mcp.duplicates' } as const;

export type ToolStatus = 'pinned' | 'pending' | 'changed' | 'poisoned' | 'duplicate';

export interface SeenRecord {
  server: string;
  tool: string;
  hash: string;
  definition: ReturnType<typeof pinnedPart>;
  findings: Finding[];
  /** the hash seen before this one (null the first time) */
  previous_hash: string | null;
  seen_at: string;
}

export interface PinRecord {
  server: string;
  tool: string;
  hash: string;
  definition: ReturnType<typeof pinnedPart>;
  /** findings the approver accepted (empty unless approved with accept_findings) */
  accepted_findings: Finding[];
  approved_at: string;
  /** `first_use`, or the approving key/user id */
  approved_by: string;
}

export interface DuplicateRecord {
  server: string;
  tool: string;
  /** hashes of the definitions withheld when it was marked (the first few distinct ones) */
  hashes: string[];
  /** the latest sighting: every listing that shows the duplicate again moves it on */
  marked_at: string;
  /**
   * when a complete listing cleared it (absent: in force). Kept rather than deleted: the clear and
   * a new sighting are each one atomic update of this record, so neither can undo the other unseen
   */
  cleared_at?: string | null;
}

const inForce = (d: DuplicateRecord | undefined): d is DuplicateRecord => !!d && !d.cleared_at;

/** the distinct hashes a duplicate record keeps: enough to show an operator, bounded whatever a page holds */
const DUPLICATE_HASHES = 8;

/** Something worth an audit entry and a metric, reported once, by the request that first saw it. */
export interface PinEvent {
  kind: 'changed' | 'poisoned' | 'pinned_first_use' | 'new' | 'duplicate';
  server: string;
  tool: string;
  hash: string;
  previous_hash: string | null;
  pinned_hash: string | null;
  findings: Finding[];
}

export interface Withheld {
  name: string;
  hash: string;
  status: Exclude<ToolStatus, 'pinned'>;
}

export interface Review {
  visible: ToolDefinition[];
  withheld: Withheld[];
  events: PinEvent[];
}

export type Callable = { ok: true; hash: string } | { ok: false; status: 'unlisted' | Exclude<ToolStatus, 'pinned'>; reason: string };

export class ApproveError extends Error {
  constructor(
    readonly kind: 'unknown' | 'stale' | 'findings',
    message: string,
    readonly findings: Finding[] = [],
  ) {
    super(message);
  }
}

/** A listed definition with no RFC 8785 form (a lone surrogate): it has no hash, so it can be neither pinned nor withheld by one. */
export class UnhashableDefinition extends Error {}

const key = (server: string, tool: string) => `${server}/${tool}`;

function hashOf(t: ToolDefinition): string {
  try {
    return definitionHash(t);
  } catch {
    throw new UnhashableDefinition(`the definition of tool ${JSON.stringify(t.name.slice(0, 64))} has no canonical JSON form`);
  }
}

export class Pins {
  constructor(
    private readonly store: Store,
    private readonly pinOnFirstUse: boolean,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get seen() {
    return this.store.collection<SeenRecord>(PIN_COLLECTIONS.seen);
  }
  private get pins() {
    return this.store.collection<PinRecord>(PIN_COLLECTIONS.pins);
  }
  private get duplicates() {
    return this.store.collection<DuplicateRecord>(PIN_COLLECTIONS.duplicates);
  }

  /**
   * Records what `server` listed on one page and decides, tool by tool, what the client may see.
   * `earlier`: names of this page that an earlier page of the same listing already listed.
   */
  async review(server: string, tools: ToolDefinition[], earlier: ReadonlySet<string> = new Set()): Promise<Review> {
    const out: Review = { visible: [], withheld: [], events: [] };
    const counts = new Map<string, number>();
    for (const t of tools) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    // every hash before anything is recorded: a listing with one unhashable definition is refused whole
    const hashes = tools.map(hashOf);
    const duplicated = new Map<string, string[]>();
    for (const [i, t] of tools.entries()) {
      if (counts.get(t.name)! === 1 && !earlier.has(t.name)) continue;
      const hs = duplicated.get(t.name);
      if (hs) hs.push(hashes[i]);
      else duplicated.set(t.name, [hashes[i]]);
    }
    for (const [i, t] of tools.entries()) {
      const hash = hashes[i];
      // two definitions under one name: which one a call reaches is up to the server, so none here
      // is offered (and the last-seen record stays the earlier page's: nothing "changed")
      if (duplicated.has(t.name)) {
        out.withheld.push({ name: t.name, hash, status: 'duplicate' });
        continue;
      }
      const k = key(server, t.name);
      let fresh: SeenRecord | undefined;
      let seen = await this.seen.get(k);
      if (seen?.hash !== hash) {
        const next: SeenRecord = { server, tool: t.name, hash, definition: pinnedPart(t), findings: screenDefinition(t), previous_hash: seen?.hash ?? null, seen_at: this.now().toISOString() };
        // only the request whose write replaced another hash reports the change (replicas race here)
        seen = await this.seen.update(k, (cur) => {
          if (cur?.hash === hash) return undefined;
          fresh = { ...next, previous_hash: cur?.hash ?? null };
          return fresh;
        });
        seen ??= next;
      }
      let pin = await this.pins.get(k);
      if (!pin && this.pinOnFirstUse && seen.findings.length === 0) {
        const rec = this.pinRecord(seen, 'first_use', []);
        if (await this.pins.insert(k, rec)) {
          pin = rec;
          out.events.push({ kind: 'pinned_first_use', server, tool: t.name, hash, previous_hash: null, pinned_hash: hash, findings: [] });
          fresh = undefined;
        } else pin = await this.pins.get(k);
      }
      const status: ToolStatus = pin?.hash === hash ? 'pinned' : pin ? 'changed' : seen.findings.length ? 'poisoned' : 'pending';
      if (status === 'pinned') out.visible.push(t);
      else out.withheld.push({ name: t.name, hash, status });
      if (fresh && status !== 'pinned') {
        const kind = status === 'changed' ? 'changed' : status === 'poisoned' ? 'poisoned' : 'new';
        out.events.push({ kind, server, tool: t.name, hash, previous_hash: fresh.previous_hash, pinned_hash: pin?.hash ?? null, findings: seen.findings });
      }
    }
    for (const [tool, hs] of duplicated) {
      const k = key(server, tool);
      const now = this.now().toISOString();
      let fresh = false;
      // one atomic update: a mark in force is moved on to this sighting (a listing that started
      // before it cannot clear it); a new or cleared one is set, and only that request reports it
      await this.duplicates.update(k, (cur) => {
        fresh = !inForce(cur);
        return fresh ? { server, tool, hashes: [...new Set(hs)].slice(0, DUPLICATE_HASHES), marked_at: now, cleared_at: null } : { ...cur!, marked_at: now };
      });
      if (fresh) {
        const [seen, pin] = await Promise.all([this.seen.get(k), this.pins.get(k)]);
        out.events.push({ kind: 'duplicate', server, tool, hash: hs[0], previous_hash: seen?.hash ?? null, pinned_hash: pin?.hash ?? null, findings: [] });
      }
    }
    return out;
  }

  /**
   * A listing of `server` that started at `startedAt` has been reviewed to its last page: a name it
   * listed exactly once is no longer a duplicate, unless it was marked after that listing started
   * (by another listing, whose pages this one did not see).
   */
  async clearDuplicates(server: string, startedAt: number, listedOnce: (tool: string) => boolean): Promise<void> {
    const marked = await this.duplicates.list({ prefix: `${server}/` });
    const now = this.now().toISOString();
    for (const { key: k, value } of marked) {
      if (!inForce(value) || value.server !== server || !listedOnce(value.tool)) continue;
      // decided again on the record as it is now: a sighting since the list above moved marked_at on
      await this.duplicates.update(k, (cur) => (inForce(cur) && Date.parse(cur.marked_at) <= startedAt ? { ...cur, cleared_at: now } : undefined));
    }
  }

  /** May `tool` of `server` be called now? Only when the definition last listed is the pinned one. */
  async callable(server: string, tool: string): Promise<Callable> {
    const k = key(server, tool);
    const [seen, pin, dup] = await Promise.all([this.seen.get(k), this.pins.get(k), this.duplicates.get(k)]);
    if (inForce(dup)) {
      return { ok: false, status: 'duplicate', reason: `server ${server} listed more than one definition of tool ${tool} in one listing, so which one a call reaches is up to the server; it is not called until a complete listing lists it once` };
    }
    if (!seen) return { ok: false, status: 'unlisted', reason: `tool ${tool} has not been listed by server ${server} through proofgate (call tools/list first)` };
    if (pin && pin.hash === seen.hash) return { ok: true, hash: pin.hash };
    if (pin) {
      return { ok: false, status: 'changed', reason: `the definition of tool ${tool} changed since it was approved (pinned ${pin.hash}, now ${seen.hash}); an operator must re-approve it` };
    }
    if (seen.findings.length) {
      return { ok: false, status: 'poisoned', reason: `the definition of tool ${tool} failed poisoning screening (${seen.findings.map((f) => f.constraint_id).join(', ')}) and is not approved` };
    }
    return { ok: false, status: 'pending', reason: `tool ${tool} of server ${server} is not approved yet (${seen.hash}); an operator must approve it` };
  }

  private pinRecord(seen: SeenRecord, by: string, accepted: Finding[]): PinRecord {
    return { server: seen.server, tool: seen.tool, hash: seen.hash, definition: seen.definition, accepted_findings: accepted, approved_at: this.now().toISOString(), approved_by: by };
  }

  /**
   * Pins the definition last listed. `hash`, when given, must be that definition's (the operator
   * approves what they reviewed, not whatever the server lists by the time the request lands).
   */
  async approve(server: string, tool: string, o: { hash?: string; acceptFindings?: boolean; by: string }): Promise<{ pin: PinRecord; previous_hash: string | null }> {
    const k = key(server, tool);
    const seen = await this.seen.get(k);
    if (!seen) throw new ApproveError('unknown', `server ${server} has not listed a tool ${tool} through proofgate`);
    if (o.hash !== undefined && o.hash !== seen.hash) throw new ApproveError('stale', `the definition listed now is ${seen.hash}, not ${o.hash}`);
    if (seen.findings.length && !o.acceptFindings) {
      throw new ApproveError('findings', `the definition failed poisoning screening; approve with accept_findings to pin it anyway`, seen.findings);
    }
    const before = await this.pins.get(k);
    const pin = this.pinRecord(seen, o.by, seen.findings);
    await this.pins.put(k, pin);
    return { pin, previous_hash: before?.hash ?? null };
  }

  /**
   * What the sidecar last saw of each tool. A name marked duplicate before any one definition of it
   * was seen (two in its first answer) is listed too, with the first withheld hash and no
   * definition: it is refused, so an operator must be able to see it.
   */
  async list(server: string): Promise<Array<{ tool: string; hash: string; status: ToolStatus; pinned_hash: string | null; findings: Finding[]; seen_at: string; approved_at: string | null; approved_by: string | null; definition: SeenRecord['definition'] | null }>> {
    const prefix = `${server}/`;
    const [seen, pins, dups] = await Promise.all([this.seen.list({ prefix }), this.pins.list({ prefix }), this.duplicates.list({ prefix })]);
    const byTool = new Map(pins.map((p) => [p.value.tool, p.value]));
    const duplicated = new Set(dups.filter((x) => inForce(x.value)).map((x) => x.value.tool));
    const listed = seen.map(({ value: s }) => {
      const p = byTool.get(s.tool);
      const status: ToolStatus = duplicated.has(s.tool) ? 'duplicate' : p?.hash === s.hash ? 'pinned' : p ? 'changed' : s.findings.length ? 'poisoned' : 'pending';
      return { tool: s.tool, hash: s.hash, status, pinned_hash: p?.hash ?? null, findings: s.findings, seen_at: s.seen_at, approved_at: p?.approved_at ?? null, approved_by: p?.approved_by ?? null, definition: s.definition as SeenRecord['definition'] | null };
    });
    const seenTools = new Set(listed.map((x) => x.tool));
    for (const { value: d } of dups) {
      if (!inForce(d) || seenTools.has(d.tool) || d.server !== server) continue;
      const p = byTool.get(d.tool);
      listed.push({ tool: d.tool, hash: d.hashes[0] ?? '', status: 'duplicate', pinned_hash: p?.hash ?? null, findings: [], seen_at: d.marked_at, approved_at: p?.approved_at ?? null, approved_by: p?.approved_by ?? null, definition: null });
    }
    return listed.sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }
}
