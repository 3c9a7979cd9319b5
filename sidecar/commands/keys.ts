import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hmacSha256Hex } from '../../core/json/canonical.js';
import { defineCommand, type Command } from '../../core/cli.js';
import { ConfigError, DEFAULT_CONFIG_PATH } from '../../core/config.js';
import { loadServiceConfig } from '../config.js';
import { DEFAULT_SCOPES, newId } from '../../plugins/auth/index.js';
import { keyEntryProblems } from '../provision/file.js';

const SCOPES = ['verify:read', 'agent:write', 'attestation:read', 'admin:all'];

function list(v: string | undefined): string[] | undefined {
  return v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * `proofgate keys new`: a fresh API key and its lookup digest, for provisioning before start — the
 * plaintext goes into the client's Secret, the digest into the bootstrap file. The digest is
 * HMAC-SHA256(SVC_API_KEY_LOOKUP_SECRET, key): it only matches on servers with that same lookup
 * secret, and changing the secret invalidates every digest (docs/ops.md).
 */
export const keysNewCommand: Command = defineCommand({
  name: 'keys new',
  summary: 'print a fresh API key and its digest (for a Secret and the bootstrap file)',
  usage: `proofgate keys new [--scopes LIST] [--a2a-senders LIST] [--name NAME] [--id ID] [--test] [--json] [--config PATH]

Prints a new v7.2 API key, its digest HMAC-SHA256(SVC_API_KEY_LOOKUP_SECRET, key), and a bootstrap
file entry declaring it by digest. Nothing is stored: put the key in the client's Secret and the
entry under an organisation's api_keys in SVC_BOOTSTRAP_FILE.
  --scopes LIST        comma-separated: ${SCOPES.join(', ')} (default ${DEFAULT_SCOPES.join(',')})
  --a2a-senders LIST   agent ids this key may send A2A messages as
  --name NAME          key name (default "provisioned")
  --id ID              key id in the bootstrap file (default a fresh key_… id)
  --test               a svc_test_ key
  --json               one JSON object instead of text
  --config PATH        config file holding the lookup secret (default $SVC_CONFIG, else ${DEFAULT_CONFIG_PATH} when present;
                       SVC_API_KEY_LOOKUP_SECRET in the environment wins)`,
  options: {
          scopes: { type: 'string' },
          'a2a-senders': { type: 'string' },
          name: { type: 'string' },
          id: { type: 'string' },
          test: { type: 'boolean' },
          json: { type: 'boolean' },
          config: { type: 'string' },
        },
  async run({ values }) {
    const scopes = list(values.scopes) ?? DEFAULT_SCOPES;
    const bad = scopes.filter((s) => !SCOPES.includes(s));
    if (bad.length || scopes.length === 0) {
      console.error(`proofgate keys new: unknown scope ${bad.map((s) => JSON.stringify(s)).join(', ') || '(none given)'}; allowed: ${SCOPES.join(', ')}`);
      return 2;
    }
    const senders = list(values['a2a-senders']);
    const file = values.config ?? process.env.SVC_CONFIG ?? (existsSync(DEFAULT_CONFIG_PATH) ? DEFAULT_CONFIG_PATH : null);
    let secret: string | null;
    try {
      secret = loadServiceConfig({ file }).secrets.api_key_lookup_secret;
    } catch (err) {
      // only the lookup secret is needed here: other settings may be missing on an operator's machine
      secret = process.env.SVC_API_KEY_LOOKUP_SECRET ?? null;
      if (!secret) {
        console.error(`proofgate keys new: no lookup secret: ${err instanceof ConfigError ? err.message : (err as Error).message}`);
        return 2;
      }
    }
    if (!secret) {
      console.error('proofgate keys new: SVC_API_KEY_LOOKUP_SECRET is not set; without it no digest can be computed (declare the key with key_env instead)');
      return 2;
    }
    const prefix = values.test ? 'svc_test_' : 'svc_live_';
    const key = prefix + randomBytes(32).toString('base64url');
    const digest = hmacSha256Hex(secret, key);
    const entry = {
      id: values.id ?? newId('key'),
      name: values.name ?? 'provisioned',
      digest,
      prefix,
      scopes: [...new Set(scopes)],
      ...(senders?.length ? { a2a_senders: [...new Set(senders)] } : {}),
    };
    // the entry is for the bootstrap file: one it would refuse (or, printed as YAML, read as
    // another id) is a usage error here rather than at the server's next start
    const problems = keyEntryProblems(entry);
    if (problems.length) {
      console.error(`proofgate keys new: the bootstrap file would refuse this entry:\n  - ${problems.join('\n  - ')}`);
      return 2;
    }
    if (values.json) {
      console.log(JSON.stringify({ key, digest, entry }));
      return 0;
    }
    console.log(`key:    ${key}
digest: ${digest}

# bootstrap file entry (under an organisation's api_keys; the key itself goes into the client's Secret):
- id: ${JSON.stringify(entry.id)}
  name: ${JSON.stringify(entry.name)}
  digest: ${digest}
  prefix: ${prefix}
  scopes: [${entry.scopes.join(', ')}]${entry.a2a_senders ? `\n  a2a_senders: [${entry.a2a_senders.map((s) => JSON.stringify(s)).join(', ')}]` : ''}`);
    return 0;
  },
});
