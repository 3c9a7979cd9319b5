import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 43: `proofgate verify code DIR` walks the directory (it answered EISDIR), within bounds and
 * the checkout's own rules; `--format junit` is JUnit XML; every usage error names what to change.
 * All through the built CLI, as CI runs it.
 */
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));

const outside = tempDir(t, 'proofgate-walk-outside-');
const dir = tempDir(t, 'proofgate-walk-');

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = { ...process.env };
    delete clean.PROOFGATE_API_KEY;
    delete clean.GITHUB_OUTPUT;
    execFile(...nodeCommand([CLI, ...args]), { env: { ...clean, ...env }, cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const put = (rel: string, text: string) => {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
};
const SAFE = 'def add(a, b):\n    return a + b\n';
put('src/app.py', SAFE);
put('src/lib/util.py', SAFE);
put('src/notes.txt', 'not code');
put('src/gen/built.py', 'import os\nos.system(input())\n');
put('src/.gitignore', 'gen/\n');
put('.gitignore', '*.tmp.py\n');
put('src/scratch.tmp.py', 'import os\nos.system(input())\n');
put('node_modules/dep/index.py', 'import os\nos.system(input())\n');
put('.git/hooks/x.py', 'import os\nos.system(input())\n');
put('vendor/v.py', 'import os\nos.system(input())\n');
writeFileSync(join(outside, 'secret.py'), 'TOKEN = "do-not-send"\n');

t.test('a directory is walked: .git, node_modules and .gitignore skipped, --include/--exclude applied', async (t) => {
  const r = await run(['verify', 'code', '--local', '--format', 'json', '--exclude', 'vendor', '.']);
  t.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  t.same(j.results.map((x: { file: string }) => x.file), ['./src/app.py', './src/lib/util.py'], 'only the files the checkout does not exclude, in name order');
  t.type(j.summary.proof_ref, 'string', 'the summary says proof_ref, as the API does');
  t.notOk('proofRef' in j.summary);

  const vendor = await run(['verify', 'code', '--local', '--format', 'json', '.']);
  t.equal(vendor.code, 1, 'without --exclude the vendored unsafe file is read and denies');
  t.ok(JSON.parse(vendor.stdout).results.some((x: { file: string }) => x.file === './vendor/v.py'));

  const only = await run(['verify', 'code', '--local', '--format', 'json', '--include', 'src/lib/**', 'src']);
  t.equal(only.code, 0, only.stderr);
  t.same(JSON.parse(only.stdout).results.map((x: { file: string }) => x.file), ['src/lib/util.py']);

  const none = await run(['verify', 'code', '--local', '--include', '*.rs', 'src']);
  t.equal(none.code, 2);
  t.match(none.stderr, /no code files found in src/);

  const cap = await run(['verify', 'code', '--local', '--exclude', 'vendor', '--max-files', '1', '.']);
  t.equal(cap.code, 2, 'past --max-files nothing runs');
  t.match(cap.stderr, /more than 1 files to verify: narrow the run with --include\/--exclude/);
});

t.test('symlinks met in a walk: out of the root denied and not read, directories not entered', async (t) => {
  const d = tempDir(t, 'proofgate-walk-links-');
  mkdirSync(join(d, 'src'));
  writeFileSync(join(d, 'src', 'ok.py'), SAFE);
  symlinkSync(join(outside, 'secret.py'), join(d, 'src', 'leak.py'));
  symlinkSync(outside, join(d, 'src', 'outdir'));
  symlinkSync(join(d, 'src'), join(d, 'src', 'loop'));
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(...nodeCommand([CLI, 'verify', 'code', '--local', '--format', 'json', 'src']), { cwd: d, timeout: 60_000, env: { ...process.env, PROOFGATE_API_KEY: '' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
  t.equal(r.code, 1, 'a link out of the root denies the run');
  const j = JSON.parse(r.stdout);
  t.same(j.results.map((x: { file: string; admitted: boolean }) => [x.file, x.admitted]), [['src/leak.py', false], ['src/ok.py', true]], 'the loop and the linked directory are not entered');
  t.match(j.results[0].findings[0].message, /resolves outside the root/);
  t.notMatch(r.stdout, /do-not-send/, 'the target is never read');
});

t.test('--format junit is JUnit XML, with failures, errors and escaping', async (t) => {
  put('j/bad<&>.py', 'import os\n\ndef run(cmd):\n    os.system(cmd)\n');
  put('j/good.py', SAFE);
  symlinkSync(join(outside, 'secret.py'), join(dir, 'j', 'leak.py'));
  const r = await run(['verify', 'code', '--local', '--format', 'junit', 'j']);
  t.equal(r.code, 1);
  const xml = r.stdout;
  t.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="proofgate" tests="3" failures="1" errors="1" skipped="0">/);
  t.match(xml, /<testcase classname="proofgate\.verify\.code" name="j\/bad&lt;&amp;&gt;\.py:1" file="j\/bad&lt;&amp;&gt;\.py" line="1">/);
  t.match(xml, /<failure message="[^"]*DENY[^"]*" type="[^"]+">j\/bad&lt;&amp;&gt;\.py:4:/);
  t.match(xml, /<testcase [^>]*name="j\/good\.py:1"[^>]*\/>/, 'an admitted file passes');
  t.match(xml, /<error message="UNVERIFIABLE DENY: not read: j\/leak\.py resolves outside the root/);
  // well-formed: every element closes in order, no raw & or < in text or attributes
  const stack: string[] = [];
  for (const m of xml.replace(/^<\?xml[^>]*\?>/, '').matchAll(/<(\/?)([A-Za-z]+)((?:\s+[a-z_]+="[^"<&]*(?:&(?:amp|lt|gt|quot|apos);[^"<&]*)*")*)\s*(\/?)>/g)) {
    if (m[1]) t.equal(stack.pop(), m[2], `</${m[2]}> closes its element`);
    else if (!m[4]) stack.push(m[2]);
  }
  t.same(stack, [], 'every element closed');
  t.notMatch(xml.replace(/&(?:amp|lt|gt|quot|apos);/g, ''), /&/, 'no unescaped ampersand');
});

t.test('usage errors name the flag or value and what to do', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['verify', 'code', '--local', '--fromat', 'json', 'src'], /Unknown option '--fromat' \(did you mean --format\?\)/],
    [['verify', 'code', '--local', '--format', 'junt', 'src'], /unknown --format "junt" \(did you mean junit\?\)/],
    [['verify', 'cod', '--local', 'src'], /unknown kind "cod" \(did you mean code\?\)/],
    [['verify', 'code', '--local', 'missing.py'], /file missing\.py does not exist \(check the path/],
    [['verify', 'code', '--local', '--max-files', 'lots', 'src'], /--max-files "lots" is not a whole number/],
    [['verify', 'code', '--local', '--schema'], /option --schema needs a value/],
    [['verfy', 'code'], /unknown command verfy \(did you mean verify\?\)/],
    [['attestation', 'verfy'], /unknown command attestation \(did you mean attestation verify\?\)/],
    [['orgs'], /unknown command orgs \(did you mean orgs set-plan or orgs set-role or orgs list\?\)/],
  ];
  for (const [args, why] of cases) {
    const r = await run(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, why, args.join(' '));
    t.notMatch(r.stderr, /ENOENT|lstat|at .*\.js:\d+/, 'no raw node error or stack');
  }
  const noKey = await run(['verify', 'code', 'src']);
  t.equal(noKey.code, 2);
  t.match(noKey.stderr, /no API key: set PROOFGATE_API_KEY .* or use --local/);
  const down = await run(['verify', 'code', '--url', 'http://127.0.0.1:9', 'src'], { PROOFGATE_API_KEY: 'svc_live_' + 'a'.repeat(43) });
  t.equal(down.code, 2);
  t.match(down.stderr, /cannot reach the service at http:\/\/127\.0\.0\.1:9: .*is proofgate running there\?/);
  for (const cmd of [['verify'], ['attestation', 'verify'], ['a2a', 'verify-verdict'], ['audit', 'verify']]) {
    const h = await run([...cmd, '--help']);
    t.equal(h.code, 0, `${cmd.join(' ')} --help`);
    t.match(h.stdout, new RegExp(`proofgate ${cmd.join(' ')}`));
  }
});
