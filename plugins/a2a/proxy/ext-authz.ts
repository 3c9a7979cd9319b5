import { repeatedKeyError } from '../../../core/http/body.js';
import { HttpError } from '../../../core/errors.js';
import { hostNameOfUrl, parseHostName } from '../../../core/http/host-name.js';
import type { Reply, RequestContext } from '../../../core/types.js';
import { A2AProblems } from '../errors.js';
import type { A2AGateway } from '../gateway.js';
import type { VerdictStatus } from '../message.js';
import type { PeerConfig } from './config.js';
import { parseRpc, type RpcRequest } from './jsonrpc.js';
import { messageOf, verifyMessage } from './verify-message.js';
import type { ProxyMetrics } from './metrics.js';
import { VERDICT_HEADER } from './outbound.js';
import { ownershipRefusal } from './owned.js';
import type { TaskOwners } from './tasks.js';

/**
 * Envoy `ext_authz` HTTP service (`/ext-authz/<original path>`, request body forwarded): the same
 * verification as the proxy, without proofgate in the data path. 200 with `X-Proofgate-Verdict`
 * allows (Envoy copies it upstream via `allowed_upstream_headers`); 403 problem+json with the
 * verdict denies. The receiver is the `x-a2a-receiver` header, else the configured peer whose URL
 * host is the request's Host. A GET is allowed for AgentCard discovery only, and a task read or
 * cancel (JSON-RPC, or the HTTP+JSON `GET …/tasks/{id}`) only on a task recorded as the caller's:
 * ext_authz sees no answer, so it records nothing itself, and what is not recorded is denied.
 */
export interface ExtAuthzDeps {
  gateway: A2AGateway;
  peers: ReadonlyMap<string, PeerConfig>;
  metrics: ProxyMetrics;
  forwardStatuses: ReadonlySet<VerdictStatus>;
  owners: TaskOwners;
}

/**
 * The receiver the request goes to, or why none can be named. `x-a2a-receiver` comes from the caller
 * (Envoy passes it through): it may choose among the peers behind the request's Host, never one on
 * another host, or the check would apply another receiver's trust boundary than the one Envoy
 * delivers to. Without the header the Host decides. The Host and the peers' URLs are compared in one
 * spelling (core/http/host-name.ts): `BANK.MESH:8080`, `bank.mesh.:8080` and `plain.mesh:80` are the
 * hosts they name, not strangers that let the header pick any peer. A Host that does not parse is
 * denied. "Behind the Host" is by name, any port, so the header's choice is bounded by every peer on
 * that name; the receiver the Host alone picks is the one with the Host's port (none given: a peer
 * URL without a port, the scheme's default), or the only peer by that name.
 */
function receiverOf(ctx: RequestContext, peers: ReadonlyMap<string, PeerConfig>): { id: string } | { refused: string } {
  const raw = ctx.headers.host;
  const host = typeof raw === 'string' ? parseHostName(raw, null) : null;
  if (!host) return { refused: 'the request has no Host a receiver can be read from' };
  const byName: PeerConfig[] = [];
  const byPort: PeerConfig[] = [];
  for (const p of peers.values()) {
    const u = p.endpoint ?? p.cardUrl;
    const h = hostNameOfUrl(u);
    if (!h || h.hostname !== host.hostname) continue;
    byName.push(p);
    if (host.port === null ? u.port === '' : h.port === host.port) byPort.push(p);
  }
  const named = ctx.headers['x-a2a-receiver'];
  if (typeof named === 'string' && named) {
    if (!peers.has(named)) return { refused: 'x-a2a-receiver names no configured peer' };
    const bound = byPort.length ? byPort : byName;
    if (bound.length && !bound.some((p) => p.id === named)) return { refused: 'x-a2a-receiver names a peer on another host than the request goes to' };
    return { id: named };
  }
  if (byPort.length) return { id: byPort[0].id };
  // one peer by that name is the receiver whatever the port; among several, a guess could apply the
  // wrong one's trust boundary
  if (byName.length === 1) return { id: byName[0].id };
  return { refused: byName.length ? 'several peers share the Host’s name and none its port: set x-a2a-receiver' : 'no receiver: set x-a2a-receiver or call a configured peer host' };
}

