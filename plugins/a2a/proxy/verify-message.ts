import type { Logger } from 'pino';
import type { Principal } from '../../../core/types.js';
import type { A2AGateway, Caller } from '../gateway.js';
import type { VerdictStatus } from '../message.js';
import type { SenderAuthMethod } from '../sender-auth.js';
import { decide, senderOf, UnverifiablePayload, type Decided } from './decide.js';
import { mapMessage, namedSender, type VerificationItem } from './mapping.js';
import type { ProxyMetrics } from './metrics.js';

/**
 * The one verify-message path of the A2A proxy: a message → its verifiable items (mapping.ts) →
 * the sender it is judged as → one verdict per item (decide.ts) → forward, block or not_forwarded.
 * The outbound proxy, the inbound guard and ext_authz are adapters onto it: each reads its own wire
 * form into an A2AMessage, says how its sender is established (SenderContext), and turns the outcome
 * back into its own answer (a JSON-RPC error, a 403 problem, a relay). What a message is judged by
 * is thereby the same on every entry; only the wording of a refusal is the adapter's.
 */
export interface A2AMessage {
  /** params.message, as received */
  message: unknown;
  /** the JSON-RPC params (they may name the sender too) */
  params: Record<string, unknown>;
  /** the request body as received: data parts bind to it so claimed numbers are read as written */
  raw: Buffer | null;
}

/** the message of a JSON-RPC message/send or message/stream call, as every adapter reads it */
export function messageOf(params: Record<string, unknown>, rawBody: Buffer | null): A2AMessage {
  return { message: params.message, params, raw: rawBody ?? null };
}

/** A sender a trusted issuer vouched for (inbound), or why none did. */
export type Voucher = { ok: true; sender: string; senderAuth: SenderAuthMethod } | { ok: false; reason: string };

/**
 * How the sender of a message is established.
 *  - `credential` (outbound, ext_authz): the caller's credential speaks for a sender (senderOf); a
 *    message with none is refused. `admit` runs once the message maps, before the named sender is
 *    read: ext_authz's task-ownership check (it throws its own denial).
 *  - `voucher` (inbound): no credential; `vouch` checks the vouching verdicts on the mapped items
 *    (it records them as used, so it runs before the named sender is read, as it always has) and
 *    an unvouched message is judged as its named sender, else `unknown`, for sender auth to refuse.
 */
export type SenderContext =
  | { by: 'credential'; receiver: string; principal: Principal | null; admit?: () => Promise<void> }
  | { by: 'voucher'; receiver: string; vouch: (items: readonly VerificationItem[]) => Promise<Voucher> };

export interface VerifyMessageDeps {
  gateway: A2AGateway;
  metrics: ProxyMetrics;
  forwardStatuses: ReadonlySet<VerdictStatus>;
}

export type Refusal = 'invalid' | 'sender_unknown';

export type Verified =
  | { ok: true; decided: Decided; sender: string; voucher?: Voucher }
  | { ok: false; refusal: Refusal; reason: string };

export const SENDER_UNKNOWN = 'use an agent token, a key bound to one sender, or name it in metadata.proofgate.sender_agent_id';
export const NOT_RFC8785 = 'a payload holds a number outside the range RFC 8785 can represent';

export async function verifyMessage(d: VerifyMessageDeps, m: A2AMessage, s: SenderContext, signal: AbortSignal, log: Logger): Promise<Verified> {
  const mapped = mapMessage(m.message, m.raw);
  if (!mapped.ok) return { ok: false, refusal: 'invalid', reason: mapped.reason };
  let voucher: Voucher | undefined;
  if (s.by === 'credential') await s.admit?.();
  else voucher = await s.vouch(mapped.items);
  const named = namedSender(m.message, m.params);
  if (!named.ok) return { ok: false, refusal: 'invalid', reason: named.reason };
  let sender: string;
  let caller: Caller;
  if (s.by === 'credential') {
    const id = senderOf(s.principal, named.id);
    if (!id) return { ok: false, refusal: 'sender_unknown', reason: SENDER_UNKNOWN };
    sender = id;
    caller = { principal: s.principal, raw: null };
  } else {
    sender = voucher!.ok ? voucher!.sender : (named.id ?? 'unknown');
    caller = { principal: null, raw: null, vouched: voucher!.ok ? voucher!.senderAuth : undefined };
  }
  let decided: Decided;
  try {
    decided = await decide(d.gateway, d.forwardStatuses, { sender, receiver: s.receiver, items: mapped.items, caller, signal, log });
  } catch (err) {
    if (err instanceof UnverifiablePayload) return { ok: false, refusal: 'invalid', reason: NOT_RFC8785 };
    throw err;
  }
  d.metrics.decision(s.receiver, decided.decision);
  return { ok: true, decided, sender, ...(voucher ? { voucher } : {}) };
}
