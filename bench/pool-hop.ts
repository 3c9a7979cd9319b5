import { pino } from 'pino';
import { PiscinaPools } from '../core/workers/piscina-pools.js';
import { WorkerPools } from '../core/workers/pools.js';
import { cpuSeconds } from './http.js';

/**
 * `npm run bench -- pool-hop`: the worker hop alone, the own pool against piscina without per-task
 * signals (core/workers/piscina-pools.ts). One thread, 32 tasks in flight, an engine that returns
 * its input; CPU of this process's main thread and of the whole process per task, from /proc, after
 * untimed warm tasks. Rounds alternate which pool goes first. Nothing asserts on time.
 */
const ENGINE = new URL('./hop-engine.js', import.meta.url);
const TASKS = Number(process.env.BENCH_HOP_TASKS ?? 60_000);
const ROUNDS = Number(process.env.BENCH_POOL_ROUNDS ?? 3);
const IN_FLIGHT = 32;

type AnyPools = Pick<WorkerPools, 'run' | 'prepare' | 'close'>;

async function drive(pools: AnyPools, n: number): Promise<void> {
  let next = 0;
  const input = { expression: '2*(x+1)', context: { x: 3 } };
  const loop = async () => {
    while (next++ < n) await pools.run({ pool: 'hop', module: ENGINE, fn: 'echo', input, timeoutMs: 30_000 });
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
}

async function measure(pools: AnyPools) {
  const pid = process.pid;
  const [m0, p0, t0] = [cpuSeconds(pid, pid), cpuSeconds(pid), performance.now()];
  await drive(pools, TASKS);
  const us = (s: number) => Math.round((s * 1e6 * 10) / TASKS) / 10;
  return { main_us: us(cpuSeconds(pid, pid) - m0), process_us: us(cpuSeconds(pid) - p0), wall_us: us((performance.now() - t0) / 1000) };
}

export async function runPoolHopBench(): Promise<object> {
  const log = pino({ level: 'silent' });
  const pools = { own: new WorkerPools(1, log) as AnyPools, piscina: new PiscinaPools(1, log) as AnyPools };
  const rows: Array<{ pool: string; round: number; main_us: number; process_us: number; wall_us: number }> = [];
  try {
    for (const p of Object.values(pools)) {
      p.prepare('hop', 1);
      await drive(p, TASKS);
    }
    console.log(`worker hop, ${TASKS} echo tasks, ${IN_FLIGHT} in flight, one thread; CPU µs per task`);
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? (['own', 'piscina'] as const) : (['piscina', 'own'] as const);
      for (const name of order) {
        const r = { pool: name, round, ...(await measure(pools[name])) };
        rows.push(r);
        console.log(`${name.padEnd(8)} round ${round}  main ${r.main_us} µs  process ${r.process_us} µs  wall ${r.wall_us} µs`);
      }
    }
  } finally {
    await Promise.allSettled(Object.values(pools).map((p) => p.close()));
  }
  return { tasks: TASKS, in_flight: IN_FLIGHT, rows };
}
