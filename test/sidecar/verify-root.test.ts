import t from 'tap';
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const base = tempDir(t, 'proofgate-verify-root-');

// a checkout, and next to it what a hostile pull request points into: a credentials file and a directory
const root = join(base, 'checkout');
const outside = join(base, 'home');
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(join(outside, '.aws'), { recursive: true });
const SECRET = 'aws_secret_access_key = AKIA_TOP_SECRET_0123456789';
writeFileSync(join(outside, '.aws', 'credentials'), `${SECRET}\n`);
writeFileSync(join(outside, 'schema.sql'), `CREATE TABLE t (id INTEGER); -- ${SECRET}\n`);
writeFileSync(join(root, 'src', 'safe.py'), 'def add(a, b):\n    return a + b\n');
writeFileSync(join(root, 'schema.sql'), 'CREATE TABLE t (id INTEGER);\n');
writeFileSync(join(root, 'q.sql'), 'SELECT id FROM t WHERE id = 1');
symlinkSync(join(outside, '.aws', 'credentials'), join(root, 'leak.py'));
symlinkSync('../../home/.aws/credentials', join(root, 'src', 'relative-leak.py'));
symlinkSync(outside, join(root, 'homedir'));
symlinkSync('src/safe.py', join(root, 'inside-link.py'));
symlinkSync(join(outside, 'schema.sql'), join(root, 'leak-schema.sql'));

function run(args: string[], env: Record<string, string> = {}, cwd = root): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = { ...process.env };
    for (const k of ['PROOFGATE_API_KEY', 'PROOFGATE_URL', 'PROOFGATE_ALLOW_INSECURE_HTTP', 'GITHUB_OUTPUT']) delete clean[k];
    execFile(...nodeCommand([CLI, ...args]), { env: { ...clean, ...env }, cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** a fake proofgate that records what reaches it and admits everything */
async function fakeService() {
  const seen: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'VERIFIED', admission: 'ADMIT', agent_message: 'ok', proof_ref: 'sha256:' + '0'.repeat(64), vulnerabilities: [] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return { seen, port: (server.address() as AddressInfo).port };
}

t.test('a symlink out of the checkout is not read: reported, denied, never sent', async (t) => {
  const svc = await fakeService();
  const gh = join(base, 'gh.txt');
  writeFileSync(gh, '');
  const sarifFile = join(base, 'out.sarif');
  // and a path named outside the root, no link involved (the gate is the same for --local)
  const named = join(outside, '.aws', 'credentials');
  const files = ['src/safe.py', 'leak.py', 'src/relative-leak.py', 'homedir/.aws/credentials', 'inside-link.py', named];
  const refused = ['leak.py', 'src/relative-leak.py', 'homedir/.aws/credentials', named];
  const r = await run(['verify', 'code', '--url', `http://127.0.0.1:${svc.port}`, '--language', 'python', '--format', 'json', '--sarif', sarifFile, ...files], {
    PROOFGATE_API_KEY: 'svc_live_' + 'a'.repeat(43),
    GITHUB_OUTPUT: gh,
  });
  t.equal(r.code, 1, `denied: ${r.stderr}`);
  t.equal(svc.seen.length, 2, 'only the two files inside the root were sent');
  for (const s of svc.seen) t.notMatch(s.body, /AKIA_TOP_SECRET/, 'the credentials never reach the service');
  t.same(svc.seen.map((s) => JSON.parse(s.body).code), ['def add(a, b):\n    return a + b\n', 'def add(a, b):\n    return a + b\n'], 'a link inside the root is followed');
  t.notMatch(r.stdout + r.stderr + readFileSync(sarifFile, 'utf8'), /AKIA_TOP_SECRET/, 'nor any output');
  for (const f of refused) t.match(r.stderr, `not read: ${f} resolves outside the root`);

  const j = JSON.parse(r.stdout);
  t.same(j.results.map((x: { file: string; admitted: boolean }) => [x.file, x.admitted]), files.map((f) => [f, f === 'src/safe.py' || f === 'inside-link.py']), 'in FILE order; the skipped ones denied');
  t.same(j.summary, { verified: false, admitted: false, verdict: 'UNVERIFIABLE', findings: refused.length, proof_ref: null }, 'not counted as verified');
  const sarif = JSON.parse(readFileSync(sarifFile, 'utf8'));
  const skipped = sarif.runs[0].results.filter((x: { ruleId: string }) => x.ruleId === 'verify.outside_root');
  t.same(skipped.map((x: any) => x.locations[0].physicalLocation.artifactLocation.uri), refused);
  t.ok(skipped.every((x: { level: string }) => x.level === 'error'));
  const outputs = readFileSync(gh, 'utf8');
  t.match(outputs, /^verified=false$/m);
  t.match(outputs, /^admission=DENY$/m);
  t.notMatch(outputs, /proof_ref=/);
});

t.test('--local and the other kinds read through the same gate; --schema outside the root is a usage error', async (t) => {
  const local = await run(['verify', 'math', '--local', 'leak.py']);
  t.equal(local.code, 1);
  t.match(local.stdout, /leak\.py:1: UNVERIFIABLE DENY/);
  t.notMatch(local.stdout + local.stderr, /AKIA_TOP_SECRET/);
  const schema = await run(['verify', 'sql', '--local', '--schema', 'leak-schema.sql', 'q.sql']);
  t.equal(schema.code, 2);
  t.match(schema.stderr, /--schema leak-schema\.sql resolves outside the root/);
  t.notMatch(schema.stdout + schema.stderr, /AKIA_TOP_SECRET/);
  const ok = await run(['verify', 'sql', '--local', '--schema', 'schema.sql', 'q.sql']);
  t.equal(ok.code, 0, ok.stderr);
});

t.test('--root: a file named outside the root (denied in the first test) is read when the root takes it in', async (t) => {
  const wider = await run(['verify', 'code', '--local', '--root', base, '--language', 'python', join(root, 'src', 'safe.py')], {}, outside);
  t.equal(wider.code, 0, wider.stderr);
  t.equal((await run(['verify', 'code', '--local', '--root', join(base, 'missing'), 'src/safe.py'])).code, 2, 'a root that does not exist');
});
