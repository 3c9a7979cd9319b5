// Runs tap test files as the plain Node programs they are, N at a time, and reports them as tap's
// runner does: each file's TAP output when it ends, `ok`/`not ok` per file, and the summary line
// `# { total, pass, fail }`, the sum of the files' own (.ci/run adds those up). Why not `tap` itself: its runner gives every test
// process two loader hooks (@tapjs/processinfo, which also records coverage, and @tapjs/mock), and on
// the a2a proxy test's process they cost 1.5 s of CPU beside 3.8 s of the test's own work
// (2026-12-07; neither is used here: coverage is off and no test mocks a module). Exit 1 when a file
// fails, times out or prints `not ok` outside a todo/skip.
//
// node test/runner.mjs [--jobs N] [--timeout SECONDS] [--node PATH] [--serial] [--save-order] [file ...] (from the repository root)
// Without files: every dist/test/**/*.test.js, the *.serial.test.js ones only with --serial.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const [value] = argv.splice(at, 2).slice(1);
  return value;
};
const flag = (name) => {
  const at = argv.indexOf(name);
  if (at >= 0) argv.splice(at, 1);
  return at >= 0;
};
// defaults: package.json's tap settings, which an ad-hoc `npx tap <file>` run uses too
const tapConfig = JSON.parse(readFileSync('package.json', 'utf8')).tap ?? {};
const jobs = Number(opt('--jobs', String(tapConfig.jobs ?? 3)));
const timeoutS = Number(opt('--timeout', String(tapConfig.timeout ?? 120)));
const node = opt('--node', process.execPath);
const serial = flag('--serial');
const saveOrder = flag('--save-order');

function testFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (e.name.endsWith('.test.js') && e.name.endsWith('.serial.test.js') === serial) out.push(p);
  }
  return out;
}

const files = (argv.length ? argv : testFiles('dist/test')).map((f) => relative(process.cwd(), f)).sort();
// longest first (the last run's times), so the slowest file does not start last and run alone. A
// fresh checkout (CI's every run) has no last run: test/test-times.json, a run's times committed
// with the tests, to the second (refresh it with --save-order), orders it instead of the alphabet, which started
// the packaging and browser tests, ~50 s each, in the last minute of the parallel phase. A file
// neither names runs among the longest: a new test is more often slow than not.
const timesFile = '.tap/test-times.json';
const committedTimes = 'test/test-times.json';
const readTimes = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
};
const lastTimes = readTimes(timesFile) ?? readTimes(committedTimes) ?? {};
const unknown = Math.max(0, ...Object.values(lastTimes));
const queue = [...files].sort((a, b) => (lastTimes[b] ?? unknown) - (lastTimes[a] ?? unknown) || a.localeCompare(b));

const totals = { total: 0, pass: 0, fail: 0, todo: 0, skip: 0 };
const failedFiles = [];
const times = { ...lastTimes };
let done = 0;
const started = performance.now();
console.log('TAP version 14');
console.log(`1..${files.length}`);

// tap's own count of the file: the summary line it prints at its top level when it ends
// (`# { total: 5, pass: 3, todo: 1, skip: 1 }`); a file that failed without a failure in it (no
// summary, an error after its last test, a signal) counts one failure more, so the sum never says
// "0 failed" of a run that failed
function count(output, ok) {
  const lines = output.match(/^# \{ total: \d+[^\n]*\}$/gm);
  const own = { total: 0, pass: 0, fail: 0, todo: 0, skip: 0 };
  if (lines) for (const [, key, n] of lines[lines.length - 1].matchAll(/(\w+): (\d+)/g)) if (key in own) own[key] += Number(n);
  if (!ok && own.fail === 0) {
    own.total++;
    own.fail++;
  }
  for (const key of Object.keys(totals)) totals[key] += own[key];
}

function runOne(file) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(node, ['--enable-source-maps', file], {
      env: { ...process.env, TAP_TIMEOUT: String(timeoutS) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    // tap's own timeout ends a stuck test inside the file; this ends a file that does not exit after it
    const killer = setTimeout(() => child.kill('SIGKILL'), (timeoutS + 30) * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      const ms = performance.now() - t0;
      times[file] = Math.round(ms);
      const output = Buffer.concat(chunks).toString('utf8');
      const topFailed = /^not ok \d+\b(?!.*#\s*(todo|skip)\b)/im.test(output);
      const ok = code === 0 && !signal && !topFailed;
      count(output, ok);
      if (!ok) failedFiles.push(file);
      done++;
      console.log(`# Subtest: ${file}`);
      process.stdout.write(output.replace(/^(?=.)/gm, '    '));
      if (!output.endsWith('\n')) console.log();
      const why = ok ? '' : ` # exit ${signal ?? code}`;
      console.log(`${ok ? 'ok' : 'not ok'} ${done} - ${file} # time=${ms.toFixed(3)}ms${why}`);
      console.log();
      resolve();
    });
  });
}

async function worker() {
  for (let f = queue.shift(); f; f = queue.shift()) await runOne(f);
}
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));

mkdirSync('.tap', { recursive: true });
writeFileSync(timesFile, JSON.stringify(times));
// the committed order keeps the files that exist, to the second: it changes when the order does
if (saveOrder) {
  const saved = { ...(readTimes(committedTimes) ?? {}) };
  for (const f of files) saved[f] = Math.round(times[f] / 1000) * 1000;
  const kept = Object.fromEntries(Object.entries(saved).filter(([f]) => existsSync(f)).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(committedTimes, JSON.stringify(kept, null, 1) + '\n');
}
console.log(`# { total: ${totals.total}, pass: ${totals.pass}, fail: ${totals.fail}${totals.todo ? `, todo: ${totals.todo}` : ''}${totals.skip ? `, skip: ${totals.skip}` : ''} }`);
console.log(`# time=${(performance.now() - started).toFixed(3)}ms`);
for (const f of failedFiles) console.log(`# failed file: ${f}`);
process.exitCode = failedFiles.length ? 1 : 0;
