import t from 'tap';
import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand, unpreloaded } from '../helpers/child.js';
import { builtinsWithoutEngines, startServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 43: a caller installs `@proofgate/client` (packages/client) without the server's engines.
 * The package is packed as `npm pack` ships it, installed from the tarball into a fresh project
 * (from the local npm cache), weighed, type checked and used against a started sidecar.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const pkgDir = join(repo, 'packages', 'client');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const LIMIT = 10 * 1024 * 1024;

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      ...unpreloaded(cmd, args),
      { cwd, timeout: 180_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...env } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** bytes of every file and link under `dir` (what the install put on disk, links not followed) */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? bytesUnder(p) : lstatSync(p).size;
  }
  return total;
}

t.test('@proofgate/client packs, installs small from its tarball and calls a started sidecar', { timeout: 300_000 }, async (t) => {
  const dir = tempDir(t, 'proofgate-client-pkg-');
  // packages/client/dist is built by `npm run build` (npm test runs it): --ignore-scripts keeps
  // prepack from rebuilding it here
  const pack = await sh(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], pkgDir);
  if (!t.equal(pack.code, 0, pack.stderr)) return;
  const info = JSON.parse(pack.stdout)[0] as { name: string; filename: string; files: Array<{ path: string }> };
  t.equal(info.name, '@proofgate/client');
  const paths = info.files.map((f) => f.path);
  for (const f of ['package.json', 'dist/packages/client/src/index.js', 'dist/packages/client/src/index.d.ts']) t.ok(paths.includes(f), `${f} is packed`);
  t.same(paths.filter((p) => p !== 'package.json' && p !== 'README.md' && !/^dist\/.*\.(js|d\.ts)$/.test(p)), [], 'nothing but the manifest, the README and the built JS and declarations');
  t.notOk(paths.some((p) => /^dist\/(test|sidecar|console)\//.test(p)), 'no server, console or test code');

  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  t.same(Object.keys(manifest.dependencies).sort(), ['canonicalize', 'jose', 'undici'], 'it depends on what it imports and nothing else');
  t.equal(manifest.license, 'UNLICENSED', 'no licence is chosen for the owner');
  t.same(manifest.repository, { type: 'git', directory: 'packages/client' });

  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
  // --prefer-offline: the dependencies come from the npm cache; the registry is asked only for what
  // the cache lacks (`npm ci` caches tarballs but not always the metadata a version range needs)
  const install = await sh(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, info.filename)], app);
  if (!t.equal(install.code, 0, install.stderr.slice(-3000))) return;
  const nm = join(app, 'node_modules');
  const installed = readdirSync(nm)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(join(nm, n)).map((s) => `${n}/${s}`) : [n]))
    .sort();
  t.same(installed, ['@proofgate/client', 'canonicalize', 'jose', 'undici'], 'the client and its three dependencies, nothing else');
  const bytes = bytesUnder(nm);
  t.ok(bytes < LIMIT, `node_modules holds ${(bytes / 1024 / 1024).toFixed(1)} MB (limit 10 MB)`);

  // the exports' types resolve for a TypeScript consumer (NodeNext, as an ESM project resolves)
  writeFileSync(
    join(app, 'check.ts'),
    "import { ProofgateClient, ProofgateError, type ClientOptions } from '@proofgate/client';\n" +
      "const o: ClientOptions = { baseUrl: 'http://127.0.0.1:9' };\n" +
      'const c = new ProofgateClient(o);\n' +
      "export const status: Promise<'ok' | string> = c.getHealthz().then((h) => h.status);\n" +
      'export const isError = (e: unknown): boolean => e instanceof ProofgateError && e.status === 401;\n',
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, typeRoots: [join(repo, 'node_modules', '@types')], types: ['node'] }, files: ['check.ts'] }),
  );
  const tsc = await sh(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
  t.equal(tsc.code, 0, `the package's types check: ${tsc.stdout}${tsc.stderr}`);

  const s = await startServer({ plugins: builtinsWithoutEngines, warmEngines: false });
  t.teardown(() => s.close());
  writeFileSync(
    join(app, 'use.mjs'),
    "const { ProofgateClient, ProofgateError } = await import('@proofgate/client');\n" +
      'const anon = new ProofgateClient({ baseUrl: process.env.PROOFGATE_URL });\n' +
      'const health = await anon.getHealthz();\n' +
      "const bad = new ProofgateClient({ baseUrl: process.env.PROOFGATE_URL, token: 'not-a-token' });\n" +
      'const refused = await bad.getAuthApiKeys().then(() => null, (e) => (e instanceof ProofgateError ? e.status : String(e)));\n' +
      'console.log(JSON.stringify({ health: health.status, refused }));\n',
  );
  const use = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(...nodeCommand(['use.mjs']), { cwd: app, timeout: 60_000, env: { ...process.env, PROOFGATE_URL: s.url } }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr }),
    ),
  );
  if (!t.equal(use.code, 0, use.stderr)) return;
  t.same(JSON.parse(use.stdout), { health: 'ok', refused: 401 }, 'a real call answers, and a refusal is a ProofgateError from the installed package');
});
