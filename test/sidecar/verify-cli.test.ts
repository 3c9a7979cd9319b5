import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvDraft04Import from 'ajv-draft-04';
import addFormatsImport from 'ajv-formats';
import { nodeCommand } from '../helpers/child.js';
import { verifyCommand } from '../../sidecar/commands/verify.js';
import { tempDir } from '../helpers/temp-dir.js';

// both packages are CommonJS; under NodeNext their default import is the module object
const AjvDraft04 = ((AjvDraft04Import as unknown as { default?: unknown }).default ?? AjvDraft04Import) as unknown as new (o: object) => import('ajv').default;
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: unknown) => unknown;
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const SARIF_SCHEMA = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test/fixtures/mcp/sarif-2.1.0-rtm.5.json', import.meta.url)), 'utf8'));

function sarifValidator() {
  const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(SARIF_SCHEMA);
}

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = { ...process.env };
    delete clean.PROOFGATE_API_KEY;
    delete clean.GITHUB_OUTPUT;
    // from the directory holding the files: it is the root verify reads inside (--root defaults to it)
    execFile(...nodeCommand([CLI, ...args]), { env: { ...clean, ...env }, cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/**
 * `proofgate verify ARGS` as the CLI dispatches it, in this process: for a run that ends at a usage
 * check, before any engine, service or output. A process per check cost 0.25 s each to learn the
 * same exit code; the spawned runs below keep the process boundary (exit status, streams, env).
 */
async function inProcess(t: Test, args: string[]): Promise<{ code: number; stderr: string }> {
  const errors = t.capture(console, 'error');
  try {
    // the root the spawned runs get from their working directory
    return { code: await verifyCommand.run([...args, '--root', dir]), stderr: errors().map((c) => c.args.join(' ')).join('\n') };
  } finally {
    errors.restore();
  }
}

const dir = tempDir(t, 'proofgate-verify-');
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const safePy = file('safe.py', 'def add(a, b):\n    return a + b\n');
const unsafePy = file('unsafe.py', 'import os\n\ndef run(cmd):\n    os.system(cmd)\n');
const unsafeJs = file('unsafe.js', 'const x = 1;\neval(process.argv[2]);\n');
const trueMath = file('true.math', '2 + 2 = 4\n# a comment\n(x+1)^2 = x^2 + 2*x + 1\n');
const falseMath = file('false.math', '2 + 2 = 4\n3 * 3 = 10\n');
const schema = file('schema.sql', 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);\n');
const goodSql = file('good.sql', 'SELECT id, name FROM users WHERE id = 1');
const badSql = file('bad.sql', 'SELECT id FROM users\nWHERE id = 1 OR 1 = 1');

t.test('on a terminal, a run of several files shows a progress line per file', async (t) => {
  // script(1) (util-linux, in every Debian) gives the CLI a pseudo-terminal, as a person's shell would
  const [file, args] = nodeCommand([CLI, 'verify', 'code', '--local', '--format', 'json', '--output', join(dir, 'tty.json'), safePy, unsafePy, unsafeJs]);
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  const r = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile('script', ['-qec', [file, ...args].map(quote).join(' '), '/dev/null'], { cwd: dir, timeout: 60_000 }, (err, stdout) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout }),
    ),
  );
  t.equal(r.code, 1, r.out);
  for (const n of [1, 2, 3]) t.match(r.out, new RegExp(`\\[${n}/3\\] `), `progress line ${n} of 3`);
});

