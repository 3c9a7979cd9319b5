import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/**
 * test/runner.mjs, which `npm test` runs every test file through: a file fails the run when it fails
 * an assertion, exits non-zero after its last test or outlives its timeout, and the summary line
 * (.ci/run adds those up) is the sum of the files' own. The fixtures are plain tap files that no
 * run of the suite picks up (test/fixtures/runner/, not compiled, not named *.test.js).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = (name: string): string => join('test', 'fixtures', 'runner', `${name}.mjs`);

function runner(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['test/runner.mjs', ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

t.test('a passing file passes; a todo is counted apart, not as a failure', async (t) => {
  const r = await runner([fixture('passes')]);
  t.equal(r.code, 0, r.out);
  t.match(r.out, /^ok 1 - test\/fixtures\/runner\/passes\.mjs # time=/m);
  t.match(r.out, /^# \{ total: 4, pass: 3, fail: 0, todo: 1 \}$/m, "the file's own count");
});

t.test('one failing assertion fails the run and names the file', async (t) => {
  const r = await runner(['--jobs', '2', fixture('passes'), fixture('fails')]);
  t.equal(r.code, 1);
  t.match(r.out, /^not ok \d - test\/fixtures\/runner\/fails\.mjs # time=[\d.]+ms # exit 1$/m);
  t.match(r.out, /^ok \d - test\/fixtures\/runner\/passes\.mjs/m);
  t.match(r.out, /^# \{ total: 6, pass: 4, fail: 1, todo: 1 \}$/m, 'both files\' own counts, added');
  t.match(r.out, /^# failed file: test\/fixtures\/runner\/fails\.mjs$/m);
  t.match(r.out, /^ {4}# Subtest: mixed$/m, "the file's own TAP, indented under it");
});

t.test('an error after the last test fails the file though every assertion passed', async (t) => {
  const r = await runner([fixture('throws-late')]);
  t.equal(r.code, 1);
  t.match(r.out, /^not ok 1 - test\/fixtures\/runner\/throws-late\.mjs/m);
  t.match(r.out, /^# \{ total: \d+, pass: \d+, fail: [1-9]\d* \}$/m, 'the summary never says 0 failed of a failed run');
});

t.test('a test that outlives the timeout fails its file, and the run ends', async (t) => {
  const r = await runner(['--timeout', '2', fixture('hangs')]);
  t.equal(r.code, 1);
  t.match(r.out, /^not ok 1 - test\/fixtures\/runner\/hangs\.mjs/m);
  t.match(r.out, /timeout/i, 'tap inside the file reports the timeout');
});
