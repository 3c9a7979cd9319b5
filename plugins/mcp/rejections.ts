import type { Store } from '../../core/store/store.js';
import { PIN_COLLECTIONS, PIN_FORM, type PinRecord, type SeenRecord } from './pins.js';

/**
 * An operator's "no" to a tool definition (issue 41): the definition listed now under a tool name,
 * reviewed and refused. Calls to it were already denied (only a pinned hash is callable); the record
 * says the denial is a decision rather than a review nobody has done yet, and keeps who made it. The
 * pin, if any, is untouched: a server that lists the approved definition again is callable again.
 * One record per server and tool (the latest decision), so the collection is bounded like the
 * seen records it refers to.
 */
export const REJECTIONS_COLLECTION = 'mcp.rejections';

export interface RejectionRecord {
  server: string;
  tool: string;
  hash: string;
  rejected_at: string;
  /** the rejecting key id (or user id) */
  rejected_by: string;
}

export class RejectError extends Error {
  constructor(
    readonly kind: 'unknown' | 'stale' | 'pinned',
    message: string,
  ) {
    super(message);
  }
}

export class Rejections {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get records() {
    return this.store.collection<RejectionRecord>(REJECTIONS_COLLECTION);
  }

  /** `hash` must be the definition listed now: the operator refuses what they reviewed, nothing newer */
  async reject(server: string, tool: string, hash: string, by: string): Promise<{ rejection: RejectionRecord; pinned_hash: string | null }> {
    const k = `${server}/${tool}`;
    const seen = await this.store.collection<SeenRecord>(PIN_COLLECTIONS.seen).get(k);
    if (!seen || seen.form !== PIN_FORM) throw new RejectError('unknown', `server ${server} has not listed a tool ${tool} through proofgate${seen ? ' since it pinned whole definitions: list its tools again' : ''}`);
    if (seen.hash !== hash) throw new RejectError('stale', `the definition listed now is ${seen.hash}, not ${hash}`);
    const pin = await this.store.collection<PinRecord>(PIN_COLLECTIONS.pins).get(k);
    if (pin?.hash === hash) throw new RejectError('pinned', `the definition ${hash} of tool ${tool} is the approved one; rejecting it would leave the approval standing`);
    const rejection: RejectionRecord = { server, tool, hash, rejected_at: this.now().toISOString(), rejected_by: by };
    await this.records.put(k, rejection);
    return { rejection, pinned_hash: pin?.hash ?? null };
  }

  async list(server: string): Promise<RejectionRecord[]> {
    return (await this.records.list({ prefix: `${server}/` })).map((e) => e.value);
  }
}
