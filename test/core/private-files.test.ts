import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Files are private (issue 12, item 11): the config file holds every secret and the data directory
 * every key digest and audit chain. Checked through the CLI, as an operator runs it.
 */
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP')));
const modeOf = (p: string) => statSync(p).mode & 0o777;

function init(path: string, force = false) {
  return spawnSync(...nodeCommand([CLI, 'init', '--config', path, ...(force ? ['--force'] : [])]), { encoding: 'utf8' });
}

/** Starts the sidecar, resolves with its URL and everything it printed once it serves; stops it on teardown. */
// files and modes are the kernel's and the store's: no engine is loaded to warm up beside them
const NO_ENGINES = 'math,natural-language,fact,logic,code,sql,process,rag,consensus,stats,image';

async function start(t: Test, config: string, dataDir: string) {
  const child = spawn(...nodeCommand([CLI, 'start', '--config', config]), {
    env: { ...cleanEnv, SVC_PORT: '0', SVC_LOG_LEVEL: 'WARNING', SVC_DATA_DIR: dataDir, SVC_PLUGINS_DISABLED: NO_ENGINES },
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const m = /serving on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stderr.on('data', onData);
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { url, output: () => out };
}

t.test('init --force makes an existing, wider config file 0600 again', async (t) => {
  const dir = tempDir(t, 'pg-files-');
  const path = join(dir, 'c.json');
  writeFileSync(path, '{"old": true}\n', { mode: 0o644 });
  chmodSync(path, 0o644);
  t.equal(modeOf(path), 0o644, 'precondition: group and others may read it');
  const r = init(path, true);
  t.equal(r.status, 0, r.stderr);
  t.equal(modeOf(path), 0o600, 'only the owner may read the new secrets');
  const c = JSON.parse(readFileSync(path, 'utf8'));
  t.notOk(c.old, 'replaced');
  t.type(c.secrets.jwt_secret_key, 'string');
  t.same(
    spawnSync('ls', [dir], { encoding: 'utf8' }).stdout.trim().split('\n'),
    ['c.json'],
    'no temporary file left behind',
  );
});

t.test('a new data directory whose name has a dot is created 0700 and serves', async (t) => {
  const dir = tempDir(t, 'pg-files-');
  const config = join(dir, 'c.json');
  t.equal(init(config).status, 0);
  const dataDir = join(dir, 'var', 'proofgate.d');
  const s = await start(t, config, dataDir);
  const r = await fetch(s.url + '/health');
  t.equal(r.status, 200);
  // a store write, so the LMDB files exist and are used
  const up = await fetch(s.url + '/auth/signup', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'dot@example.com', password: 'correct horse battery', organization_name: 'dot' }),
  });
  t.equal(up.status, 201);
  t.ok(statSync(dataDir).isDirectory(), 'the dotted path is the directory, not a file name');
  t.equal(modeOf(dataDir), 0o700);
  t.ok(existsSync(join(dataDir, 'data.mdb')), 'the store lives inside it');
  t.equal(modeOf(join(dataDir, 'data.mdb')) & 0o077, 0, 'store files are not readable by others');
  t.notOk(existsSync(join(dir, 'var', 'proofgate.d-lock')), 'no sibling lock file (file mode would create one)');
});

t.test('an existing data directory readable by others is tightened to 0700, and the operator is told', async (t) => {
  const dir = tempDir(t, 'pg-files-');
  const config = join(dir, 'c.json');
  t.equal(init(config).status, 0);
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  const s = await start(t, config, dataDir);
  t.equal((await fetch(s.url + '/health')).status, 200);
  t.equal(modeOf(dataDir), 0o700);
  t.match(s.output(), /data directory .* had mode 0755 .*tightened to 0700/);
});
