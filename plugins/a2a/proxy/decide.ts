import type { Logger } from 'pino';
import { HttpError } from '../../../core/errors.js';
import type { Principal } from '../../../core/types.js';
import type { A2AGateway, Caller } from '../gateway.js';
import type { VerdictStatus, VerificationVerdict } from '../message.js';
import type { VerificationItem } from './mapping.js';

/**
 * Runs every item of one A2A message through the gateway (sender authentication, trust boundary,
 * guard, signature) and decides: forward only when every verdict is one the policy forwards. The
 * first blocking verdict stops the rest (nothing more is charged to the buckets for a message that
 * will not go out).
 */
export type Decision = 'forward' | 'block' | 'not_forwarded';

export interface Decided {
  decision: Decision;
  verdicts: VerificationVerdict[];
  /** the verdict that decided a refusal (the last one when everything passed) */
  deciding: VerificationVerdict;
  /** the JWTs of the verdicts, comma-separated, for X-Proofgate-Verdict ('' when none is signed) */
  header: string;
}

export interface DecideInput {
  sender: string;
  receiver: string;
  items: readonly VerificationItem[];
  caller: Caller;
  signal: AbortSignal;
  log: Logger;
}

export function blocks(v: VerificationVerdict): boolean {
  if (v.status === 'blocked') return true;
  return v.status === 'error' && (v.details as { blocked?: boolean } | null)?.blocked !== false;
}

/** A payload the gateway refuses outright (no RFC 8785 form): the caller answers invalid params. */
export class UnverifiablePayload extends Error {}

export async function decide(gateway: A2AGateway, forwardStatuses: ReadonlySet<VerdictStatus>, d: DecideInput): Promise<Decided> {
  try {
    return await decideAll(gateway, forwardStatuses, d);
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) throw new UnverifiablePayload(err.message);
    throw err;
  }
}

async function decideAll(gateway: A2AGateway, forwardStatuses: ReadonlySet<VerdictStatus>, d: DecideInput): Promise<Decided> {
  const verdicts: VerificationVerdict[] = [];
  let decision: Decision = 'forward';
  let deciding: VerificationVerdict | undefined;
  const timestamp = new Date().toISOString();
  for (const item of d.items) {
    const v = await gateway.intercept(
      { sender_agent_id: d.sender, receiver_agent_id: d.receiver, payload_type: item.payloadType, payload: item.payload, timestamp },
      d.caller,
      d.signal,
      d.log,
    );
    verdicts.push(v);
    if (blocks(v)) {
      decision = 'block';
      deciding = v;
      break;
    }
    // an error verdict with block_on_error off is the operator's choice of availability
    if (v.status !== 'error' && !forwardStatuses.has(v.status) && decision === 'forward') {
      decision = 'not_forwarded';
      deciding = v;
    }
  }
  return {
    decision,
    verdicts,
    deciding: deciding ?? verdicts[verdicts.length - 1],
    header: verdicts.map((v) => v.attestation_jwt).filter((j): j is string => !!j).join(','),
  };
}

/**
 * The sender id a credential speaks as on the proxy: the one named in the metadata, else an agent
 * token's own id, else the one sender a key is bound to. A named id is never replaced by another:
 * an agent token naming someone else is then refused by sender authentication, loudly.
 */
export function senderOf(p: Principal | null, named: unknown): string | null {
  if (typeof named === 'string' && named !== '') return named;
  if (p?.kind === 'agentToken' && p.agentId) return p.agentId;
  if (p?.a2aSenders?.length === 1) return p.a2aSenders[0];
  return null;
}
