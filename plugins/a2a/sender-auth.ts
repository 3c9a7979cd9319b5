import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { compactVerify } from 'jose';
import { canonicalJson } from '../../core/json/canonical.js';
import { isExactNumber, numbersFitDoubles, parseExactJson } from '../../core/json/exact.js';
import type { Principal } from '../../core/types.js';
import { jwkAlgorithm, type AgentPublicJwk } from '../agents/index.js';
import type { Allowlist } from './trust-config.js';

/**
 * Who may speak as a sender id (issues 12 and 38, decisions §5). A sender is believed only when one
 * of these holds: the API key is bound to it (`a2a_senders`) and the key's organisation owns it now,
 * the agent token is that agent's own, or the message carries a `signature` that verifies against a
 * public key registered for it (trust entry `jwk`, or the `public_jwk` of the agent registered in the
 * caller's organisation). Anything else is blocked before the allowlist step. With `sender_auth: off`
 * nothing is blocked (claim-only mode for a sidecar with one co-located client) and signatures are
 * not checked; a binding is still reported only when owned, so a verdict never says `api_key` for
 * an id the key's organisation does not own.
 */
/**
 * `peer`: the sender is a configured peer, the author of an answer the outbound proxy received over
 * the connection the operator configured for it (its agent output is verified like a message).
 */
export type SenderAuthMethod = 'api_key' | 'agent_token' | 'signature' | 'peer' | 'none';

export const SENDER_NOT_AUTHENTICATED = 'a2a.sender_not_authenticated';

export type SenderDecision =
  | { ok: true; method: SenderAuthMethod }
  | { ok: false; method: 'none'; reason: string; failure: SenderAuthFailure };

export type SenderAuthFailure = 'agent_token_mismatch' | 'signature_invalid' | 'no_key_registered' | 'no_credential' | 'binding_not_owned';

interface VerifyKey {
  key: KeyObject;
  algorithms: string[];
}

/** an agent's registered public key in the caller's organisation (the agents plugin's registry) */
export type AgentKeyLookup = (orgId: string, agentId: string) => Promise<AgentPublicJwk | undefined>;

/** whether `orgId` owns `senderId` now (auth SenderOwners); read at every use of a binding */
export type OwnershipCheck = (orgId: string, senderId: string) => Promise<boolean>;

export interface SenderAuthOptions {
  mode: 'on' | 'off';
  allowlist: Allowlist;
  agentKey: AgentKeyLookup;
  /** absent: no binding is owned, so none authenticates (fail closed) */
  owns?: OwnershipCheck;
}

function algorithmsFor(jwk: AgentPublicJwk): string[] {
  // RFC 9864 names Ed25519 explicitly; EdDSA is the registered name most libraries still emit
  return jwkAlgorithm(jwk) === 'ES256' ? ['ES256'] : ['EdDSA', 'Ed25519'];
}

function toVerifyKey(jwk: AgentPublicJwk): VerifyKey {
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y ? { y: jwk.y } : {}) } as JsonWebKey, format: 'jwk' });
  return { key, algorithms: algorithmsFor(jwk) };
}

export class SenderAuthenticator {
  private readonly trustKeys = new Map<string, VerifyKey[]>();

  constructor(private readonly o: SenderAuthOptions) {
    for (const [id, entries] of o.allowlist) {
      const keys = entries.filter((e) => e.jwk).map((e) => toVerifyKey(e.jwk!));
      if (keys.length) this.trustKeys.set(id, keys);
    }
  }

  get enabled(): boolean {
    return this.o.mode === 'on';
  }

  /**
   * Synchronous unless a signature has to be verified (a key lookup and a verification): the
   * intercept path does not pay a turn of the microtask queue for a credential check. `raw` is the
   * request body as sent: the signature covers the message as the sender wrote it, not the one after
   * schema defaults were filled in.
   */
  decide(sender: string, signature: string | undefined, raw: Buffer | null, principal: Principal | null): SenderDecision | Promise<SenderDecision> {
    const bound = bindingMethod(sender, principal);
    // a key's binding is checked against who owns the id now, not when the key was made: a binding
    // whose agent was deleted or moved, or whose trust entry changed, no longer speaks (issue 38)
    if (bound === 'api_key') {
      return (this.o.owns ?? notOwned)(principal!.orgId, sender).then((owned) => this.decideBound(sender, signature, raw, principal, owned ? bound : null, !owned));
    }
    return this.decideBound(sender, signature, raw, principal, bound, false);
  }

