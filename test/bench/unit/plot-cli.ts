import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../../helpers/child.js';
import { findAll, parseXml, textOf } from '../../helpers/xml.js';

/**
 * `npm run bench -- plot`: an earlier run's bench-results.json drawn again by the bench's own entry
 * point (dist/bench/run.js, what the npm script runs after compiling), as a user runs it.
 */
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const RUN = join(repo, 'dist', 'bench', 'run.js');
const FIXTURE = join(repo, 'test', 'fixtures', 'bench', 'http-results.json');

function plot(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const [file, argv] = nodeCommand([RUN, 'plot', ...args]);
  const base = { ...process.env };
  delete base.BENCH_PLOT;
  return new Promise((resolve) => {
    execFile(file, argv, { env: { ...base, ...env }, cwd: repo }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
  });
}

t.test('re-plotting a results file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'proofgate-plot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const results = join(dir, 'bench-results.json');
  writeFileSync(results, readFileSync(FIXTURE));
  const noHttp = join(dir, 'engines.json');
  writeFileSync(noHttp, JSON.stringify({ at: '2026-12-02T03:42:10Z', node: 'v22', engines: [], http: null }));
  const badRow = join(dir, 'bad-row.json');
  writeFileSync(badRow, JSON.stringify({ http: { rows: [{ target: 'a', concurrency: '8', rps: 1, p99_ms: 1 }] } }));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"http": {"rows": [');
  const env = join(dir, 'from-env.svg');
  const out = join(dir, 'from-out.svg');
  const [beside, viaEnv, viaOut, none, wrongShape, notJson, missing, usage] = await Promise.all([
    plot(['--from', results]),
    plot([`--from=${results}`], { BENCH_PLOT: env }),
    plot(['--from', results, '--out', out], { BENCH_PLOT: join(dir, 'not-this.svg') }),
    plot(['--from', noHttp, '--out', join(dir, 'none.svg')]),
    plot(['--from', badRow, '--out', join(dir, 'bad.svg')]),
    plot(['--from', broken, '--out', join(dir, 'broken.svg')]),
    plot(['--from', join(dir, 'absent.json'), '--out', join(dir, 'absent.svg')]),
    plot(['--from', results, '--colour', 'red']),
  ]);

  t.equal(beside.code, 0, beside.stderr);
  const svg = parseXml(readFileSync(join(dir, 'bench-http.svg'), 'utf8'));
  t.match(beside.stdout, /plot: .*bench-http\.svg/, 'says where it wrote');
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { commit: string; machine: { hostname: string }; http: { rows: Array<{ target: string }> } };
  const targets = [...new Set(fixture.http.rows.map((r) => r.target))];
  for (const panel of ['rps', 'p99']) {
    const g = findAll(svg, 'g').find((e) => e.attrs['data-panel'] === panel)!;
    t.same(findAll(g, 'polyline').map((l) => l.attrs['data-target']), targets, `${panel}: every target of the file, once`);
  }
  const title = findAll(svg, 'text').slice(0, 2).map(textOf).join(' ');
  t.ok(title.includes(fixture.commit) && title.includes(fixture.machine.hostname), 'the title names the commit and machine recorded with the run');

  t.equal(viaEnv.code, 0, viaEnv.stderr);
  t.ok(existsSync(env), 'BENCH_PLOT names the file');
  t.equal(viaOut.code, 0, viaOut.stderr);
  t.ok(existsSync(out) && !existsSync(join(dir, 'not-this.svg')), '--out over BENCH_PLOT');
  t.equal(readFileSync(out, 'utf8'), readFileSync(env, 'utf8'), 'the same results draw the same SVG');

  t.equal(none.code, 1);
  t.match(none.stderr, /no HTTP rows/);
  t.equal(wrongShape.code, 1);
  t.match(wrongShape.stderr, /row 0/);
  t.equal(notJson.code, 1);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /cannot read/);
  for (const f of ['none.svg', 'bad.svg', 'broken.svg', 'absent.svg']) t.notOk(existsSync(join(dir, f)), `${f}: nothing written when the results cannot be drawn`);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /usage: .*--colour/);
});
