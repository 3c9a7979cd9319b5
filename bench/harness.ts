import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What every engine adapter in bench/engines/ exports. */
export interface EngineAdapter {
  corpus: string;
  setup(): Promise<void>;
  /** drops every per-process cache of the engine, so each timed pass redoes all the work */
  reset?(): void;
  op(line: any): Promise<unknown>;
  judge(line: any, output: unknown): Outcome;
}

export type Outcome = 'correct' | 'wrong' | 'error';
export type Scored = Outcome | 'crash';

export interface EngineReport {
  engine: string;
  lines: number;
  ops_per_sec: number;
  /**
   * lines per second of process CPU time (all threads), median of the passes: on a shared machine
   * wall time also counts the time other processes held the cores; CPU time mostly does not
   */
  cpu_ops_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  correct: number;
  wrong: number;
  error: number;
  crash: number;
  by_tag: Record<string, Record<Scored, number>>;
  /** per corpus tag: lines, ops/s (median over passes), p50/p99 over all timed latencies of the tag */
  speed_by_tag: Record<string, TagSpeed>;
  /** timed passes run (`--repeat N`, default 3); ops_per_sec is their median */
  passes: number;
  /** untimed passes run before the timed ones (the first is the scored one; `--warm S` seconds, default 3) */
  warm_passes: number;
  /** every pass redoes the work: engine caches are dropped before each pass (adapter.reset) */
  caching: 'none across passes';
  wrong_ids: string[];
}

export interface TagSpeed {
  lines: number;
  ops_per_sec: number;
  p50_ms: number;
  p99_ms: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return 0;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

function tagsOf(line: { tags?: string[] }): string[] {
  return (line.tags ?? []).filter((t) => !t.includes(':'));
}

/**
 * The benchmark corpus: $BENCH_CORPUS_DIR when set, else the checked copy in bench/corpus, so a
 * clone that has nothing beside it still runs the corpus tests and `npm run bench`. The copy is
 * compared with the shared original by a test wherever that original is laid out beside the clone.
 */
export function corpusDir(): string {
  const dir = process.env.BENCH_CORPUS_DIR || fileURLToPath(new URL('../../bench/corpus/', import.meta.url));
  if (!existsSync(join(dir, 'README.md'))) throw new Error(`benchmark corpus not found in ${dir} (set BENCH_CORPUS_DIR)`);
  return dir;
}

/** The lines of one corpus file, parsed. */
export function corpusLines(file: string): any[] {
  return readCorpus(corpusDir(), file);
}

export function readCorpus(dir: string, file: string): any[] {
  return readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * The corpus README's method: single thread, warm; untimed passes, then N timed passes (3 unless
 * `--repeat N`); ops/s = lines / summed op time per pass, median of the passes; p50/p99 over all
 * timed latencies. The same per corpus tag. Verdicts are scored on the first untimed pass (engines
 * are deterministic; timed passes re-check that). Before every pass the adapter drops the engine's
 * caches, so no result or parsed input is reused from one pass to the next.
 *
 * "Warm" for V8 means the engines' hot code is optimised: one pass of ~50 ms is not enough (code's
 * passes ran 333, 749, 1,192, 1,588, 1,962 … ~2,500 ops/s before settling), so the timed passes
 * measured JIT tiers, not the engines; sql's generated parser was still being compiled by Turbofan
 * after 20 passes (2,900 ops/s, 6,000 after 40). Untimed passes run until `warmSeconds` have passed
 * (default 3, as a long-running sidecar is); they redo the work like any pass (caches dropped), so
 * nothing they compute is reused.
 */
