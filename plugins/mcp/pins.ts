import type { Store } from '../../core/store/store.js';
import { definitionHash, screenDefinition, type Finding, type ToolDefinition } from './definitions.js';

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
 * All live in the shared store, so an approval on one replica holds on every replica. `mcp.seen`
 * and `mcp.duplicates` grow with what a server lists, so each is capped per server (`maxTools`):
 * past it a new name is not recorded, and a name with no record is never offered nor called.
 */
export const PIN_COLLECTIONS = { seen: 'mcp.seen', pins: 'mcp.pins', duplicates: 'mcp.duplicates' } as const;

export type ToolStatus = 'pinned' | 'pending' | 'changed' | 'poisoned' | 'duplicate';

/**
 * The hash form: 2 hashes the whole definition (definitions.ts). A record without it was taken
 * under form 1 (four members). A form-1 seen record says nothing about the members form 1 left
 * out, so it is not callable until listed again; a form-1 pin holds only where its hash equals the
 * whole definition's, i.e. where the definition was those four members and nothing else.
 */
export const PIN_FORM = 2;

export interface SeenRecord {
  server: string;
  tool: string;
  hash: string;
  definition: ToolDefinition;
  findings: Finding[];
  /** the hash seen before this one (null the first time) */
  previous_hash: string | null;
  seen_at: string;
  /** the latest listing that showed it, moved on at most every `listedEveryMs` (stale ones are swept: expiry.ts) */
  listed_at?: string;
  form?: number;
}

export interface PinRecord {
  server: string;
  tool: string;
  hash: string;
  definition: ToolDefinition;
  form?: number;
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
  /** `unrecorded`: a new name past the server's cap, or longer than MAX_TOOL_NAME: neither recorded nor offered */
  status: Exclude<ToolStatus, 'pinned'> | 'unrecorded';
}

/**
 * The hash of each definition of a page, and its findings when they were computed with it (a
 * worker's) — not for a definition whose hash is in `known` (last seen already, screened then).
 */
export type CheckDefinitions = (tools: ToolDefinition[], known: ReadonlySet<string>) => Promise<Array<{ hash: string | null; findings?: Finding[] }>>;

export interface PinsOptions {
  /** records per server in `mcp.seen`, and in `mcp.duplicates` (default 10,000) */
  maxTools?: number;
  /** how often a listing moves `listed_at` on (default one hour) */
  listedEveryMs?: number;
  check?: CheckDefinitions;
  /** a cap was reached: `refused` names went unrecorded in `collection` */
  onFull?(e: { server: string; collection: string; refused: number; cap: number }): void;
}

export interface Review {
  visible: ToolDefinition[];
  /** who pinned each visible tool, and its screening findings: what the server's policy reads (policy.ts) */
  pinned: Map<string, { approved_by: string; findings: Finding[] }>;
  withheld: Withheld[];
  events: PinEvent[];
}

export type Callable = { ok: true; hash: string; approved_by: string; definition: ToolDefinition; findings: Finding[] } | { ok: false; status: 'unlisted' | Exclude<ToolStatus, 'pinned'>; reason: string };

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

/**
 * The longest tool name (UTF-16 units, as the approve route's `tool` parameter counts it) that is
 * recorded, offered or called. Every record is keyed `server/name`, and a key past what the store
 * holds (LMDB: 1978 bytes) failed the read or write and with it the whole listing or call, a 500 a
 * server's listing or a caller's name could cause at will. MCP asks for names of at most 128.
 */
export const MAX_TOOL_NAME = 256;
const nameFits = (name: string) => name.length <= MAX_TOOL_NAME;

const unhashable = (t: ToolDefinition) => new UnhashableDefinition(`the definition of tool ${JSON.stringify(t.name.slice(0, 64))} has no canonical JSON form`);

/** hashes on the calling thread; findings are computed only for a definition that changed */
export const checkInline: CheckDefinitions = async (tools) =>
  tools.map((t) => {
    try {
      return { hash: definitionHash(t) };
    } catch {
      return { hash: null };
    }
  });

export class Pins {
  readonly maxTools: number;
  private readonly listedEveryMs: number;
  private readonly check: CheckDefinitions;

