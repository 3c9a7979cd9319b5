import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface PoolTarget {
  name: string;
  path: string;
  bodies: string[];
  method?: 'GET' | 'POST';
}

type Drive<T> = (url: string, t: T, key: string, concurrency: number, o: { seconds: number }) => Promise<{ requests: number; rps: number; p50_ms: number; p99_ms: number; statuses: Record<string, number> }>;

export interface PoolBenchDeps<T extends PoolTarget> {
  targets: T[];
  conc: number[];
  drive: Drive<T>;
  startSidecar(dataDir: string, disabled: string[], nodeArgs: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string; key: string }>;
  until(url: string, child: ChildProcess): Promise<void>;
  stop(child: ChildProcess): Promise<void>;
  cpuSeconds(pid: number, tid?: number): number;
  seconds: number;
  warmSeconds: number;
  sidecarWarmSeconds: number;
}

export interface PoolRow {
  pool: 'own' | 'piscina';
  round: number;
  target: string;
  concurrency: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  main_cpu_us: number;
  process_cpu_us: number;
  statuses: Record<string, number>;
}

const POOLS = ['own', 'piscina'] as const;
/** BENCH_POOL_ROUNDS: how many times each (target, concurrency) row runs on each pool, alternating which goes first */
const ROUNDS = Number(process.env.BENCH_POOL_ROUNDS ?? 2);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return Math.round(m * 10) / 10;
};

/**
 * `BENCH_POOL=piscina npm run bench -- http`: the kernel's own worker pool against piscina run
 * without per-task abort signals (core/workers/piscina-pools.ts), two sidecars side by side, the
 * same targets and bodies. Rows alternate between the two (the first pool of each round swaps), so
 * a machine whose load drifts during the run weighs on both alike. Nothing here asserts on time.
 */
export async function runPoolBench<T extends PoolTarget>(d: PoolBenchDeps<T>): Promise<{ rows: PoolRow[]; summary: object[] }> {
  const root = mkdtempSync(join(tmpdir(), 'proofgate-bench-pools-'));
  const sidecars = new Map<(typeof POOLS)[number], { child: ChildProcess; url: string; key: string }>();
  const rows: PoolRow[] = [];
  try {
    for (const pool of POOLS) {
      const sc = await d.startSidecar(join(root, pool), [], [], pool === 'piscina' ? { BENCH_POOL: 'piscina' } : {});
      sidecars.set(pool, sc);
      await d.until(`${sc.url}/readyz`, sc.child);
    }
    console.log(`pool comparison: own pool vs piscina without per-task signals; warm-up ${d.sidecarWarmSeconds} s per target at c=32 on each, then ${d.warmSeconds} s + ${d.seconds} s per row, ${ROUNDS} rounds`);
    for (const t of d.targets) for (const pool of POOLS) if (d.sidecarWarmSeconds > 0) await d.drive(sidecars.get(pool)!.url, t, sidecars.get(pool)!.key, 32, { seconds: d.sidecarWarmSeconds });
    console.log(`${'target'.padEnd(14)} ${'c'.padStart(4)} ${'pool'.padEnd(8)} ${'rps'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'main µs'.padStart(8)} ${'proc µs'.padStart(8)}  statuses`);
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? POOLS : ([...POOLS].reverse() as Array<(typeof POOLS)[number]>);
      for (const c of d.conc) {
        for (const t of d.targets) {
          for (const pool of order) {
            const sc = sidecars.get(pool)!;
            await d.drive(sc.url, t, sc.key, c, { seconds: d.warmSeconds });
            const pid = sc.child.pid!;
            const cpu0 = [d.cpuSeconds(pid, pid), d.cpuSeconds(pid)];
            const m = await d.drive(sc.url, t, sc.key, c, { seconds: d.seconds });
            const perReq = (s: number) => Math.round((s * 1e6) / Math.max(1, m.requests));
            const row: PoolRow = { pool, round, target: t.name, concurrency: c, rps: m.rps, p50_ms: m.p50_ms, p99_ms: m.p99_ms, main_cpu_us: perReq(d.cpuSeconds(pid, pid) - cpu0[0]), process_cpu_us: perReq(d.cpuSeconds(pid) - cpu0[1]), statuses: m.statuses };
            rows.push(row);
            const st = Object.entries(row.statuses).map(([k, v]) => `${k}:${v}`).join(' ');
            console.log(`${row.target.padEnd(14)} ${String(c).padStart(4)} ${pool.padEnd(8)} ${String(row.rps).padStart(7)} ${String(row.p50_ms).padStart(8)} ${String(row.p99_ms).padStart(8)} ${String(row.main_cpu_us).padStart(8)} ${String(row.process_cpu_us).padStart(8)}  ${st}`);
          }
        }
      }
    }
  } finally {
    for (const sc of sidecars.values()) await d.stop(sc.child);
    rmSync(root, { recursive: true, force: true });
  }
  return { rows, summary: summarise(rows, d) };
}

/** side by side, medians over the rounds: piscina's rps as a share of the own pool's is what the decision rule reads */
function summarise<T extends PoolTarget>(rows: PoolRow[], d: PoolBenchDeps<T>): object[] {
  const out: object[] = [];
  console.log(`\nmedians over ${ROUNDS} rounds          own pool                      piscina (no per-task signals)     piscina/own`);
  console.log(`${'target'.padEnd(14)} ${'c'.padStart(4)}  ${'rps'.padStart(7)} ${'p99 ms'.padStart(8)} ${'main µs'.padStart(8)}    ${'rps'.padStart(7)} ${'p99 ms'.padStart(8)} ${'main µs'.padStart(8)}    rps`);
  for (const c of d.conc) {
    for (const t of d.targets) {
      const of = (pool: string) => rows.filter((r) => r.pool === pool && r.target === t.name && r.concurrency === c);
      const m = (pool: string) => ({ rps: median(of(pool).map((r) => r.rps)), p99_ms: median(of(pool).map((r) => r.p99_ms)), main_cpu_us: median(of(pool).map((r) => r.main_cpu_us)), rps_range: [Math.min(...of(pool).map((r) => r.rps)), Math.max(...of(pool).map((r) => r.rps))] });
      const own = m('own');
      const pis = m('piscina');
      const ratio = Math.round((pis.rps / Math.max(1, own.rps)) * 1000) / 1000;
      out.push({ target: t.name, concurrency: c, own, piscina: pis, piscina_over_own_rps: ratio });
      console.log(`${t.name.padEnd(14)} ${String(c).padStart(4)}  ${String(own.rps).padStart(7)} ${String(own.p99_ms).padStart(8)} ${String(own.main_cpu_us).padStart(8)}    ${String(pis.rps).padStart(7)} ${String(pis.p99_ms).padStart(8)} ${String(pis.main_cpu_us).padStart(8)}    ${ratio}`);
    }
  }
  return out;
}
