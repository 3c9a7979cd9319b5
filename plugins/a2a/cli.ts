import { readFileSync } from 'node:fs';
import type { JSONWebKeySet } from 'jose';
import { defineCommand, fsProblem, UsageError, type Command } from '../../core/cli.js';
import { insecureHttpOptIn, trustedFetchUrl } from '../../core/http/loopback.js';
import { verifyVerdict } from './verify.js';

/**
 * `proofgate a2a verify-verdict --jwks URL --payload FILE TOKEN`: what a receiving agent does,
 * from a shell. Exit 0 only for a valid token whose verdict is `forwarded`: a shell script that
 * tests `$?` must not take a validly signed `blocked` verdict for permission (issue 38).
 * `--signature-only` answers "is this token genuine" alone. Exit 2 on usage.
 */
const USAGE = `proofgate a2a verify-verdict --jwks URL|FILE --payload FILE [--issuer DID] [--signature-only] [--allow-insecure-http] TOKEN

Verifies an A2A verdict JWT: ES256 signature against the JWKS, typ, expiry, and that the token's
sub is the RFC 8785 SHA-256 of the payload, then that the verdict is "forwarded".
  --jwks URL|FILE   the gateway's JWKS (http(s)://…/.well-known/jwks.json, or a local JSON file)
  --payload FILE    JSON file holding the message's payload object as forwarded ("-" = stdin)
  --issuer DID      also require this iss (did:svc:a2a:<deployment_id>)
  --signature-only  exit 0 for any validly signed verdict, whatever it says (blocked included)
  --allow-insecure-http  fetch the JWKS over plain http:// from a host that is not loopback (or
                    $PROOFGATE_ALLOW_INSECURE_HTTP=1); refused otherwise: whoever is on the path
                    could hand over keys of their own
Prints {"valid":true,"claims":…} or {"valid":false,"error":…}. Exits 0 when the token is valid and
its claims.svc_a2a.verdict is "forwarded" (any verdict with --signature-only); 1 when the token is
invalid, or valid but the verdict is not "forwarded" (said on stderr); 2 on a usage error.`;

class InputError extends Error {}

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(fsProblem(err, path, what));
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InputError(`${what} ${path} is not valid JSON`);
  }
}

export const a2aVerifyVerdictCommand: Command = defineCommand({
  name: 'a2a verify-verdict',
  summary: 'verify an A2A verdict JWT against a JWKS and the payload it attests (exit 0: valid and forwarded)',
  usage: USAGE,
  options: { jwks: { type: 'string' }, payload: { type: 'string' }, issuer: { type: 'string' }, 'signature-only': { type: 'boolean' }, 'allow-insecure-http': { type: 'boolean' } },
  // the count is checked with the required flags below, so one message names everything missing
  positionals: { min: 0, max: Infinity },
  async run({ values, positionals }) {
    const missing = [!values.jwks && '--jwks', !values.payload && '--payload', positionals.length !== 1 && 'exactly one TOKEN'].filter(Boolean);
    if (missing.length) throw new UsageError(`give ${missing.join(', ')}`, true);
    const remote = /^[a-z][a-z0-9+.-]*:\/\//i.test(values.jwks as string);
    let payload: unknown;
    let jwks: JSONWebKeySet | undefined;
    let jwksUrl: URL | undefined;
    try {
      const optIn = insecureHttpOptIn(values['allow-insecure-http']);
      if ('error' in optIn) throw new InputError(optIn.error);
      if (remote) {
        const url = trustedFetchUrl(values.jwks as string, '--jwks', optIn.allow);
        if ('error' in url) throw new InputError(url.error);
        jwksUrl = url;
      }
      payload = readJson(values.payload as string, 'payload file');
      if (!remote) jwks = readJson(values.jwks as string, 'JWKS file') as JSONWebKeySet;
    } catch (err) {
      throw err instanceof InputError ? new UsageError(err.message) : err;
    }
    const result = await verifyVerdict(positionals[0], { payload, issuer: values.issuer, ...(jwks ? { jwks } : { jwksUrl }) });
    console.log(JSON.stringify(result, null, 2));
    if (!result.valid) return 1;
    const verdict = result.claims.svc_a2a?.verdict;
    if (verdict === 'forwarded' || values['signature-only']) return 0;
    console.error(`proofgate a2a verify-verdict: the signature is valid but the verdict is ${JSON.stringify(verdict)}, not "forwarded"; exit 1 (--signature-only checks the signature alone)`);
    return 1;
  },
});
