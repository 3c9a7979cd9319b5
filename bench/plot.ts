import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plotSvg, type PlotMeta, type PlotRow } from './plot-svg.js';

/**
 * The plot's file I/O: the run's facts (commit, machine) recorded beside the rows, the path the
 * SVG goes to, and `npm run bench -- plot --from bench-results.json [--out FILE]`, which draws
 * an earlier run's results again without running anything.
 */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface RunInfo {
  commit: string;
  machine: PlotMeta['machine'];
}

/** what a figure is quoted with: the commit it measured (with -dirty when the tree differed) and the machine */
export function runInfo(): RunInfo {
  let commit = 'unknown';
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    commit = git(['rev-parse', '--short', 'HEAD']);
    if (git(['status', '--porcelain', '--untracked-files=no'])) commit += '-dirty';
  } catch {
    // not a git checkout (an npm install): the figure is still quoted, with its commit unknown
  }
  return { commit, machine: { hostname: hostname(), cores: availableParallelism(), node: process.version, cpu: cpus()[0]?.model?.trim() } };
}

/** BENCH_PLOT when set, else bench-http.svg beside the results file */
export function plotPath(resultsFile: string): string {
  return process.env.BENCH_PLOT || join(dirname(resultsFile), 'bench-http.svg');
}

const str = (v: unknown, fallback: string) => (typeof v === 'string' && v ? v : fallback);

/**
 * The SVG of a bench-results.json as `npm run bench -- http` writes it. Fails (throws) on a file
 * without HTTP rows or with rows of the wrong shape rather than draw an empty or made-up chart;
 * results written before the run's facts were recorded are drawn with them marked unknown.
 */
export function plotResults(results: unknown): string {
  const r = (results ?? {}) as Record<string, unknown>;
  const http = r.http as { rows?: unknown } | null | undefined;
  if (!http || !Array.isArray(http.rows) || http.rows.length === 0) throw new Error('no HTTP rows in these results (written by `npm run bench -- http`?)');
  const rows: PlotRow[] = http.rows.map((row: unknown, i: number) => {
    const o = row as Record<string, unknown> | null;
    if (!o || typeof o !== 'object' || typeof o.target !== 'string' || typeof o.concurrency !== 'number') throw new Error(`row ${i} is not a {target, concurrency, rps, p99_ms} row`);
    // JSON writes NaN as null: a missing value, listed under the chart rather than drawn
    const num = (v: unknown) => (typeof v === 'number' ? v : v === null || v === undefined ? null : NaN);
    return { target: o.target, concurrency: o.concurrency, rps: num(o.rps), p99_ms: num(o.p99_ms), refused_share: typeof o.refused_share === 'number' ? o.refused_share : null };
  });
  const m = (r.machine ?? {}) as Record<string, unknown>;
  return plotSvg(rows, {
    at: str(r.at, 'unknown date'),
    commit: str(r.commit, 'unknown'),
    machine: { hostname: str(m.hostname, 'unknown machine'), cores: typeof m.cores === 'number' ? m.cores : null, node: str(m.node, str(r.node, '?')), cpu: typeof m.cpu === 'string' ? m.cpu : undefined },
  });
}

/** writes the plot of `results` (already written to `resultsFile`) and says where */
export function writePlot(results: unknown, resultsFile: string): string {
  const file = plotPath(resultsFile);
  writeFileSync(file, plotResults(results));
  console.log(`plot: ${file}`);
  return file;
}

/** `plot [--from FILE] [--out FILE]`: exit status 0 when the SVG was written, 1 when the results could not be drawn, 2 on usage */
export function plotCli(argv: string[]): number {
  let from = 'bench-results.json';
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(from|out)(?:=(.*))?$/.exec(argv[i]);
    const v = m ? (m[2] ?? argv[++i]) : undefined;
    if (!m || !v) {
      console.error(`usage: npm run bench -- plot [--from bench-results.json] [--out FILE] (unexpected: ${argv[i] ?? 'a missing value'})`);
      return 2;
    }
    if (m[1] === 'from') from = v;
    else out = v;
  }
  let results: unknown;
  try {
    results = JSON.parse(readFileSync(from, 'utf8'));
  } catch (err) {
    console.error(`plot: cannot read ${from}: ${(err as Error).message}`);
    return 1;
  }
  try {
    const svg = plotResults(results);
    const file = out ?? plotPath(from);
    writeFileSync(file, svg);
    console.log(`plot: ${file}`);
    return 0;
  } catch (err) {
    console.error(`plot: ${from}: ${(err as Error).message}`);
    return 1;
  }
}
