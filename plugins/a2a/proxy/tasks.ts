import { sha256Hex } from '../../../core/json/canonical.js';
import type { Principal } from '../../../core/types.js';
import type { Store, WriteOp } from '../../../core/store/store.js';

export const PROXY_TASKS_COLLECTION = 'a2a_proxy_tasks';
/** the same records by expiry (`<exp>/<record key>`), so pruning reads only what expired */
export const PROXY_TASKS_EXPIRY_COLLECTION = 'a2a_proxy_tasks_exp';

/** who created a task through the proxy: the organisation and the sender id the message went out as */
export interface TaskOwner {
  org: string;
  sender: string;
}

/**
 * A task, or a context: a conversation the peer groups tasks under, which an agent may remember
 * across them (so a message naming another caller's contextId could read that caller's history).
 */
export type Owned = 'task' | 'context';

interface TaskRecord extends TaskOwner {
  /** unix seconds after which the record is forgotten */
  exp: number;
}

const EXP_DIGITS = 12;
const keyExp = (exp: number) => String(Math.max(0, Math.ceil(exp))).padStart(EXP_DIGITS, '0');

/**
 * The tasks the proxy has seen a peer create, and for whom. The peer sees one caller (the sidecar,
 * with whatever credential the agents pass on), so its own access control cannot tell tenants apart:
 * without this record any agent could read, cancel, subscribe to or attach a push URL to another
 * tenant's task by its id. Records live in the store (replicas see each other's), keyed by peer and a
 * hash of the peer-chosen id, and are written insert-if-absent: the first caller a task is seen for
 * owns it. A record lasts `ttlSeconds` (a2a.proxy.task_ttl_seconds) from creation; an expired one
 * reads as absent (not found, fail closed) and is pruned in expiry order.
 */
export class TaskOwners {
  constructor(
    private readonly store: Store,
    private readonly ttlSeconds: number,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** `context`: a conversation (contextId) rather than a task; its own key space (a hex hash never holds a `/`) */
  static key(peer: string, id: string, what: Owned = 'task'): string {
    return `${peer}/${what === 'context' ? 'c/' : ''}${sha256Hex(id)}`;
  }

  async get(peer: string, taskId: string, what: Owned = 'task'): Promise<TaskOwner | undefined> {
    const r = await this.store.collection<TaskRecord>(PROXY_TASKS_COLLECTION).get(TaskOwners.key(peer, taskId, what));
    return r && r.exp > this.now() ? { org: r.org, sender: r.sender } : undefined;
  }

  /**
   * Records `owner` for a task first seen now. When it was recorded already (by another request of
   * this caller, or by a racing replica), true only if `accept` admits the owner on record; an
   * expired record is replaced, as if the task were new.
   */
  async claim(peer: string, taskId: string, owner: TaskOwner, accept: (had: TaskOwner) => boolean, what: Owned = 'task'): Promise<boolean> {
    const key = TaskOwners.key(peer, taskId, what);
    const exp = this.now() + this.ttlSeconds;
    const record: TaskRecord = { org: owner.org, sender: owner.sender, exp };
    const write = (ifAbsent: boolean) =>
      this.store.commit([
        { collection: PROXY_TASKS_COLLECTION, key, value: record, ifAbsent },
        { collection: PROXY_TASKS_EXPIRY_COLLECTION, key: `${keyExp(exp)}/${key}`, value: 1 },
      ]);
    if (await write(true)) return true;
    const had = await this.store.collection<TaskRecord>(PROXY_TASKS_COLLECTION).get(key);
    if (!had) return false;
    if (had.exp <= this.now()) return write(false);
    return accept(had);
  }

  /** deletes the records that expired; returns how many index entries were read */
  async prune(pageSize = 2000): Promise<number> {
    const idx = this.store.collection<number>(PROXY_TASKS_EXPIRY_COLLECTION);
    const records = this.store.collection<TaskRecord>(PROXY_TASKS_COLLECTION);
    // every entry whose exp is now or earlier (a record reads as absent from its exp on)
    const end = keyExp(this.now() + 1);
    let done = 0;
    for (;;) {
      const page = await idx.list({ end, limit: pageSize });
      if (!page.length) return done;
      const ops: WriteOp[] = [];
      for (const { key } of page) {
        const recordKey = key.slice(EXP_DIGITS + 1);
        const r = await records.get(recordKey);
        // a record claimed again after it expired has a later exp: its newer index entry keeps it
        if (r && r.exp <= this.now()) ops.push({ collection: PROXY_TASKS_COLLECTION, key: recordKey });
        ops.push({ collection: PROXY_TASKS_EXPIRY_COLLECTION, key });
      }
      await this.store.commit(ops);
      done += page.length;
      if (page.length < pageSize) return done;
    }
  }
}

/**
 * Whether `p` may touch a task `owner` holds: same organisation, and the sender the task was created
 * as is one this credential speaks as (an agent token: its own id; a key bound to senders: one of
 * them; a key bound to none, any sender of its organisation, as it may send as any on /a2a/intercept
 * once that sender authenticates).
 */
export function mayAccess(p: Principal | null, owner: TaskOwner): boolean {
  if (!p || p.orgId !== owner.org) return false;
  if (p.kind === 'agentToken') return p.agentId === owner.sender;
  if (p.a2aSenders?.length) return p.a2aSenders.includes(owner.sender);
  return true;
}