export async function benchEngine(name: string, adapter: EngineAdapter, corpusDir: string, passes = 3, warmSeconds = 3): Promise<EngineReport> {
  const lines = readCorpus(corpusDir, adapter.corpus);
  await adapter.setup();
  const counts: Record<Scored, number> = { correct: 0, wrong: 0, error: 0, crash: 0 };
  const byTag: Record<string, Record<Scored, number>> = {};
  const wrongIds: string[] = [];
  adapter.reset?.();
  for (const line of lines) {
    let outcome: Scored;
    try {
      outcome = adapter.judge(line, await adapter.op(line));
    } catch {
      outcome = 'crash';
    }
    counts[outcome]++;
    if (outcome === 'wrong') wrongIds.push(line.id);
    for (const tag of tagsOf(line)) {
      byTag[tag] ??= { correct: 0, wrong: 0, error: 0, crash: 0 };
      byTag[tag][outcome]++;
    }
  }
  // the warm-up's seconds count from the end of the scored pass
  const warmStart = performance.now();
  let warm = 1;
  for (; performance.now() - warmStart < warmSeconds * 1000; warm++) {
    adapter.reset?.();
    for (const line of lines) {
      try {
        await adapter.op(line);
      } catch {
        /* scored above */
      }
    }
  }
  const passRates: number[] = [];
  const cpuRates: number[] = [];
  const latencies: number[] = [];
  const tagRates: Record<string, number[]> = {};
  const tagLatencies: Record<string, number[]> = {};
  for (let pass = 0; pass < passes; pass++) {
    adapter.reset?.();
    const cpu0 = process.cpuUsage();
    let total = 0;
    const tagTotal: Record<string, number> = {};
    const tagLines: Record<string, number> = {};
    for (const line of lines) {
      const t0 = process.hrtime.bigint();
      try {
        await adapter.op(line);
      } catch {
        /* counted as a crash in the scoring pass */
      }
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      total += ms;
      latencies.push(ms);
      for (const tag of tagsOf(line)) {
        tagTotal[tag] = (tagTotal[tag] ?? 0) + ms;
        tagLines[tag] = (tagLines[tag] ?? 0) + 1;
        (tagLatencies[tag] ??= []).push(ms);
      }
    }
    passRates.push(lines.length / (total / 1000));
    const cpu = process.cpuUsage(cpu0);
    cpuRates.push(lines.length / ((cpu.user + cpu.system) / 1e6));
    for (const tag of Object.keys(tagTotal)) (tagRates[tag] ??= []).push(tagLines[tag] / (tagTotal[tag] / 1000));
  }
  latencies.sort((a, b) => a - b);
  const speedByTag: Record<string, TagSpeed> = {};
  for (const tag of Object.keys(tagRates).sort()) {
    const lat = tagLatencies[tag].sort((a, b) => a - b);
    speedByTag[tag] = {
      lines: lat.length / passes,
      ops_per_sec: round(median(tagRates[tag]), 1),
      p50_ms: round(percentile(lat, 50), 3),
      p99_ms: round(percentile(lat, 99), 3),
    };
  }
  return {
    engine: name,
    lines: lines.length,
    ops_per_sec: round(median(passRates), 1),
    cpu_ops_per_sec: round(median(cpuRates), 1),
    p50_ms: round(percentile(latencies, 50), 3),
    p99_ms: round(percentile(latencies, 99), 3),
    ...counts,
    by_tag: byTag,
    speed_by_tag: speedByTag,
    passes,
    warm_passes: warm,
    caching: 'none across passes',
    wrong_ids: wrongIds,
  };
}

/**
 * `--repeat N` (timed passes, default 3, at least 1) and `--warm S` (seconds of untimed passes
 * first, default 3; 0 leaves only the scored pass) from the command line; the rest of the
 * arguments are returned.
 */
export function repeatOption(argv: string[]): { passes: number; warm: number; rest: string[] } {
  const rest: string[] = [];
  const opts = { repeat: 3, warm: 3 };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(repeat|warm)(?:=(\d+))?$/.exec(argv[i]);
    if (!m) {
      rest.push(argv[i]);
      continue;
    }
    const v = Number(m[2] ?? argv[++i]);
    if (!Number.isInteger(v) || v < (m[1] === 'repeat' ? 1 : 0)) throw new Error(`--${m[1]} needs a whole number ≥ ${m[1] === 'repeat' ? 1 : 0}`);
    opts[m[1] as 'repeat' | 'warm'] = v;
  }
  return { passes: opts.repeat, warm: opts.warm, rest };
}
