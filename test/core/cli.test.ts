import t from 'tap';
import { loadServiceConfig } from '../../sidecar/config.js';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateKey } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { nodeCommand, serveChild } from '../helpers/child.js';
import type { Command } from '../../core/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP')));

/**
 * Every command, from the module sidecar/cli.ts loads it from. Each is run here, in this process:
 * a CLI process per command's --help cost 0.2 s apiece for what the command's run() returns. The
 * CLI's dispatch to each one is what the other tests' spawns of it go through (proofgate verify,
 * mcp scan, orgs set-role …); the list is checked against the one `proofgate --help` prints.
 */
async function commands(): Promise<Command[]> {
  const [start, init, verify, openapi, audit, attestation, a2a, store, migrate, mcp, keys, orgs] = await Promise.all([
    import('../../sidecar/commands/start.js'),
    import('../../sidecar/commands/init.js'),
    import('../../sidecar/commands/verify.js'),
    import('../../sidecar/commands/openapi.js'),
    import('../../plugins/audit/index.js'),
    import('../../plugins/attestation/cli.js'),
    import('../../plugins/a2a/index.js'),
    import('../../sidecar/commands/store-stats.js'),
    import('../../sidecar/commands/migrate.js'),
    import('../../plugins/mcp/index.js'),
    import('../../sidecar/commands/keys.js'),
    import('../../sidecar/commands/orgs.js'),
  ]);
  return [
    start.startCommand,
    init.initCommand,
    verify.verifyCommand,
    openapi.openapiCommand,
    audit.createAuditVerifyCommand(loadServiceConfig),
    attestation.attestationVerifyCommand,
    a2a.a2aVerifyVerdictCommand,
    store.storeStatsCommand,
    migrate.migrateCommand,
    mcp.mcpScanCommand,
    mcp.mcpApproveCommand,
    keys.keysNewCommand,
    orgs.orgsSetPlanCommand,
    orgs.orgsSetRoleCommand,
    orgs.orgsListCommand,
    orgs.usersHashPasswordCommand,
  ];
}

t.test('--help works on the CLI and on every command', async (t) => {
  const top = spawnSync(...nodeCommand([CLI, '--help']), { encoding: 'utf8' });
  t.equal(top.status, 0);
  const names = [...top.stdout.matchAll(/^ {2}(\S+(?: \S+)?) {2,}/gm)].map((m) => m[1]);
  t.ok(names.includes('start') && names.includes('init'), 'lists its commands');
  const all = await commands();
  t.same(all.map((c) => c.name).sort(), [...names].sort(), 'each command the CLI lists is run below');
  for (const cmd of all) {
    const out = t.capture(console, 'log');
    const code = await cmd.run(['--help']);
    const printed = out().map((c) => c.args.join(' ')).join('\n');
    out.restore();
    t.equal(code, 0, `${cmd.name} --help exits 0`);
    t.match(printed, new RegExp(`proofgate ${cmd.name}`), `${cmd.name} --help prints its usage`);
  }
  const unknown = spawnSync(...nodeCommand([CLI, 'frobnicate']), { encoding: 'utf8' });
  t.equal(unknown.status, 2);
  // an option a command does not know is a usage error (2) with the usage, whichever command parses it
  for (const name of ['init', 'start']) {
    const r = spawnSync(...nodeCommand([CLI, name, '--bogus']), { encoding: 'utf8', env: cleanEnv, cwd: tempDir(t, 'pg-cli-') });
    t.equal(r.status, 2, `${name} --bogus exits 2`);
    t.match(r.stderr, new RegExp(`Unknown option '--bogus'[\\s\\S]*proofgate ${name}`), `${name} --bogus names the option and prints the usage`);
  }
  // openapi takes no arguments: one meant for another command is refused before anything is built
  const stray = spawnSync(...nodeCommand([CLI, 'openapi', '--output', 'x.json']), { encoding: 'utf8', env: cleanEnv });
  t.equal(stray.status, 2, 'openapi --output exits 2');
  t.match(stray.stderr, /Unknown option '--output'[\s\S]*proofgate openapi/);
  t.equal(stray.stdout, '', 'no document printed');
  const positional = spawnSync(...nodeCommand([CLI, 'openapi', 'x.json']), { encoding: 'utf8', env: cleanEnv });
  t.equal(positional.status, 2, 'openapi x.json exits 2');
  t.match(positional.stderr, /proofgate openapi: takes no arguments \(got "x\.json"\)/);
  t.equal(positional.stdout, '', 'no document printed');
});

t.test('init writes secrets and P-256 PKCS#8 keys, readable only by the owner', async (t) => {
  const dir = tempDir(t, 'pg-cli-');
  const path = join(dir, 'c.json');
  const r = spawnSync(...nodeCommand([CLI, 'init', '--config', path]), { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.equal(statSync(path).mode & 0o777, 0o600);
  const c = JSON.parse(readFileSync(path, 'utf8'));
  t.not(c.secrets.jwt_secret_key, c.secrets.api_key_lookup_secret);
  for (const pem of [c.a2a.signing_key_pem, c.attestation.signing_key_pem]) {
    t.match(pem, /^-----BEGIN PRIVATE KEY-----/);
    const k = createPrivateKey(pem);
    t.equal(k.asymmetricKeyType, 'ec');
    t.equal(k.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  }
  const again = spawnSync(...nodeCommand([CLI, 'init', '--config', path]), { encoding: 'utf8' });
  t.not(again.status, 0, 'never overwrites without --force');
});

t.test('start on a clean directory initialises itself, answers /health, and stops on SIGTERM', async (t) => {
  const dir = tempDir(t, 'pg-cli-');
  const { url, stop } = await serveChild(t, ...nodeCommand([CLI, 'start']), { cwd: dir, env: { ...cleanEnv, SVC_PORT: '0', SVC_LOG_LEVEL: 'ERROR' } });
  t.ok(existsSync(join(dir, 'proofgate.config.json')), 'wrote its dev config');
  const r = await fetch(url + '/health');
  t.equal(r.status, 200);
  t.equal(((await r.json()) as { status: string }).status, 'ok');
  t.equal(await stop(), 0, 'graceful exit');
});

t.test('start refuses an invalid configuration with a clear message', async (t) => {
  const dir = tempDir(t, 'pg-cli-');
  const r = spawnSync(...nodeCommand([CLI, 'start']), {
    cwd: dir,
    encoding: 'utf8',
    env: { ...cleanEnv, SVC_CONFIG: join(dir, 'none.json'), SVC_JWT_SECRET_KEY: 'same-secret-0123456789', SVC_API_KEY_LOOKUP_SECRET: 'same-secret-0123456789' },
    timeout: 20_000,
  });
  t.equal(r.status, 78);
  t.match(r.stderr, /cannot start/);
  t.match(r.stderr, /file not found/);
  const r2 = spawnSync(...nodeCommand([CLI, 'start']), {
    cwd: dir,
    encoding: 'utf8',
    env: { ...cleanEnv, SVC_JWT_SECRET_KEY: 'same-secret-0123456789', SVC_API_KEY_LOOKUP_SECRET: 'same-secret-0123456789', SVC_CONFIG: '' },
    timeout: 20_000,
  });
  t.equal(r2.status, 78);
  t.match(r2.stderr, /must differ from SVC_JWT_SECRET_KEY/);
});