t.test('--local: an unsafe file denies (exit 1) and SARIF names the rule, file, line and column', async (t) => {
  const out = join(dir, 'out.sarif');
  const gh = join(dir, 'gh-out.txt');
  writeFileSync(gh, '');
  const r = await run(['verify', 'code', '--local', '--progress', '--format', 'sarif', '--output', out, safePy, unsafePy, unsafeJs], { GITHUB_OUTPUT: gh });
  t.equal(r.code, 1, r.stderr);
  t.match(r.stderr, /\[3\/3\]/, 'progress on stderr for several files, asked for');
  // stderr is a pipe here: without --progress the per-file lines are left out
  const quiet = await run(['verify', 'code', '--local', '--format', 'sarif', '--output', join(dir, 'quiet.sarif'), safePy, unsafePy, unsafeJs]);
  t.equal(quiet.code, 1, quiet.stderr);
  t.notMatch(quiet.stderr, /\[\d+\/3\]/, 'no progress lines when stderr is not a terminal');
  const sarif = JSON.parse(readFileSync(out, 'utf8'));
  const validate = sarifValidator();
  t.ok(validate(sarif), `valid SARIF 2.1.0: ${JSON.stringify(validate.errors)?.slice(0, 1000)}`);
  const results = sarif.runs[0].results as any[];
  const sys = results.find((x) => x.locations[0].physicalLocation.artifactLocation.uri === unsafePy && x.level === 'error');
  t.ok(sys, 'the os.system call is an error-level result');
  t.equal(sys.locations[0].physicalLocation.region.startLine, 4);
  t.ok(sys.locations[0].physicalLocation.region.startColumn >= 1);
  t.match(sys.partialFingerprints.primaryLocationLineHash, /^[0-9a-f]{64}$/);
  const rules = sarif.runs[0].tool.driver.rules as any[];
  t.equal(new Set(rules.map((x) => x.id)).size, rules.length, 'one rule per id');
  for (const rule of rules) {
    t.ok(rule.shortDescription.text && rule.fullDescription.text && rule.name, `${rule.id} is described`);
    t.match(rule.helpUri, /^https:\/\/.*docs\//, `${rule.id} points into docs/`);
  }
  t.ok(results.some((x) => x.locations[0].physicalLocation.artifactLocation.uri === unsafeJs), 'the JS eval is reported');
  const outputs = readFileSync(gh, 'utf8');
  t.match(outputs, /^verified=true$/m);
  t.match(outputs, /^admission=DENY$/m);
  t.match(outputs, /^findings_count=[1-9]\d*$/m);
  t.match(outputs, new RegExp(`^sarif_file=${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
});

t.test('--local: a safe file admits (exit 0) with a proof_ref output', async (t) => {
  const gh = join(dir, 'gh-ok.txt');
  writeFileSync(gh, '');
  const r = await run(['verify', 'code', '--local', safePy], { GITHUB_OUTPUT: gh });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /VERIFIED ADMIT/);
  t.equal(r.stderr, '', 'no progress lines for one file');
  const outputs = readFileSync(gh, 'utf8');
  t.match(outputs, /^verdict=VERIFIED$/m);
  t.match(outputs, /^admission=ADMIT$/m);
  t.match(outputs, /^proof_ref=sha256:[0-9a-f]{64}$/m);
  t.match(outputs, /^sarif_file=$/m);
});

t.test('--local math: one request per line; a false claim denies at its line', async (t) => {
  const ok = await run(['verify', 'math', '--local', '--format', 'json', trueMath]);
  t.equal(ok.code, 0, ok.stdout.slice(0, 3000));
  const j = JSON.parse(ok.stdout);
  t.same(j.results.map((x: any) => x.line), [1, 3], 'comment lines are skipped');
  t.equal(j.summary.admitted, true);
  const gh = join(dir, 'gh-math.txt');
  writeFileSync(gh, '');
  const bad = await run(['verify', 'math', '--local', '--format', 'sarif', falseMath], { GITHUB_OUTPUT: gh });
  t.equal(bad.code, 1);
  const sarif = JSON.parse(bad.stdout);
  t.same(sarif.runs[0].results.map((x: any) => x.locations[0].physicalLocation.region.startLine), [2]);
  // proven false is still VERIFIED (decisions §1): the proof exists, admission is what fails
  t.match(readFileSync(gh, 'utf8'), /^verified=true$/m);
  t.match(readFileSync(gh, 'utf8'), /^admission=DENY$/m);
  t.match(readFileSync(gh, 'utf8'), /^proof_ref=sha256:/m);
  // a line that cannot be checked (BLOCKED) is checked against the running sidecar below, which is
  // warm already: a run here would start a math engine of its own for it
});

t.test('--local sql: a tautology denies; --format vc gives documents', async (t) => {
  const bad = await run(['verify', 'sql', '--local', '--schema', schema, '--format', 'sarif', badSql]);
  t.equal(bad.code, 1, bad.stderr);
  const res = JSON.parse(bad.stdout).runs[0].results;
  t.ok(res.length >= 1, 'the tautology is a result');
  const good = await run(['verify', 'sql', '--local', '--schema', schema, '--format', 'vc', goodSql]);
  t.equal(good.code, 0, good.stderr);
  const docs = JSON.parse(good.stdout);
  t.equal(docs[0].document.spec_version, '1.0');
  // in-process there is no attestation key, so the trust gate demotes: never VERIFIED without a token
  t.equal(docs[0].document.verdict, 'UNVERIFIABLE');
});

t.test('usage and service errors exit 2', async (t) => {
  t.equal((await run(['verify', 'cobol', '--local', safePy])).code, 2, 'unknown kind');
  const usage: Array<[string[], RegExp, string]> = [
    [['code', '--local'], /at least one FILE/, 'no file'],
    [['code', '--local', '--format', 'xml', safePy], /--format text\|json\|sarif\|junit\|vc/, 'unknown format'],
    [['sql', '--local', goodSql], /--schema/, 'sql without --schema'],
    [['code', '--local', join(dir, 'missing.py')], /missing\.py does not exist/, 'missing file'],
    [['code', '--local', file('x.unknown', 'x')], /cannot tell the language/, 'unknown extension without --language'],
  ];
  for (const [args, why, what] of usage) {
    const r = await inProcess(t, args);
    t.equal(r.code, 2, what);
    t.match(r.stderr, why, `${what}: said on stderr`);
  }
  const noKey = await run(['verify', 'code', safePy]);
  t.equal(noKey.code, 2, 'remote mode needs PROOFGATE_API_KEY');
  t.match(noKey.stderr, /PROOFGATE_API_KEY/);
  const down = await run(['verify', 'code', '--url', 'http://127.0.0.1:9', safePy], { PROOFGATE_API_KEY: 'svc_live_' + 'a'.repeat(43) });
  t.equal(down.code, 2, 'a service that cannot be reached');
  t.match(down.stderr, /cannot reach/);
  const noEngines = await run(['verify', 'code', '--local', safePy], { TMPDIR: join(dir, 'missing-tmp') });
  t.equal(noEngines.code, 2, 'in-process engines that cannot start are a service error, not a denial');
  t.match(noEngines.stderr, /cannot run the engines in-process/);
  const badUrl = await run(['verify', 'code', '--url', 'ftp://127.0.0.1', safePy], { PROOFGATE_API_KEY: 'svc_live_' + 'a'.repeat(43) });
  t.equal(badUrl.code, 2, 'a --url the client refuses');
});

t.test('a --sarif path cannot add GitHub outputs of its own', async (t) => {
  const gh = join(dir, 'gh-inject.txt');
  writeFileSync(gh, '');
  for (const flag of ['--sarif', '--output']) {
    const r = await run(['verify', 'code', '--local', '--format', 'sarif', flag, join(dir, 'x.sarif\nadmission=ADMIT'), unsafePy], { GITHUB_OUTPUT: gh });
    t.equal(r.code, 2, `${flag} with a line break is a usage error`);
    t.match(r.stderr, /may not contain a line break/);
  }
  t.notMatch(readFileSync(gh, 'utf8'), /admission=ADMIT/, 'an unsafe file never reads as admitted');
});

t.test('against a running sidecar: the key from PROOFGATE_API_KEY, attested results become VERIFIED documents', async (t) => {
  const { builtinsWithEngines, startServer, untilReady } = await import('../helpers/server.js');
  const { ProofgateClient } = await import('../../packages/client/src/index.js');
  // the CLI calls /verify/math and /verify/code only: no other engine warms up beside it
  const s = await startServer({ plugins: builtinsWithEngines('math', 'code') });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const anon = new ProofgateClient({ baseUrl: s.url });
  const session = await anon.postAuthSignup({ email: `cli-${process.pid}-${Date.now()}@example.com`, password: 'correct horse battery', organization_name: `CLI ${process.pid} ${Date.now()}` });
  const key = await new ProofgateClient({ baseUrl: s.url, token: session.access_token }).postAuthApiKeys({ name: 'ci' });
  const env = { PROOFGATE_API_KEY: key.key };
  const vc = await run(['verify', 'math', '--url', s.url, '--format', 'vc', trueMath], env);
  t.equal(vc.code, 0, vc.stderr);
  const docs = JSON.parse(vc.stdout);
  t.same(docs.map((d: any) => d.document.verdict), ['VERIFIED', 'VERIFIED'], 'attested through the service');
  const code = await run(['verify', 'code', '--url', s.url, unsafePy], env);
  t.equal(code.code, 1);
  t.match(code.stdout, /unsafe\.py:4:\d+ CRITICAL/);
  // a line that cannot be checked is no proof: verified=false and no proof_ref (one summary for both modes)
  const gh = join(dir, 'gh-math-blocked.txt');
  writeFileSync(gh, '');
  const blocked = await run(['verify', 'math', '--url', s.url, file('blocked.math', '2 + 2 = 4\n2 +* = 3\n')], { ...env, GITHUB_OUTPUT: gh });
  t.equal(blocked.code, 1, blocked.stderr);
  t.match(readFileSync(gh, 'utf8'), /^verified=false$/m);
  t.notMatch(readFileSync(gh, 'utf8'), /proof_ref=/, 'no proof_ref unless every result is VERIFIED');
  const wrong = await run(['verify', 'code', '--url', s.url, safePy], { PROOFGATE_API_KEY: 'svc_live_' + 'b'.repeat(43) });
  t.equal(wrong.code, 2, 'a refused key is a service error');
  t.match(wrong.stderr, /401/);
});
