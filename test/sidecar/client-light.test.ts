import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 43: `@proofgate/client` is for callers of the API, who should not load the engines (z3,
 * node-sql-parser, sql.js, tree-sitter …) to send a request or check a token. The package's build
 * (packages/client/dist, made by `npm run build`) is imported in a fresh process with module hooks
 * that write down every module loaded (ESM) and, after the import, every CommonJS module in the
 * require cache; both must stay inside the client's own code, the helpers it names, and undici,
 * jose and canonicalize.
 */
const DIST = fileURLToPath(new URL('../../../packages/client/dist/', import.meta.url));
const ENTRY = pathToFileURL(join(DIST, 'packages', 'client', 'src', 'index.js')).href;

/** the project modules the client may reach: its own, the verifiers it re-exports and what they import */
const ALLOWED_OWN = [
  /^packages\/client\/src\/[^/]+\.js$/,
  /^core\/(json\/canonical|keys\/es256|http\/loopback|keys\/jwks-keyset)\.js$/,
  /^plugins\/a2a\/(verify|signer)\.js$/,
  /^plugins\/attestation\/(offline|subject|token)\.js$/,
];
const ALLOWED_PACKAGES = new Set(['undici', 'jose', 'canonicalize']);
const HEAVY = ['z3-solver', 'node-sql-parser', 'sql.js', 'web-tree-sitter', 'tree-sitter-python', 'mathjs', 'lmdb', 'pg', 'ioredis', 'pino'];

t.test('importing @proofgate/client loads no engine and nothing beyond its three dependencies', async (t) => {
  const dir = tempDir(t, 'client-light-');
  const loaded = join(dir, 'loaded.txt');
  writeFileSync(join(dir, 'hook.mjs'), `import { appendFileSync } from 'node:fs';\nexport async function load(url, ctx, next) { appendFileSync(${JSON.stringify(loaded)}, url + '\\n'); return next(url, ctx); }\n`);
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`);
  writeFileSync(
    join(dir, 'main.mjs'),
    `import { createRequire } from 'node:module';\n` +
      `const m = await import(${JSON.stringify(ENTRY)});\n` +
      `const cjs = Object.keys(createRequire(import.meta.url)('module')._cache);\n` +
      `console.log(JSON.stringify({ exports: Object.keys(m).sort(), cjs }));\n`,
  );
  const r = spawnSync(...nodeCommand(['--import', pathToFileURL(join(dir, 'register.mjs')).href, join(dir, 'main.mjs')]), { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { exports: string[]; cjs: string[] };
  t.ok(['ProofgateClient', 'verifyA2AVerdict', 'verifyAttestation', 'toVerificationContext'].every((n) => out.exports.includes(n)), 'the client and its helpers are there');

  const urls = [...new Set(readFileSync(loaded, 'utf8').trim().split('\n'))];
  const paths = [...urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u)), ...out.cjs];
  t.ok(paths.length > 0, 'the hooks saw the import');
  const packages = new Set<string>();
  for (const p of paths) {
    const nm = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(p);
    if (nm) {
      packages.add(nm[1].replace(/\\/g, '/'));
      continue;
    }
    if (!p.startsWith(DIST)) {
      if (!p.includes(`${dir}`)) t.fail(`a module outside the package's dist/ and node_modules/: ${p}`);
      continue;
    }
    const own = p.slice(DIST.length).split('\\').join('/');
    if (!ALLOWED_OWN.some((re) => re.test(own))) t.fail(`the client loads ${own}`);
  }
  t.same([...packages].filter((p) => !ALLOWED_PACKAGES.has(p)), [], `packages loaded: ${[...packages].join(', ')}`);
  for (const h of HEAVY) t.notOk(packages.has(h), `${h} is not loaded`);
  t.notOk(urls.some((u) => u.startsWith('node:worker_threads')), 'no worker threads');
});
