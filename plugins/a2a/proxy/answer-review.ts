import type { Principal } from '../../../core/types.js';
import type { RpcKind } from './jsonrpc.js';
import { mayAccess, type TaskOwner, type TaskOwners } from './tasks.js';

/**
 * What the proxy does to a peer's result before a client sees it (docs/a2a-proxy.md, "Answers"):
 * - the request's verdict goes into the `metadata` of the message, task or update under the
 *   verdict extension's URI, where every A2A client sees it; a peer's own entry under that URI is
 *   dropped (only this hop may say what proofgate decided);
 * - every task the answer names is one the caller owns: a task a send creates is recorded for the
 *   caller, and an answer that names another caller's task is withheld (the peer serves one identity,
 *   the sidecar, so it cannot tell tenants apart; tasks.ts);
 * - a task listing keeps only the caller's tasks.
 * Results of both protocol versions are read: v1.0 wraps them (`{task}`, `{message}`,
 * `{statusUpdate}`, `{artifactUpdate}`), v0.3 tags them with `kind`.
 */
export const VERDICT_EXTENSION = 'https://proofgate.dev/a2a/extensions/verdict/v1';

/** the answer names a task the caller does not own, has a shape the proxy cannot vouch for, or its agent output was blocked */
export class Withheld extends Error {
  constructor(
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** what the verification of one piece of agent output came to */
export interface OutputVerdict {
  status: string;
  verdicts: string[];
  audit_trace_ids: string[];
}

/**
 * Verifies agent output (a message, an artifact: anything with `parts`) as a message from the peer
 * to the caller: null when nothing in it is verifiable; throws Withheld when a verdict blocks it.
 */
export type OutputVerifier = (holder: Obj) => Promise<OutputVerdict | null>;

export interface VerdictMeta {
  /** the status of the verdict that decided (every verdict passed the forwarding policy) */
  status: string;
  /** the ES256 verdict JWTs, one per verifiable part, as in X-Proofgate-Verdict */
  verdicts: string[];
  audit_trace_ids: string[];
}

export interface ReviewContext {
  kind: RpcKind;
  peer: string;
  principal: Principal | null;
  /** the owner a task created by this request is recorded for (send, stream); null otherwise */
  owner: TaskOwner | null;
  owners: TaskOwners;
  verdict: VerdictMeta | null;
  /** what this answer has had checked already (`t:` task ids, `c:` contexts): a stream names the same task in every event */
  seen: Set<string>;
  /** absent: agent output is not verified (the kinds whose answers carry none) */
  verifyOutput?: OutputVerifier;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** the message/task/update objects of a result, whichever version's shape it has */
const WRAPPERS = ['task', 'message', 'statusUpdate', 'artifactUpdate', 'status_update', 'artifact_update'];

/**
 * Every object of a result a client might read: each 1.0 wrapper present (a hybrid answer could hold
 * two, and readers differ in which one they take), and the result itself, which a v0.3 reader takes
 * as the object (so it is reviewed too, whether or not a wrapper is present).
 */
function itemsOf(kind: RpcKind, result: unknown): Obj[] {
  if (!isObj(result)) return [];
  if (kind === 'list') return Array.isArray(result.tasks) ? result.tasks.filter(isObj) : [];
  const wrapped = WRAPPERS.filter((k) => isObj(result[k])).map((k) => result[k] as Obj);
  return wrapped.length && !hasOwnContent(result) ? wrapped : [...wrapped, result];
}

/** a wrapper object with nothing of its own besides the wrapped items */
const hasOwnContent = (o: Obj): boolean => Object.keys(o).some((k) => !WRAPPERS.includes(k));

/** the task ids one object names: a task's `id`, a message's or update's `taskId` */
function taskIdsOf(o: Obj): string[] {
  const ids: string[] = [];
  const isTask = o.kind === 'task' || (o.kind === undefined && isObj(o.status) && typeof o.id === 'string' && o.messageId === undefined && o.taskId === undefined);
  if (isTask && typeof o.id === 'string' && o.id !== '') ids.push(o.id);
  if (typeof o.taskId === 'string' && o.taskId !== '') ids.push(o.taskId);
  return ids;
}

async function checkTask(c: ReviewContext, id: string): Promise<void> {
  if (c.seen.has(`t:${id}`)) return;
  if (c.owner) {
    // a send: the task is the caller's if it is new, or already one the caller may touch
    const had = await c.owners.get(c.peer, id);
    if (had ? !mayAccess(c.principal, had) : !(await c.owners.claim(c.peer, id, c.owner, (h) => mayAccess(c.principal, h)))) {
      throw new Withheld("the peer's answer names a task another caller owns");
    }
  } else {
    const had = await c.owners.get(c.peer, id);
    if (!had || !mayAccess(c.principal, had)) throw new Withheld("the peer's answer names a task the caller does not own");
  }
  c.seen.add(`t:${id}`);
}

function withVerdict(o: Obj, v: VerdictMeta | null, output: OutputVerdict[] = []): void {
  const meta = isObj(o.metadata) ? { ...o.metadata } : {};
  delete meta[VERDICT_EXTENSION];
  if (v || output.length) meta[VERDICT_EXTENSION] = { ...(v ?? {}), ...(output.length ? { output } : {}) };
  if (Object.keys(meta).length || isObj(o.metadata)) o.metadata = meta;
}

/**
 * The pieces of agent output an item carries: a message's parts, artifacts, the status message,
 * the history. Whatever role a message claims: the peer wrote every one of them (a history "user"
 * message is the peer's copy), so a role label cannot take content out of verification.
 */
function outputsOf(o: Obj): Obj[] {
  const out: Obj[] = [];
  if (Array.isArray(o.parts)) out.push(o);
  if (isObj(o.artifact)) out.push(o.artifact);
  if (Array.isArray(o.artifacts)) out.push(...o.artifacts.filter(isObj));
  if (isObj(o.status) && isObj(o.status.message)) out.push(o.status.message);
  if (Array.isArray(o.history)) out.push(...o.history.filter(isObj));
  return out.filter((h) => Array.isArray(h.parts) && h.parts.length > 0);
}

/** reviews one JSON-RPC result in place; throws Withheld */
export async function reviewResult(c: ReviewContext, result: unknown): Promise<unknown> {
  if (c.kind === 'push_set' || c.kind === 'push_get' || c.kind === 'push_list' || c.kind === 'push_delete') {
    const configs = Array.isArray(result) ? result : isObj(result) && Array.isArray(result.configs) ? result.configs : [result];
    for (const cfg of configs) if (isObj(cfg) && typeof cfg.taskId === 'string' && cfg.taskId !== '') await checkTask(c, cfg.taskId);
    return result;
  }
  if (c.kind === 'extended_card') return result;
  if (c.kind === 'list' && isObj(result) && Array.isArray(result.tasks)) {
    const kept: unknown[] = [];
    for (const t of result.tasks) {
      if (!isObj(t) || typeof t.id !== 'string') continue;
      const had = await c.owners.get(c.peer, t.id);
      if (had && mayAccess(c.principal, had)) kept.push(t);
    }
    // the peer's count is over every caller's tasks: the page's own count is all that may be told
    result.tasks = kept;
    if (Object.hasOwn(result, 'totalSize')) result.totalSize = kept.length;
  }
  for (const o of itemsOf(c.kind, result)) {
    if (c.kind !== 'list') for (const id of taskIdsOf(o)) await checkTask(c, id);
    // a send's contexts are recorded for its caller, first come; they are checked on requests only, so
    // a peer that answers one context to everyone refuses later turns, not the answers themselves
    if (c.owner && typeof o.contextId === 'string' && o.contextId !== '' && !c.seen.has(`c:${o.contextId}`)) {
      await c.owners.claim(c.peer, o.contextId, c.owner, () => true, 'context');
      c.seen.add(`c:${o.contextId}`);
    }
    const output: OutputVerdict[] = [];
    if (c.verifyOutput) {
      for (const h of outputsOf(o)) {
        const v = await c.verifyOutput(h);
        if (v) output.push(v);
      }
    }
    withVerdict(o, c.verdict, output);
    // a task's history and status message carry the same metadata slot a client reads
    if (isObj(o.status) && isObj((o.status as Obj).message)) withVerdict((o.status as Obj).message as Obj, c.verdict);
  }
  return result;
}
