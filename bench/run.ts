import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchEngine, corpusDir as findCorpus, repeatOption, type EngineAdapter, type EngineReport } from './harness.js';

/**
 * `npm run bench`: every engine adapter in bench/engines/ on the shared corpus, then the A2A
 * gateway against raw node:http. Figures are printed and written as JSON (bench-results.json) so
 * runs can be compared; nothing here asserts on time. `npm run bench -- plot --from FILE` draws an
 * HTTP run's results again (bench/plot.ts).
 */
const ENGINES = ['math', 'latex', 'logic', 'sql', 'code'];

const { passes, warm, rest: only } = repeatOption(process.argv.slice(2));

async function main(): Promise<void> {
  // an earlier run's results drawn again (bench/plot.ts): nothing is measured
  if (only[0] === 'plot') process.exit((await import('./plot.js')).plotCli(only.slice(1)));
  // the HTTP bench (bench/http.ts) runs on its own: sidecar and raw server as separate processes
  if (only.includes('http')) {
    await (await import('./http.js')).main();
    process.exit(0);
  }
  // the worker hop alone: the own pool against piscina without per-task signals (bench/pool-hop.ts)
  if (only.includes('pool-hop')) {
    await (await import('./pool-hop.js')).runPoolHopBench();
    process.exit(0);
  }
  // OWASP's Benchmark for Python is read from a path given on the command line, never the repository
  if (only.includes('code-owasp')) {
    await (await import('./engines/code-owasp.js')).runOwaspBench(process.argv.slice(2));
    process.exit(0);
  }
  const corpusDir = findCorpus();
  const reports: EngineReport[] = [];
  for (const name of ENGINES) {
    if (only.length && !only.includes(name)) continue;
    const file = new URL(`./engines/${name}.js`, import.meta.url);
    if (!existsSync(fileURLToPath(file))) {
      console.log(`${name}: no adapter (bench/engines/${name}.ts)`);
      continue;
    }
    const adapter = (await import(file.href)) as EngineAdapter;
    const r = await benchEngine(name, adapter, corpusDir, passes, warm);
    reports.push(r);
    console.log(
      `${name.padEnd(6)} ${String(r.lines).padStart(4)} lines  ${String(r.ops_per_sec).padStart(9)} ops/s (${r.cpu_ops_per_sec} per CPU-second)  p50 ${r.p50_ms} ms  p99 ${r.p99_ms} ms  ` +
        `correct ${r.correct}  wrong ${r.wrong}  error ${r.error}  crash ${r.crash}  (median of ${r.passes} timed passes after ${r.warm_passes} untimed (${warm} s); no caching across passes)`,
    );
    for (const [tag, c] of Object.entries(r.by_tag)) {
      const sp = r.speed_by_tag[tag];
      const speed = sp ? `${String(sp.ops_per_sec).padStart(9)} ops/s  p99 ${sp.p99_ms} ms  ` : '';
      console.log(`         ${tag.padEnd(14)} ${speed}correct ${c.correct}  wrong ${c.wrong}  error ${c.error}  crash ${c.crash}`);
    }
    if (r.wrong_ids.length) console.log(`         wrong: ${r.wrong_ids.join(', ')}`);
  }
  let a2a: unknown = null;
  const a2aFile = new URL('./a2a.js', import.meta.url);
  if ((!only.length || only.includes('a2a')) && existsSync(fileURLToPath(a2aFile))) {
    const mod = (await import(a2aFile.href)) as { runA2ABench(): Promise<unknown> };
    a2a = await mod.runA2ABench();
    console.log('a2a', JSON.stringify(a2a, null, 2));
  }
  let mcpProxy: unknown = null;
  if (!only.length || only.includes('mcp-proxy')) {
    const mod = (await import(new URL('./mcp-proxy.js', import.meta.url).href)) as { runMcpProxyBench(): Promise<unknown> };
    mcpProxy = await mod.runMcpProxyBench();
    console.log('mcp-proxy', JSON.stringify(mcpProxy, null, 2));
  }
  let a2aProxy: unknown = null;
  if (!only.length || only.includes('a2a-proxy')) {
    const mod = (await import(new URL('./a2a-proxy.js', import.meta.url).href)) as { runA2AProxyBench(o?: { requests?: number }): Promise<unknown> };
    a2aProxy = await mod.runA2AProxyBench(process.env.BENCH_REQUESTS ? { requests: Number(process.env.BENCH_REQUESTS) } : {});
    console.log('a2a-proxy', JSON.stringify(a2aProxy, null, 2));
  }
  const { writeFileSync } = await import('node:fs');
  writeFileSync('bench-results.json', JSON.stringify({ at: new Date().toISOString(), node: process.version, engines: reports, a2a, mcp_proxy: mcpProxy, a2a_proxy: a2aProxy }, null, 2));
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
