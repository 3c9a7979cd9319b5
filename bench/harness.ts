import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What every engine adapter in bench/engines/ exports. */
export interface EngineAdapter {
  corpus: string;
  setup(): Promise<void>;
  op(line: any): Promise<unknown>;
  judge(line: any, output: unknown): Outcome;
}

export type Outcome = 'correct' | 'wrong' | 'error';
export type Scored = Outcome | 'crash';

export interface EngineReport {
  engine: string;
  lines: number;
  ops_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  correct: number;
  wrong: number;
  error: number;
  crash: number;
  by_tag: Record<string, Record<Scored, number>>;
  wrong_ids: string[];
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
 * The corpus README's method: single thread, warm; one untimed pass, then 3 timed passes;
 * ops/s = lines / summed op time per pass, median of the 3; p50/p99 over all timed latencies.
 * Verdicts are scored on the untimed pass (engines are deterministic; timed passes re-check that).
 */
export async function benchEngine(name: string, adapter: EngineAdapter, corpusDir: string): Promise<EngineReport> {
  const lines = readCorpus(corpusDir, adapter.corpus);
  await adapter.setup();
  const counts: Record<Scored, number> = { correct: 0, wrong: 0, error: 0, crash: 0 };
  const byTag: Record<string, Record<Scored, number>> = {};
  const wrongIds: string[] = [];
  const outcomes: Scored[] = [];
  for (const line of lines) {
    let outcome: Scored;
    try {
      outcome = adapter.judge(line, await adapter.op(line));
    } catch {
      outcome = 'crash';
    }
    outcomes.push(outcome);
    counts[outcome]++;
    if (outcome === 'wrong') wrongIds.push(line.id);
    for (const tag of (line.tags ?? []) as string[]) {
      if (tag.includes(':')) continue;
      byTag[tag] ??= { correct: 0, wrong: 0, error: 0, crash: 0 };
      byTag[tag][outcome]++;
    }
  }
  const passRates: number[] = [];
  const latencies: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    let total = 0;
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
    }
    passRates.push(lines.length / (total / 1000));
  }
  passRates.sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  return {
    engine: name,
    lines: lines.length,
    ops_per_sec: Math.round(passRates[1] * 10) / 10,
    p50_ms: Math.round(percentile(latencies, 50) * 1000) / 1000,
    p99_ms: Math.round(percentile(latencies, 99) * 1000) / 1000,
    ...counts,
    by_tag: byTag,
    wrong_ids: wrongIds,
  };
}