  constructor(
    private readonly store: Store,
    private readonly pinOnFirstUse: boolean,
    private readonly now: () => Date = () => new Date(),
    private readonly o: PinsOptions = {},
  ) {
    this.maxTools = o.maxTools ?? 10_000;
    this.listedEveryMs = o.listedEveryMs ?? 3_600_000;
    this.check = o.check ?? checkInline;
  }

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
    if (!tools.every((t) => nameFits(t.name))) {
      // a name that cannot be a key is withheld unrecorded, as a new name past the cap is
      const out = await this.review(server, tools.filter((t) => nameFits(t.name)), earlier);
      for (const t of tools) {
        if (nameFits(t.name)) continue;
        const [c] = await this.check([t], new Set());
        if (c.hash === null) throw unhashable(t);
        out.withheld.push({ name: t.name, hash: c.hash, status: 'unrecorded' });
      }
      return out;
    }
    const out: Review = { visible: [], pinned: new Map(), withheld: [], events: [] };
    const counts = new Map<string, number>();
    for (const t of tools) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    // every hash before anything is recorded: a listing with one unhashable definition is refused whole
    const before = await Promise.all(tools.map((t) => this.seen.get(key(server, t.name))));
    const checked = await this.check(tools, new Set(before.flatMap((b) => (b?.form === PIN_FORM ? [b.hash] : []))));
    const hashes = checked.map((c, i) => {
      if (c.hash === null) throw unhashable(tools[i]);
      return c.hash;
    });
    const prefix = `${server}/`;
    // room left under the caps, counted once per page and only when a page brings a new name
    let seenRoom: number | undefined;
    let refusedSeen = 0;
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
      // as read before the check: every write below decides again on the record as it is then
      let seen = before[i];
      if (!seen) {
        seenRoom ??= this.maxTools - (await this.seen.count({ prefix }));
        if (seenRoom <= 0) {
          // fail closed: with no record the name is neither offered nor callable (`unlisted`)
          out.withheld.push({ name: t.name, hash, status: 'unrecorded' });
          refusedSeen++;
          continue;
        }
        seenRoom--;
      }
      const nowIso = this.now().toISOString();
      if (seen?.hash !== hash || seen.form !== PIN_FORM) {
        // a known hash replaced since it was read: screened now, where the check runs (a worker for a large one)
        const findings = checked[i].findings ?? (await this.check([t], new Set()))[0].findings ?? screenDefinition(t);
        const next: SeenRecord = { server, tool: t.name, hash, definition: t, findings, previous_hash: seen?.hash ?? null, seen_at: nowIso, listed_at: nowIso, form: PIN_FORM };
        // only the request whose write replaced another hash reports the change (replicas race here)
        seen = await this.seen.update(k, (cur) => {
          if (cur?.hash === hash && cur.form === PIN_FORM) return undefined;
          fresh = { ...next, previous_hash: cur?.hash ?? null };
          return fresh;
        });
        seen ??= next;
      } else if (!(this.now().getTime() - Date.parse(seen.listed_at ?? seen.seen_at) < this.listedEveryMs)) {
        // still listed: the sweep of stale records (expiry.ts) keeps it
        seen = (await this.seen.update(k, (cur) => (cur?.hash === hash ? { ...cur, listed_at: nowIso } : undefined))) ?? seen;
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
      if (status === 'pinned') {
        out.visible.push(t);
        out.pinned.set(t.name, { approved_by: pin!.approved_by, findings: seen.findings });
      } else out.withheld.push({ name: t.name, hash, status });
      if (fresh && status !== 'pinned') {
        const kind = status === 'changed' ? 'changed' : status === 'poisoned' ? 'poisoned' : 'new';
        out.events.push({ kind, server, tool: t.name, hash, previous_hash: fresh.previous_hash, pinned_hash: pin?.hash ?? null, findings: seen.findings });
      }
    }
    let dupRoom: number | undefined;
    let refusedDup = 0;
    for (const [tool, hs] of duplicated) {
      const k = key(server, tool);
      const now = this.now().toISOString();
      let fresh = false;
      let full = false;
      if (!(await this.duplicates.get(k))) dupRoom ??= this.maxTools - (await this.duplicates.count({ prefix }));
      // one atomic update: a mark in force is moved on to this sighting (a listing that started
      // before it cannot clear it); a new or cleared one is set, and only that request reports it
      await this.duplicates.update(k, (cur) => {
        fresh = !inForce(cur);
        full = !cur && dupRoom !== undefined && dupRoom <= 0;
        if (full) return undefined;
        return fresh ? { server, tool, hashes: [...new Set(hs)].slice(0, DUPLICATE_HASHES), marked_at: now, cleared_at: null } : { ...cur!, marked_at: now };
      });
      if (full) {
        // no room for the mark: the name's last-seen record goes instead, so its calls are refused
        // (`unlisted`) until a listing shows it again
        await this.seen.delete(k);
        refusedDup++;
        continue;
      }
      if (dupRoom !== undefined && fresh) dupRoom--;
      if (fresh) {
        const [seen, pin] = await Promise.all([this.seen.get(k), this.pins.get(k)]);
        out.events.push({ kind: 'duplicate', server, tool, hash: hs[0], previous_hash: seen?.hash ?? null, pinned_hash: pin?.hash ?? null, findings: [] });
      }
    }
    if (refusedSeen) this.o.onFull?.({ server, collection: PIN_COLLECTIONS.seen, refused: refusedSeen, cap: this.maxTools });
    if (refusedDup) this.o.onFull?.({ server, collection: PIN_COLLECTIONS.duplicates, refused: refusedDup, cap: this.maxTools });
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
    if (!nameFits(tool)) return { ok: false, status: 'unlisted', reason: `a tool name longer than ${MAX_TOOL_NAME} characters is never recorded, so never called` };
    const k = key(server, tool);
    const [seen, pin, dup] = await Promise.all([this.seen.get(k), this.pins.get(k), this.duplicates.get(k)]);
    if (inForce(dup)) {
      return { ok: false, status: 'duplicate', reason: `server ${server} listed more than one definition of tool ${tool} in one listing, so which one a call reaches is up to the server; it is not called until a complete listing lists it once` };
    }
    if (!seen) return { ok: false, status: 'unlisted', reason: `tool ${tool} has not been listed by server ${server} through proofgate (call tools/list first)` };
    if (seen.form !== PIN_FORM) {
      return { ok: false, status: 'unlisted', reason: `tool ${tool} of server ${server} was last listed before proofgate pinned whole definitions (call tools/list again)` };
    }
    if (pin && pin.hash === seen.hash) return { ok: true, hash: pin.hash, approved_by: pin.approved_by, definition: seen.definition, findings: seen.findings };
    if (pin && pin.form !== PIN_FORM) {
      return { ok: false, status: 'changed', reason: `tool ${tool} was approved when proofgate pinned only its name, description, inputSchema and annotations (pinned ${pin.hash}); the whole definition (${seen.hash}) was never approved, so an operator must re-approve it` };
    }
    if (pin) {
      return { ok: false, status: 'changed', reason: `the definition of tool ${tool} changed since it was approved (pinned ${pin.hash}, now ${seen.hash}); an operator must re-approve it` };
    }
    if (seen.findings.length) {
      return { ok: false, status: 'poisoned', reason: `the definition of tool ${tool} failed poisoning screening (${seen.findings.map((f) => f.constraint_id).join(', ')}) and is not approved` };
    }
    return { ok: false, status: 'pending', reason: `tool ${tool} of server ${server} is not approved yet (${seen.hash}); an operator must approve it` };
  }

  private pinRecord(seen: SeenRecord, by: string, accepted: Finding[]): PinRecord {
    return { server: seen.server, tool: seen.tool, hash: seen.hash, definition: seen.definition, form: PIN_FORM, accepted_findings: accepted, approved_at: this.now().toISOString(), approved_by: by };
  }

  /**
   * Pins the definition last listed. `hash`, when given, must be that definition's (the operator
   * approves what they reviewed, not whatever the server lists by the time the request lands).
   */
  async approve(server: string, tool: string, o: { hash?: string; acceptFindings?: boolean; by: string }): Promise<{ pin: PinRecord; previous_hash: string | null }> {
    const k = key(server, tool);
    const seen = await this.seen.get(k);
    // a form-1 record lacks what the operator must review: the members form 1 left out
    if (!seen || seen.form !== PIN_FORM) throw new ApproveError('unknown', `server ${server} has not listed a tool ${tool} through proofgate${seen ? ' since it pinned whole definitions: list its tools again' : ''}`);
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
  async list(server: string): Promise<Array<{ tool: string; hash: string; status: ToolStatus; pinned_hash: string | null; findings: Finding[]; seen_at: string; approved_at: string | null; approved_by: string | null; definition: ToolDefinition | null; pinned_definition: ToolDefinition | null }>> {
    const prefix = `${server}/`;
    const [seen, pins, dups] = await Promise.all([this.seen.list({ prefix }), this.pins.list({ prefix }), this.duplicates.list({ prefix })]);
    const byTool = new Map(pins.map((p) => [p.value.tool, p.value]));
    const duplicated = new Set(dups.filter((x) => inForce(x.value)).map((x) => x.value.tool));
    const listed = seen.map(({ value: s }) => {
      const p = byTool.get(s.tool);
      const status: ToolStatus = duplicated.has(s.tool) ? 'duplicate' : p?.hash === s.hash ? 'pinned' : p ? 'changed' : s.findings.length ? 'poisoned' : 'pending';
      return { tool: s.tool, hash: s.hash, status, pinned_hash: p?.hash ?? null, findings: s.findings, seen_at: s.seen_at, approved_at: p?.approved_at ?? null, approved_by: p?.approved_by ?? null, definition: s.definition as ToolDefinition | null, pinned_definition: p?.definition ?? null };
    });
    const seenTools = new Set(listed.map((x) => x.tool));
    for (const { value: d } of dups) {
      if (!inForce(d) || seenTools.has(d.tool) || d.server !== server) continue;
      const p = byTool.get(d.tool);
      listed.push({ tool: d.tool, hash: d.hashes[0] ?? '', status: 'duplicate', pinned_hash: p?.hash ?? null, findings: [], seen_at: d.marked_at, approved_at: p?.approved_at ?? null, approved_by: p?.approved_by ?? null, definition: null, pinned_definition: p?.definition ?? null });
    }
    return listed.sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }
}