function deny(detail: string, extensions: Record<string, unknown> = {}, constraintId?: string): HttpError {
  return new HttpError(A2AProblems.extAuthzDenied, detail, { extensions, ...(constraintId ? { constraintId } : {}) });
}

const CARD_PATH = /(^|\/)\.well-known\/agent(-card)?\.json$/;
/** the HTTP+JSON GetTask of either version (`/tasks/{id}`, `/v1/tasks/{id}`), under any prefix */
const REST_TASK_PATH = /(?:^|\/)tasks\/([^/]+)$/;

/** One answer for a task that is another caller's, was never recorded, or is malformed, so none is told from another. */
async function ownedOrDenied(d: ExtAuthzDeps, ctx: RequestContext, receiver: string, req: RpcRequest): Promise<void> {
  const why = await ownershipRefusal(d.owners, receiver, ctx.principal, req);
  if (why) throw deny('invalid' in why ? `invalid params: ${why.invalid}` : 'task not found: a task is reachable through ext_authz only when it was recorded as the caller’s (created through the outbound proxy)');
}

async function handleGet(d: ExtAuthzDeps, ctx: RequestContext): Promise<Reply> {
  const path = (ctx.params['*'] ?? '').split('?')[0];
  if (CARD_PATH.test(path)) return { status: 200, body: { allowed: true } };
  const task = REST_TASK_PATH.exec(path);
  // every other GET (task lists, subscriptions, push configs, the extended card) needs its answer
  // reviewed; `:` is a method suffix (`:subscribe`), `%` an id a decoder could read as another
  if (!task || /[:%]/.test(task[1])) throw deny('only AgentCard discovery and task reads are authorised through ext_authz for GET; the rest is relayed by the outbound proxy only');
  const to = receiverOf(ctx, d.peers);
  if ('refused' in to) throw deny(to.refused);
  d.metrics.request(to.id, 'ext_authz_get');
  await ownedOrDenied(d, ctx, to.id, { id: null, method: 'GetTask', kind: 'get', params: { id: task[1] } });
  return { status: 200, body: { allowed: true } };
}

export async function handleExtAuthz(d: ExtAuthzDeps, ctx: RequestContext): Promise<Reply> {
  if (ctx.method === 'GET') return handleGet(d, ctx);
  // Envoy forwards the bytes it buffered: they must read one way only, the way checked here
  const repeated = repeatedKeyError(ctx.rawBody);
  if (repeated) throw repeated;
  const to = receiverOf(ctx, d.peers);
  if ('refused' in to) throw deny(to.refused);
  const receiver = to.id;
  const parsed = parseRpc(ctx.body);
  if (!parsed.ok) throw deny('the request is not an A2A JSON-RPC call the gateway passes');
  const req = parsed.req;
  d.metrics.request(receiver, `ext_authz_${req.kind}`);
  if (req.kind === 'get' || req.kind === 'cancel') {
    await ownedOrDenied(d, ctx, receiver, req);
    return { status: 200, body: { allowed: true } };
  }
  // the other task methods need the answer reviewed (task ownership, push URLs): only the proxy sees it
  if (req.kind !== 'send' && req.kind !== 'stream') throw deny(`${req.method} is relayed by the outbound proxy only (/a2a/peers/{receiver}), not authorised through ext_authz`);
  // a message continuing a task, referring to one, or joining a conversation: the caller's only
  const admit = () => ownedOrDenied(d, ctx, receiver, req);
  const v = await verifyMessage(d, messageOf(req.params, ctx.rawBody), { by: 'credential', receiver, principal: ctx.principal, admit }, ctx.signal, ctx.log);
  if (!v.ok) throw deny(v.refusal === 'invalid' ? `invalid message: ${v.reason}` : `sender unknown: ${v.reason}`);
  const { decided } = v;
  if (decided.decision !== 'forward') {
    const constraint = (decided.deciding.details as { constraint_id?: string } | null)?.constraint_id;
    throw deny(decided.deciding.reason ?? `verdict ${decided.deciding.status}`, { verdict: decided.deciding }, constraint);
  }
  return { status: 200, headers: decided.header ? { [VERDICT_HEADER]: decided.header } : {}, body: { allowed: true } };
}
