import { spawn, type ChildProcess } from 'node:child_process';
import { cpuSeconds } from './proc-cpu.js';
import { percentile, type LoadStats } from './load.js';

/**
 * What the proxy benches (bench/mcp-proxy.ts, bench/a2a-proxy.ts) share: the server started as a
 * process of its own, and the timed rounds. A round alternates short slices of the direct and the
 * proxied side, so that load from elsewhere on a shared machine, which moves within seconds, falls
 * on both alike instead of on whichever side ran during it; each round reports its ratio (proxied
 * rps / direct rps), the p50/p99 the hop adds, and the CPU each process spent per call.
 */
export interface Side extends LoadStats {
  /** CPU µs per call over the timed phase: the sidecar's main thread and whole process, the server's, this process's */
  cpu_us: Record<string, number>;
}

export interface Round {
  direct: Side;
  proxied: Side;
  ratio: number;
  /** the ratio were CPU the only bound: CPU per direct call (client, server) over CPU per proxied call (client, server, sidecar) */
  cpu_bound_ratio: number;
  added_p50_ms: number;
  added_p99_ms: number;
}

export const r3 = (x: number) => Math.round(x * 1000) / 1000;
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** one side's slices of a round added together: calls over the time spent in them, percentiles over every call */
class Tally {
  requests = 0;
  failed = 0;
  seconds = 0;
  readonly latencies: number[] = [];
  readonly cpu = { sidecar_main: 0, sidecar_process: 0, upstream: 0, load_generator: 0 };

  stats(): Side {
    const l = [...this.latencies].sort((a, b) => a - b);
    const us = (sec: number) => Math.round((sec * 1e6) / this.requests);
    return {
      requests: this.requests,
      failed: this.failed,
      seconds: r3(this.seconds),
      rps: Math.round(this.requests / this.seconds),
      p50_ms: r3(percentile(l, 50)),
      p99_ms: r3(percentile(l, 99)),
      cpu_us: Object.fromEntries(Object.entries(this.cpu).map(([k, v]) => [k, us(v)])),
    };
  }
}

/** `n` calls of one side at the bench's concurrency, each latency pushed to `latencies` */
export type Drive = (n: number, latencies: number[]) => Promise<LoadStats>;

export interface RoundsOptions {
  label: string;
  requests: number;
  rounds: number;
  /** calls per side in one slice of a round */
  slice: number;
  pids: { sidecar: number; upstream: number };
  direct: Drive;
  proxied: Drive;
}

export async function interleavedRounds(o: RoundsOptions): Promise<Round[]> {
  const { pids } = o;
  const slice = async (drive: Drive, n: number, t: Tally) => {
    const before = [cpuSeconds(pids.sidecar, pids.sidecar), cpuSeconds(pids.sidecar), cpuSeconds(pids.upstream), process.cpuUsage()] as const;
    const s = await drive(n, t.latencies);
    const own = process.cpuUsage(before[3]);
    t.requests += s.requests;
    t.failed += s.failed;
    t.seconds += s.seconds;
    t.cpu.sidecar_main += cpuSeconds(pids.sidecar, pids.sidecar) - before[0];
    t.cpu.sidecar_process += cpuSeconds(pids.sidecar) - before[1];
    t.cpu.upstream += cpuSeconds(pids.upstream) - before[2];
    t.cpu.load_generator += (own.user + own.system) / 1e6;
  };
  const runs: Round[] = [];
  for (let i = 0; i < o.rounds; i++) {
    const dt = new Tally();
    const pt = new Tally();
    for (let done = 0; done < o.requests; done += o.slice) {
      const n = Math.min(o.slice, o.requests - done);
      await slice(o.direct, n, dt);
      await slice(o.proxied, n, pt);
    }
    const d = dt.stats();
    const p = pt.stats();
    const cpuBound = r3((d.cpu_us.load_generator + d.cpu_us.upstream) / (p.cpu_us.load_generator + p.cpu_us.upstream + p.cpu_us.sidecar_process));
    runs.push({ direct: d, proxied: p, ratio: r3(p.rps / d.rps), cpu_bound_ratio: cpuBound, added_p50_ms: r3(p.p50_ms - d.p50_ms), added_p99_ms: r3(p.p99_ms - d.p99_ms) });
    console.log(`${o.label} round ${i + 1}: direct ${d.rps} calls/s (p50 ${d.p50_ms} ms, p99 ${d.p99_ms} ms), proxied ${p.rps} (p50 ${p.p50_ms}, p99 ${p.p99_ms}), ratio ${runs[i].ratio} (CPU-bound ${cpuBound}); ` +
      `CPU µs/call sidecar ${p.cpu_us.sidecar_process} (main ${p.cpu_us.sidecar_main}), server ${d.cpu_us.upstream}/${p.cpu_us.upstream}, client ${d.cpu_us.load_generator}/${p.cpu_us.load_generator} (direct/proxied)`);
  }
  return runs;
}

/** the medians of the rounds */
export function summary(runs: Round[]) {
  return {
    rounds: runs,
    proxied_over_direct: median(runs.map((r) => r.ratio)),
    cpu_bound_ratio: median(runs.map((r) => r.cpu_bound_ratio)),
    added_p50_ms: median(runs.map((r) => r.added_p50_ms)),
    added_p99_ms: median(runs.map((r) => r.added_p99_ms)),
    failed: runs.reduce((n, r) => n + r.direct.failed + r.proxied.failed, 0),
  };
}

/** a server of the bench's own (a script that prints its URL on its first line), in its own process */
export async function startServerProcess(script: string, what: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
  });
  return { child, url };
}
