import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unpreloaded } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

// What `npm pack` ships must work from a clean directory: the bin and the ./client export.
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function sh(cmd: string, args: string[], cwd: string, timeout = 240_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(...unpreloaded(cmd, args), { cwd, timeout, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

t.test('the packed tarball installs into a clean directory and runs verify --local and the client', { timeout: 300_000 }, async (t) => {
  const dir = tempDir(t, 'proofgate-pack-');
  // dist is already built by `npm test`; --ignore-scripts keeps pack from rebuilding it
  const pack = await sh(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], repo);
  if (!t.equal(pack.code, 0, pack.stderr)) return;
  const info = JSON.parse(pack.stdout)[0] as { filename: string; files: Array<{ path: string }> };
  const paths = info.files.map((f) => f.path);
  t.ok(paths.includes('dist/sidecar/cli.js'), 'the bin is packed');
  t.ok(paths.includes('dist/packages/client/src/index.d.ts'), 'client types are packed');
  t.ok(paths.includes('dist/core/json/generated/index.json'), "the build's validators (configuration, requests, responses, settings) are packed");
  for (const f of ['index.html', 'app.js', 'app.css']) t.ok(paths.includes(`dist/console/${f}`), `the console's built ${f} is packed (docs/console.md)`);
  t.notOk(paths.some((p) => p.startsWith('console/')), "the console's sources are not");
  t.notOk(paths.some((p) => p.startsWith('dist/test/') || p.startsWith('test/')), 'tests are not packed');
  t.notOk(paths.some((p) => p.startsWith('dist/core/workers/piscina-')), 'the bench-only piscina pool (a devDependency) is not packed');
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
  const install = await sh(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', join(dir, info.filename)], app);
  if (!t.equal(install.code, 0, install.stderr.slice(-3000))) return;

  writeFileSync(join(app, 'unsafe.py'), 'import subprocess as sp\nsp.run(cmd, shell=True)\n');
  writeFileSync(join(app, 'safe.py'), 'def add(a, b):\n    return a + b\n');
  const bin = join(app, 'node_modules', '.bin', 'proofgate');
  // one run for both files (each run starts the code engine): the report says which is admitted
  const run = await sh(bin, ['verify', 'code', '--local', '--format', 'json', '--sarif', 'out.sarif', 'unsafe.py', 'safe.py'], app);
  t.equal(run.code, 1, `unsafe code is denied: ${run.stderr}`);
  t.same(
    JSON.parse(run.stdout).results.map((r: { file: string; admitted: boolean }) => [r.file, r.admitted]),
    [['unsafe.py', false], ['safe.py', true]],
    'safe code is admitted',
  );
  t.equal(JSON.parse(readFileSync(join(app, 'out.sarif'), 'utf8')).version, '2.1.0');

  writeFileSync(join(app, 'use.mjs'), "import { ProofgateClient, ProofgateError } from 'proofgate/client';\nconst c = new ProofgateClient({ baseUrl: 'http://127.0.0.1:9' });\nconsole.log(typeof c.postVerifyMath, typeof ProofgateError);\n");
  const use = await sh(process.execPath, ['use.mjs'], app);
  t.equal(use.stdout.trim(), 'function function', `proofgate/client imports from the installed package: ${use.stderr}`);
});
