import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { defineCommand, type Command } from '../../core/cli.js';
import { DEFAULT_CONFIG_PATH } from '../../core/config.js';


function secret(): string {
  return randomBytes(32).toString('base64url');
}

function p256Pkcs8(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * Writes a development configuration with fresh secrets and ES256 keys, so the server itself never
 * generates a long-lived key (spec: the A2A key is never generated in-process). The attestation key
 * is written too, with the persistent policy, so tokens survive a restart of the dev sidecar.
 */
export function writeDevConfig(path: string, force = false): void {
  if (existsSync(path) && !force) throw new Error(`${path} already exists (use --force to overwrite)`);
  const config = {
    secrets: { jwt_secret_key: secret(), api_key_lookup_secret: secret(), audit_secret_key: secret(), badge_url_secret: secret() },
    attestation: { issuer: 'did:svc:node:staging', key_continuity_policy: 'persistent', signing_key_pem: p256Pkcs8() },
    a2a: { deployment_id: 'local-dev', signing_key_pem: p256Pkcs8(), peers: {} },
  };
  const text = JSON.stringify(config, null, 2) + '\n';
  if (!force) {
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
    return;
  }
  // writeFile's mode applies only to a new file: an existing 0644 file would keep its bits and
  // receive the secrets. A fresh 0600 file renamed over the old one (or a symlink) is private from
  // its first byte.
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

export const initCommand: Command = defineCommand({
  name: 'init',
  summary: 'write a development config with fresh secrets and signing keys',
  usage: `proofgate init [--config PATH] [--force]

Writes PATH (default ${DEFAULT_CONFIG_PATH}, mode 0600) holding freshly generated secrets
(SVC_JWT_SECRET_KEY, SVC_API_KEY_LOOKUP_SECRET, SVC_AUDIT_SECRET_KEY, SVC_BADGE_URL_SECRET), a P-256 PKCS#8 attestation key
(persistent policy) and a P-256 PKCS#8 A2A signing key with deployment id "local-dev".
  --config PATH   where to write (default ${DEFAULT_CONFIG_PATH})
  --force         replace an existing file (the new one is 0600 whatever the old file's mode)`,
  options: { config: { type: 'string' }, force: { type: 'boolean' } },
  async run({ values }) {
    const path = values.config ?? DEFAULT_CONFIG_PATH;
    writeDevConfig(path, values.force ?? false);
    console.log(`wrote ${path}`);
    return 0;
  },
});