  private decideBound(sender: string, signature: string | undefined, raw: Buffer | null, principal: Principal | null, bound: SenderAuthMethod | null, stale: boolean): SenderDecision | Promise<SenderDecision> {
    if (!this.enabled) return { ok: true, method: bound ?? 'none' };
    if (principal?.kind === 'agentToken' && principal.agentId !== sender) {
      return deny('agent_token_mismatch', 'An agent token speaks only as its own agent id');
    }
    if (signature !== undefined) return this.bySignature(sender, signature, raw, principal, bound);
    if (bound) return { ok: true, method: bound };
    if (stale) return deny('binding_not_owned', "The key is bound to this sender id, but its organisation does not own the id (the agent was deleted or belongs elsewhere, or no trust entry assigns it)");
    return deny('no_credential', 'The sender id is not authenticated: use a key bound to it, its agent token, or a signed message');
  }

  private async bySignature(sender: string, signature: string, raw: Buffer | null, principal: Principal | null, bound: SenderAuthMethod | null): Promise<SenderDecision> {
    // a signature that is present must verify, even when the credential alone would do: a forged
    // or stale signature is a sign of tampering, never something to ignore
    const keys = await this.keysFor(sender, principal);
    if (!keys.length) return deny('no_key_registered', 'No public key is registered for the sender, so its signature cannot be checked');
    if (!(await verifySignature(signature, raw, keys))) return deny('signature_invalid', 'The message signature does not verify against a key registered for the sender');
    return { ok: true, method: bound ?? 'signature' };
  }

  private async keysFor(sender: string, principal: Principal | null): Promise<VerifyKey[]> {
    const keys = [...(this.trustKeys.get(sender) ?? [])];
    if (principal) {
      const jwk = await this.o.agentKey(principal.orgId, sender);
      if (jwk) keys.push(toVerifyKey(jwk));
    }
    return keys;
  }
}

const notOwned: OwnershipCheck = async () => false;

function bindingMethod(sender: string, p: Principal | null): SenderAuthMethod | null {
  if (!p) return null;
  if (p.kind === 'agentToken' && p.agentId === sender) return 'agent_token';
  if (p.kind === 'apiKey' && p.a2aSenders?.includes(sender)) return 'api_key';
  return null;
}

function deny(failure: SenderAuthFailure, reason: string): SenderDecision {
  return { ok: false, method: 'none', reason, failure };
}

/** The RFC 8785 bytes a signature covers: the message as sent, without `signature`. */
export function signedBytes(message: Record<string, unknown>): Buffer {
  const { signature: _omit, ...rest } = message;
  return Buffer.from(canonicalJson(rest), 'utf8');
}

/**
 * True when every number of the message is the decimal its double stands for. RFC 8785 writes a
 * number as the double it reads as, so `100000000000000007.995` and `100000000000000000` sign the
 * same bytes; but the guards read numbers exactly as written (core/json/exact.ts), so a relay could
 * rewrite a signed invoice into one the sender never wrote without breaking the signature.
 */
function numbersAsSigned(raw: Buffer): boolean {
  if (numbersFitDoubles(raw)) return true;
  const stack: unknown[] = [parseExactJson(raw)];
  while (stack.length) {
    const v = stack.pop();
    if (isExactNumber(v)) {
      const n = v.toNumber();
      if (!Number.isFinite(n) || !new Decimal(v.text).equals(new Decimal(String(n)))) return false;
    } else if (v && typeof v === 'object') {
      for (const x of Object.values(v as Record<string, unknown>)) stack.push(x);
    }
  }
  return true;
}

/**
 * Compact JWS, either with the canonical message as its payload or detached (`header..signature`).
 * The algorithm is pinned by the registered key's type, so `none`, HS256 and any other alg fail.
 */
async function verifySignature(jws: string, raw: Buffer | null, keys: readonly VerifyKey[]): Promise<boolean> {
  if (!raw) return false;
  let expected: Buffer;
  try {
    const msg = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    expected = signedBytes(msg);
    if (!numbersAsSigned(raw)) return false;
  } catch {
    return false;
  }
  const parts = jws.split('.');
  if (parts.length !== 3) return false;
  const embedded = parts[1] !== '';
  const token = embedded ? jws : `${parts[0]}.${expected.toString('base64url')}.${parts[2]}`;
  for (const k of keys) {
    try {
      const r = await compactVerify(token, k.key, { algorithms: k.algorithms });
      if (Buffer.from(r.payload).equals(expected)) return true;
    } catch {
      // the next registered key may be the one
    }
  }
  return false;
}
