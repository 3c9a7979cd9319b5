import { readFileSync, statSync } from 'node:fs';
import type { JSONWebKeySet } from 'jose';
import { defineCommand, fsProblem, UsageError, type Command } from '../../core/cli.js';
import { insecureHttpOptIn, trustedFetchUrl } from '../../core/http/loopback.js';
import { verifyAttestationOffline } from './offline.js';

/**
 * `proofgate attestation verify`: what a relying party does with an attestation token, from a
 * shell and without the service's API key. Exit 0 only for a genuine token that attests VERIFIED:
 * a script testing `$?` must not read a validly signed UNVERIFIABLE as success (the A2A command's
 * rule, issue 38). Revocation is the one thing offline checking cannot see (docs/attestation.md).
 */
const USAGE = `proofgate attestation verify TOKEN|FILE [--jwks URL|FILE] [options]

Verifies an attestation JWT (the "attestation" of a VERIFIED reply) without the service's API:
ES256 signature against the JWKS, typ svc-attestation+jwt, expiry, the claim layout, that the kid
belongs to the issuer and that sub binds the query and proof hashes.
  TOKEN|FILE        the token itself, or a file holding it (or a saved JSON reply with an
                    "attestation" or "jwt" member); "-" reads stdin
  --jwks URL|FILE   the service's JWKS: https://…/.well-known/jwks.json or a saved copy (default
                    $PROOFGATE_URL/.well-known/jwks.json, else http://127.0.0.1:8080/…)
  --issuer DID      also require this iss (did:svc:…)
  --query TEXT      also require svc.query_hash to be the SHA-256 of this text (for math: the
                    expression after NFKC normalisation and trimming)
  --signature-only  exit 0 for any genuine token, whatever result it attests
  --allow-insecure-http  fetch the JWKS over plain http:// from a host that is not loopback
                    (or $PROOFGATE_ALLOW_INSECURE_HTTP=1); refused otherwise, since whoever is on
                    the path could hand over keys of their own
Revocation is not visible offline: POST /attestation/verify (API key) checks it.
Prints {"valid":true,"verified":…,"claims":…} or {"valid":false,"error":…} on stdout.
Exit: 0 the token is genuine and attests VERIFIED (any result with --signature-only); 1 the token
is not genuine, or genuine but not VERIFIED (said on stderr); 2 usage error, unreadable input, or
a JWKS that cannot be fetched (nothing was decided about the token).`;

/** A token file, a saved reply or stdin: small, so a wrong path to a big file is refused before reading it. */
const MAX_INPUT_BYTES = 1024 * 1024;
const JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

class InputError extends Error {}

function readInput(path: string, what: string): string {
  try {
    if (path !== '-' && statSync(path).size > MAX_INPUT_BYTES) throw new InputError(`${what} ${path} is larger than ${MAX_INPUT_BYTES} bytes`);
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(fsProblem(err, path, what));
  }
}

function tokenOf(arg: string): string {
  if (JWS.test(arg)) return arg;
  const text = readInput(arg, 'token file').trim();
  if (!text.startsWith('{')) return text;
  let reply: Record<string, unknown>;
  try {
    reply = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new InputError(`token file ${arg} starts with "{" but is not valid JSON`);
  }
  const token = reply.attestation ?? reply.jwt;
  if (typeof token !== 'string') throw new InputError(`token file ${arg} is JSON without a string "attestation" or "jwt" member (was the reply VERIFIED?)`);
  return token;
}

export const attestationVerifyCommand: Command = defineCommand({
  name: 'attestation verify',
  summary: 'verify an attestation JWT offline against the JWKS (exit 0: genuine and VERIFIED)',
  usage: USAGE,
  options: {
    jwks: { type: 'string' },
    issuer: { type: 'string' },
    query: { type: 'string' },
    'signature-only': { type: 'boolean' },
    'allow-insecure-http': { type: 'boolean' },
  },
  positionals: { min: 1, max: 1, what: 'TOKEN or FILE' },
  async run({ values, positionals }) {
    const optIn = insecureHttpOptIn(values['allow-insecure-http']);
    if ('error' in optIn) throw new UsageError(optIn.error);
    const jwksArg = values.jwks ?? `${(process.env.PROOFGATE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '')}/.well-known/jwks.json`;
    let source: { jwks: JSONWebKeySet } | { jwksUrl: URL };
    let token: string;
    try {
      token = tokenOf(positionals[0]);
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(jwksArg)) {
        const url = trustedFetchUrl(jwksArg, '--jwks', optIn.allow);
        if ('error' in url) throw new InputError(url.error);
        source = { jwksUrl: url };
      } else {
        let jwks: unknown;
        try {
          jwks = JSON.parse(readInput(jwksArg, 'JWKS file'));
        } catch (err) {
          throw err instanceof InputError ? err : new InputError(`JWKS file ${jwksArg} is not valid JSON`);
        }
        if (!jwks || typeof jwks !== 'object' || !Array.isArray((jwks as { keys?: unknown }).keys)) throw new InputError(`JWKS file ${jwksArg} has no "keys" array (save GET /.well-known/jwks.json)`);
        source = { jwks: jwks as JSONWebKeySet };
      }
    } catch (err) {
      throw err instanceof InputError ? new UsageError(err.message) : err;
    }
    const result = await verifyAttestationOffline(token, { ...source, issuer: values.issuer, query: values.query });
    console.log(JSON.stringify(result, null, 2));
    if (!result.valid && result.jwksUnavailable) {
      // nothing was decided about the token: a service that is down is not a forged token
      console.error(`proofgate attestation verify: ${result.error}; is the service running there? Point --jwks (or $PROOFGATE_URL) at it, or pass a saved copy of its /.well-known/jwks.json`);
      return 2;
    }
    if (!result.valid) {
      console.error(`proofgate attestation verify: not a genuine attestation: ${result.error}`);
      return 1;
    }
    if (result.verified || values['signature-only']) return 0;
    console.error(`proofgate attestation verify: the token is genuine but attests ${result.claims.svc.result.status}, not VERIFIED; exit 1 (--signature-only checks the signature alone)`);
    return 1;
  },
});
