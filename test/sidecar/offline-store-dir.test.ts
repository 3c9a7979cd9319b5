import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import type { Command } from '../../core/cli.js';
import { storeStatsCommand } from '../../sidecar/commands/store-stats.js';
import { orgsListCommand } from '../../sidecar/commands/orgs.js';
import { createAuditVerifyCommand } from '../../plugins/audit/index.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const ENV = {
  SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key,
  SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret,
  SVC_AUDIT_SECRET_KEY: TEST_SECRETS.audit_secret_key,
};

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...ENV };
    execFile(...nodeCommand([CLI, ...args]), { env, cwd: tmpdir(), timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

// the runs in this process see the environment the spawned ones get: these secrets, no other SVC_
for (const k of Object.keys(process.env)) if (k.startsWith('SVC_')) delete process.env[k];
Object.assign(process.env, ENV);
const IN_PROCESS: Record<string, Command> = { 'store stats': storeStatsCommand, 'audit verify': createAuditVerifyCommand(loadServiceConfig), 'orgs list': orgsListCommand };

/** `cmd` run in this process as the CLI runs it: its exit code and what it wrote to stderr */
async function here(t: Test, cmd: string[], args: string[]): Promise<{ code: number; stderr: string }> {
  const errors = t.capture(console, 'error');
  try {
    return { code: await IN_PROCESS[cmd.join(' ')].run(args), stderr: errors().map((c) => c.args.join(' ')).join('\n') };
  } finally {
    errors.restore();
  }
}

const root = tempDir(t, 'proofgate-offline-');

// the offline commands read a store; a directory holding none is a mistyped path, never an empty store
const COMMANDS: string[][] = [['store', 'stats'], ['audit', 'verify'], ['orgs', 'list']];

t.test('a directory that holds no store is refused with exit 2 and left as it was', async (t) => {
  for (const cmd of COMMANDS) {
    const dir = mkdtempSync(join(root, 'plain-'));
    writeFileSync(join(dir, 'notes.txt'), 'not a store\n');
    chmodSync(dir, 0o755);
    const r = await run([...cmd, '--data-dir', dir]);
    t.equal(r.code, 2, `${cmd.join(' ')} exits 2`);
    t.match(r.stderr, /holds no store/, `${cmd.join(' ')} says why`);
    t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
    t.notOk(existsSync(join(dir, 'data.mdb')), `${cmd.join(' ')} creates no store there`);
    t.equal(statSync(dir).mode & 0o777, 0o755, `${cmd.join(' ')} leaves the directory's mode alone`);
    t.same(readdirSync(dir), ['notes.txt']);
  }
});

t.test('a file given as the data directory is refused with exit 2, not an EEXIST from mkdir', async (t) => {
  const file = join(root, 'a-file');
  writeFileSync(file, 'x');
  // the refusal as the process shows it is the first test's; here only the path differs, so the
  // commands run in this process (a CLI process is 0.3 s)
  for (const cmd of COMMANDS) {
    const r = await here(t, cmd, ['--data-dir', file]);
    t.equal(r.code, 2, `${cmd.join(' ')} exits 2`);
    t.match(r.stderr, /is not a directory/);
    t.notMatch(r.stderr, /EEXIST|ENOTDIR/);
  }
});

t.test('an existing store is still read', async (t) => {
  const dir = join(root, 'store');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  await store.collection<{ n: number }>('probe').put('k', { n: 1 });
  await store.close();
  const stats = await run(['store', 'stats', '--json', '--data-dir', dir]);
  t.equal(stats.code, 0, stats.stderr);
  t.match(JSON.parse(stats.stdout).collections, [{ name: 'probe', entries: 1 }]);
  const audit = await run(['audit', 'verify', '--data-dir', dir]);
  t.equal(audit.code, 0, audit.stderr);
  t.match(audit.stdout, /^OK: 0 entries/);
});
