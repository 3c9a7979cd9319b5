import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { JSONWebKeySet } from 'jose';
import type { Command } from '../../core/cli.js';
import { verifyVerdict } from './verify.js';

/**
 * `proofgate a2a verify-verdict --jwks URL --payload FILE TOKEN`: what a receiving agent does,
 * from a shell. Exit 0 and the claims when valid, exit 1 and the reason otherwise, 2 on usage.
 */
const USAGE = `proofgate a2a verify-verdict --jwks URL|FILE --payload FILE [--issuer DID] TOKEN

Verifies an A2A verdict JWT: ES256 signature against the JWKS, typ, expiry, and that the token's
sub is the RFC 8785 SHA-256 of the payload.
  --jwks URL|FILE  the gateway's JWKS (http(s)://…/.well-known/jwks.json, or a local JSON file)
  --payload FILE   JSON file holding the message's payload object as forwarded ("-" = stdin)
  --issuer DID     also require this iss (did:svc:a2a:<deployment_id>)
Prints {"valid":true,"claims":…} and exits 0, or {"valid":false,"error":…} and exits 1.`;

function readJson(path: string, what: string): unknown {
  const text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${what} ${path} is not valid JSON`);
  }
}

export const a2aVerifyVerdictCommand: Command = {
  name: 'a2a verify-verdict',
  summary: 'verify an A2A verdict JWT against a JWKS and the payload it attests',
  usage: USAGE,
  async run(argv) {
    if (argv.includes('--help') || argv.includes('-h')) {
      console.log(USAGE);
      return 0;
    }
    const { values, positionals } = parseArgs({
      args: argv,
      options: { jwks: { type: 'string' }, payload: { type: 'string' }, issuer: { type: 'string' } },
      allowPositionals: true,
    });
    if (!values.jwks || !values.payload || positionals.length !== 1) {
      console.error(USAGE);
      return 2;
    }
    const payload = readJson(values.payload, 'payload file');
    const remote = /^https?:\/\//i.test(values.jwks);
    const result = await verifyVerdict(positionals[0], {
      payload,
      issuer: values.issuer,
      ...(remote ? { jwksUrl: values.jwks } : { jwks: readJson(values.jwks, 'JWKS file') as JSONWebKeySet }),
    });
    console.log(JSON.stringify(result, null, 2));
    return result.valid ? 0 : 1;
  },
};
