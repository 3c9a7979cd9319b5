import { defineProblem } from '../../core/errors.js';

/**
 * The A2A gateway's problem catalog. A blocked message is not an error (it is a signed verdict,
 * HTTP 200); these are the cases where no verdict can be issued at all.
 */
export const A2AProblems = {
  /** detail is always SIGNING_KEY_UNAVAILABLE: the spec names that text, and the cause stays in the operator log */
  signingKeyUnavailable: defineProblem('a2a_signing_key_unavailable', 503, 'Signing key unavailable'),
  /** a payload JSON.parse accepted but RFC 8785 cannot hash (a number outside the double range) */
  payloadNotCanonical: defineProblem('a2a_payload_not_canonical', 400, 'Payload has no canonical JSON form'),
  /** Envoy ext_authz: the request is denied (the verdict rides in the problem's `verdict`) */
  extAuthzDenied: defineProblem('a2a_ext_authz_denied', 403, 'Request denied by proofgate'),
  /** a peer's AgentCard could not be fetched or failed verification */
  peerCardUnavailable: defineProblem('a2a_peer_card_unavailable', 502, 'Peer AgentCard unavailable'),
  unknownPeer: defineProblem('a2a_unknown_peer', 404, 'Unknown peer'),
  /** a card would name this server's URL, and none is configured (wildcard bind, no server.public_url) */
  publicUrlUnset: defineProblem('a2a_public_url_unset', 503, 'Public URL not configured'),
} as const;

export const SIGNING_KEY_UNAVAILABLE = 'Signing key unavailable';

/** constraint ids of the trust boundary, one per step of the spec's evaluation order */
export const TrustConstraints = {
  senderBlocklisted: 'a2a.trust.sender_blocklisted',
  receiverBlocklisted: 'a2a.trust.receiver_blocklisted',
  pairBlocked: 'a2a.trust.pair_blocked',
  notAllowlisted: 'a2a.trust.not_allowlisted',
  rateLimited: 'a2a.trust.rate_limited',
} as const;

/** constraint ids of code_guard's own refusals (its findings are named by rule id and heuristic) */
export const CodeGuardConstraints = {
  /** the code plugin, whose `code.analyzer` parses the code, is not loaded */
  analyzerUnavailable: 'a2a.code.analyzer_unavailable',
} as const;
