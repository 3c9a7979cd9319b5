import { createServer } from 'node:net';

/**
 * One closed-loop load runner for the benches that drive a peer in this process (A2A gateway, A2A
 * proxy, MCP proxy): `concurrency` loops share `requests` calls of `once`, which resolves whether
 * the call succeeded; latency is timed around each call. Warm-up calls are untimed.
 */
export interface LoadStats {
  requests: number;
  failed: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function closedLoop(
  once: (loop: number) => Promise<boolean>,
  o: { requests: number; concurrency: number; warmup?: number; latencies?: number[] },
): Promise<LoadStats> {
  const safe = (loop: number) => once(loop).catch(() => false);
  for (let i = 0; i < (o.warmup ?? 0); i++) await safe(0);
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, loop) => {
      while (next < o.requests) {
        next++;
        const t0 = process.hrtime.bigint();
        if (!(await safe(loop))) failed++;
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // a caller adding slices of one measurement together takes every latency, unsorted
  o.latencies?.push(...latencies);
  latencies.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { requests: o.requests, failed, seconds: round(seconds), rps: Math.round(o.requests / seconds), p50_ms: round(percentile(latencies, 50)), p99_ms: round(percentile(latencies, 99)) };
}

/** a loopback port the OS hands out (for a process the bench starts) */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}
