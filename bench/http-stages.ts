import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stageTable, type CpuProfile } from './cpu-stages.js';
import { WebSocket } from 'undici';
import { freePort } from './load.js';

interface StageTarget {
  name: string;
  path: string;
  bodies: string[];
  method?: 'GET' | 'POST';
}

export interface StageDeps<T extends StageTarget> {
  targets: T[];
  drive(url: string, t: T, key: string, concurrency: number, o: { seconds: number }): Promise<{ requests: number; rps: number }>;
  startSidecar(dataDir: string, disabled: string[], nodeArgs: string[]): Promise<{ child: ChildProcess; url: string; key: string }>;
  until(url: string, child: ChildProcess): Promise<void>;
  stop(child: ChildProcess): Promise<void>;
  seconds: number;
}

/**
 * The per-stage cost table (issue 45): a sidecar of its own, started with the inspector on a
 * loopback port, is profiled over the DevTools protocol one target at a time at c=32 (the rows
 * above ran without the inspector, so the profiler's cost is not in them). Each target's main-
 * thread profile is cut into stages by bench/cpu-stages.ts and printed as µs per request.
 */
export async function runStageBench<T extends StageTarget>(d: StageDeps<T>): Promise<Record<string, Array<{ stage: string; us_per_request: number; share: number }>>> {
  const root = mkdtempSync(join(tmpdir(), 'proofgate-bench-stages-'));
  const inspectPort = await freePort();
  const sc = await d.startSidecar(join(root, 'data'), [], [`--inspect=127.0.0.1:${inspectPort}`]);
  const out: Record<string, Array<{ stage: string; us_per_request: number; share: number }>> = {};
  try {
    await d.until(`${sc.url}/readyz`, sc.child);
    const list = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
    const cdp = await connect(list[0].webSocketDebuggerUrl);
    try {
      await cdp.call('Profiler.enable');
      // 100 µs between samples: a request of a few hundred µs gets several
      await cdp.call('Profiler.setSamplingInterval', { interval: 100 });
      console.log(`per-stage main-thread cost (µs/request, c=32, ${d.seconds} s each, V8 sampling profiler at 100 µs; share of the busy time):`);
      for (const t of d.targets) {
        await d.drive(sc.url, t, sc.key, 32, { seconds: 2 });
        await cdp.call('Profiler.start');
        const m = await d.drive(sc.url, t, sc.key, 32, { seconds: d.seconds });
        const { profile } = (await cdp.call('Profiler.stop')) as { profile: CpuProfile };
        const table = stageTable(profile, m.requests);
        out[t.name] = table;
        console.log(`  ${t.name.padEnd(15)} ${table.map((r) => `${r.stage} ${r.us_per_request} (${r.share}%)`).join(', ')}`);
      }
    } finally {
      cdp.close();
    }
  } finally {
    await d.stop(sc.child);
    rmSync(root, { recursive: true, force: true });
  }
  return out;
}

/** a DevTools protocol session over undici's WebSocket client */
async function connect(url: string): Promise<{ call(method: string, params?: object): Promise<unknown>; close(): void }> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`inspector at ${url} refused the connection`)), { once: true });
  });
  let next = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const p = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id!);
    if (msg.error) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  });
  return {
    call(method, params = {}) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => ws.close(),
  };
}
