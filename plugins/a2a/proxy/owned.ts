import type { Principal } from '../../../core/types.js';
import type { RpcRequest } from './jsonrpc.js';
import { mayAccess, type TaskOwners } from './tasks.js';

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The task ids a request names, in every member a peer of either version reads one from: `id`
 * (v1.0 task reads, v0.3 task and push-config reads), `taskId` (v1.0 push configs, v0.3 set), and a
 * message's `taskId` and `referenceTaskIds`. Each must be the caller's.
 */
export function taskIdsNamed(req: RpcRequest): unknown[] {
  const p = req.params;
  const ids: unknown[] = [];
  if (req.kind === 'send' || req.kind === 'stream') {
    const m = p.message;
    if (isObj(m)) {
      if (m.taskId !== undefined && m.taskId !== '') ids.push(m.taskId);
      if (Array.isArray(m.referenceTaskIds)) ids.push(...m.referenceTaskIds);
    }
    return ids;
  }
  if (req.kind === 'list' || req.kind === 'extended_card') return ids;
  const legacy = req.method.includes('/');
  const has = (k: string) => Object.hasOwn(p, k);
  // a v1.0 push config's `id` is the config's own id; everywhere else `id` names the task
  if (has('id') && (legacy || !req.kind.startsWith('push_'))) ids.push(p.id);
  for (const k of ['taskId', 'task_id']) if (has(k)) ids.push(p[k]);
  if (isObj(p.pushNotificationConfig) && Object.hasOwn(p.pushNotificationConfig, 'taskId')) ids.push(p.pushNotificationConfig.taskId);
  return ids;
}

/** why a request may not touch what it names: its params are malformed, or a task or context is not the caller's */
export type OwnershipRefusal = { invalid: string } | { notFound: true };

/**
 * Every task id the request names must be recorded (tasks.ts) for an owner `principal` may act
 * for: an id never recorded is refused like another caller's, so neither existence nor absence
 * leaks and an unrecorded task is never reachable. A message may start a conversation (contextId)
 * nobody started, never join one another caller did. The outbound proxy and ext_authz share it.
 */
export async function ownershipRefusal(owners: TaskOwners, receiver: string, principal: Principal | null, req: RpcRequest): Promise<OwnershipRefusal | null> {
  const ids = taskIdsNamed(req);
  const needsTask = req.kind !== 'send' && req.kind !== 'stream' && req.kind !== 'list' && req.kind !== 'extended_card';
  if (needsTask && ids.length === 0) return { invalid: 'a task id' };
  for (const id of ids) {
    if (typeof id !== 'string' || id === '') return { invalid: 'a task id is a non-empty string' };
    const owner = await owners.get(receiver, id);
    if (!owner || !mayAccess(principal, owner)) return { notFound: true };
  }
  const m = req.params.message;
  if ((req.kind === 'send' || req.kind === 'stream') && isObj(m) && m.contextId !== undefined && m.contextId !== '') {
    if (typeof m.contextId !== 'string') return { invalid: 'a contextId is a string' };
    const had = await owners.get(receiver, m.contextId, 'context');
    if (had && !mayAccess(principal, had)) return { notFound: true };
  }
  return null;
}
