import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { LmdbStore } from '../core/store/lmdb.js';
import { Accounts, ApiKeys } from '../plugins/auth/index.js';
import { financeMessages, lines, pick } from './http-bodies.js';
import { auditAppendBench, COMMIT_MODE, storageFigures } from './http-audit.js';
import { runSharedBench } from './http-shared.js';
import { runPoolBench } from './http-pools.js';
import { runStageBench } from './http-stages.js';
import { rssPerEngine } from './http-rss.js';
import { freePort } from './load.js';
import { cpuSeconds, printThreads, threadCpu } from './proc-cpu.js';
import { runInfo, writePlot } from './plot.js';

export { cpuSeconds };

/**
 * `npm run bench -- http`: the whole service as a user sees it. The sidecar runs as its own
 * process (`proofgate start`) on a throwaway data directory, with one organisation on the
 * enterprise tier (unlimited plan) provisioned through the accounts API before start-up; a raw
 * node:http fixed-JSON server runs as another process; this process is the load generator
 * (undici pools, one keep-alive connection per concurrent client). Bodies are the corpus lines.
 * Nothing here asserts on time: figures are printed and written to bench-results.json, and drawn
 * to bench-http.svg (BENCH_PLOT names another file; bench/plot.ts).
 * Options (env): BENCH_SECONDS per row (default 5), BENCH_CONCURRENCY (default 1,8,32,128),
 * BENCH_MIXED (requests of the RSS phase, default 10000), BENCH_TARGETS (default all), BENCH_A2A_CONCURRENCY (default 50),
 * BENCH_CPU_PROF (directory for a V8 profile of the sidecar), BENCH_RSS_ENGINES (1 or only: RSS per engine, and of a fresh sidecar after BENCH_RSS_MIXED mixed requests: bench/http-rss.ts),
 * BENCH_NODE_ARGS (node flags for the sidecar instead of the ones `npm start` uses; "none" for none),
 * BENCH_WARM_SECONDS (untimed load before each sidecar row, default 2: rows measure the JIT-warm steady state),
 * BENCH_STAGES=0 (skip the per-stage cost table, bench/http-stages.ts), BENCH_POOL=piscina (only the own worker pool
 * against piscina, bench/http-pools.ts; BENCH_POOL_ROUNDS, default 2; concurrency default 32).
 * Each sidecar row also prints the sidecar's CPU per request: its main thread, and the whole process
 * (workers included), from /proc over the timed phase only.
 */
const DIST = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(DIST, 'sidecar', 'cli.js');
const RAW = join(DIST, 'bench', 'http-raw.js');
/** BENCH_A2A_CONCURRENCY: extra levels for the a2a_intercept row alone (default 50, where its target is set) */
const A2A_CONCURRENCY = (process.env.BENCH_A2A_CONCURRENCY ?? '50').split(',').filter(Boolean).map(Number);

interface Target {
  name: string;
  path: string;
  bodies: string[];
  /** POST unless given (the kernel floor rows are GETs) */
  method?: 'GET' | 'POST';
}

interface Row {
  target: string;
  concurrency: number;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  ratio_to_raw: number | null;
  /** 503s are refusals (admission, issue 45), not answers: p99 of the other replies, and the 503 share */
  p99_answered_ms: number;
  refused_share: number;
  /** sidecar CPU µs per request over the timed phase: main thread, and the whole process */
  main_cpu_us?: number;
  process_cpu_us?: number;
  statuses: Record<string, number>;
}


function targets(): Target[] {
  return [
    { name: 'verify_math', path: '/verify/math', bodies: lines('math.jsonl').map((l) => pick(l, ['expression', 'context', 'expected_value', 'tolerance'])) },
    { name: 'verify_sql', path: '/verify/sql', bodies: lines('sql.jsonl').map((l) => pick(l, ['query', 'schema_ddl', 'dialect'])) },
    { name: 'verify_code', path: '/verify/code', bodies: lines('code.jsonl').map((l) => pick(l, ['code', 'language'])) },
    { name: 'verify_logic', path: '/verify/logic', bodies: lines('logic.jsonl').map((l) => pick(l, ['query'])) },
    { name: 'a2a_intercept', path: '/a2a/intercept', bodies: financeMessages() },
  ];
}

/**
 * The kernel's floor per request, opt-in by name in BENCH_TARGETS: a public GET (/healthz) and an
 * API-key GET (authentication, rate-limit hook, a small JSON reply). When only these are named the
 * sidecar starts with no engine, so the rows show the kernel alone.
 */
const FLOOR_TARGETS: Target[] = [
  { name: 'floor_healthz', path: '/healthz', bodies: [''], method: 'GET' },
  { name: 'floor_apikey_get', path: '/a2a/metrics', bodies: [''], method: 'GET' },
];

/** BENCH_WARM_SECONDS: a fixed request count left the first row JIT-cold (~30% slower than the next) */
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 2);
/**
 * BENCH_SIDECAR_WARM_SECONDS: before the first row, each target is driven at c=32 this long. V8 was
 * still compiling the math path (its platform thread busy with TurboFan, ~30% of the process's CPU)
 * 10 s into load, and the engines' own passes settle only after 3-30 s (bench/harness.ts); a
 * sidecar beside an agent runs for hours, so rows of a cold one measured the compiler.
 */
const SIDECAR_WARM_SECONDS = Number(process.env.BENCH_SIDECAR_WARM_SECONDS ?? 8);

/** BENCH_THREADS=1: each sidecar row also prints CPU µs per request by thread name (libuv pool, V8 helpers, workers) */
const THREADS = process.env.BENCH_THREADS === '1';
/** clients honour a 503's Retry-After (issue 45's overload rule) unless BENCH_RETRY_AFTER=0 */
const HONOUR_RETRY_AFTER = process.env.BENCH_RETRY_AFTER !== '0';

const percentile = (s: number[], p: number) => (s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : 0);
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** `concurrency` clients, each sending its next request when the previous answered, for `seconds` (or `total` requests). */
export async function drive(url: string, t: Target, key: string, concurrency: number, o: { seconds?: number; total?: number }) {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const lat: number[] = [];
  const answered: number[] = [];
  const statuses: Record<string, number> = {};
  const method = t.method ?? 'POST';
  const headers: Record<string, string> = method === 'POST' ? { 'content-type': 'application/json', 'x-api-key': key } : { 'x-api-key': key };
  const deadline = o.seconds ? performance.now() + o.seconds * 1000 : Infinity;
  let next = 0;
  const started = performance.now();
  const client = async () => {
    for (;;) {
      const i = next++;
      if ((o.total !== undefined && i >= o.total) || performance.now() >= deadline) return;
      const t0 = performance.now();
      let status = 'error';
      try {
        const r = await pool.request({ origin: url, path: t.path, method, headers, body: method === 'POST' ? t.bodies[i % t.bodies.length] : undefined });
        await r.body.dump();
        status = String(r.statusCode);
        // a refused client waits what Retry-After says before its next request, as @proofgate/client
        // does (packages/client/src/base.ts); BENCH_RETRY_AFTER=0 retries at once, the old storm
        const wait = r.statusCode === 503 && HONOUR_RETRY_AFTER ? Number(r.headers['retry-after']) * 1000 : 0;
        if (wait > 0) {
          lat.push(performance.now() - t0);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (performance.now() + wait >= deadline) return;
          await new Promise((res) => setTimeout(res, wait));
          continue;
        }
      } catch {
        // counted as an error row below
      }
      lat.push(performance.now() - t0);
      if (status !== '503') answered.push(lat[lat.length - 1]);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  lat.sort((a, b) => a - b);
  answered.sort((a, b) => a - b);
  const refused_share = round((lat.length - answered.length) / Math.max(1, lat.length), 3);
  return { requests: lat.length, rps: Math.round(lat.length / seconds), p50_ms: round(percentile(lat, 50)), p99_ms: round(percentile(lat, 99)), p99_answered_ms: round(percentile(answered, 99)), refused_share, statuses };
}

export function rssMb(pid: number, field = 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? round(Number(m[1]) / 1024, 1) : -1;
}

const sidecarFlags = () => process.env.BENCH_NODE_ARGS ?? startFlags().join(' ');

/** the node flags of `npm start` (package.json), so the bench runs the sidecar as users do */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(DIST, '..', 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith('--'));
}

export async function until(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the process exited with ${child.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Writes the config, provisions the enterprise tenant in the store, starts `proofgate start`. */
export async function startSidecar(dataDir: string, disabled: string[], nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; key: string }> {
  const secrets = { jwt_secret_key: randomBytes(32).toString('hex'), api_key_lookup_secret: randomBytes(32).toString('hex'), audit_secret_key: randomBytes(32).toString('hex') };
  const store = new LmdbStore(dataDir);
  const user = await new Accounts(store).signup('bench@example.com', 'correct horse battery staple', 'bench');
  if (!user) throw new Error('bench tenant could not be created');
  // unlimited plan: the enterprise tier (until plans are configurable)
  await new Accounts(store).setTier(user.org_id, 'enterprise');
  const { key } = await new ApiKeys(store, secrets.api_key_lookup_secret).create({ orgId: user.org_id, userId: user.id, role: 'owner', name: 'bench', scopes: ['verify:read', 'attestation:read'] });
  await store.close();
  const port = await freePort();
  const schema = JSON.parse(readFileSync(join(DIST, '..', 'config', 'schema.json'), 'utf8'));
  const a2a: Record<string, unknown> = {
    deployment_id: 'bench',
    signing_key_pem: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    default_allow: true,
    max_requests_per_minute: 1_000_000_000,
  };
  // claim-only senders where sender authentication exists (the bench measures the pipeline, not the sender check)
  if (schema.properties.a2a.properties.sender_auth) a2a.sender_auth = 'off';
  const config = { data_dir: dataDir, log_level: 'ERROR', server: { host: '127.0.0.1', port }, secrets, a2a, plugins: { disabled, extra: [] } };
  const file = join(dataDir, '..', 'bench-config.json');
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  // BENCH_CPU_PROF=DIR: the sidecar writes a V8 CPU profile there when it stops (profile one route with BENCH_TARGETS)
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  // the sidecar runs with the node flags `npm start` gives it; BENCH_NODE_ARGS replaces them to weigh a setting
  prof.push(...sidecarFlags().split(' ').filter((f) => f && f !== 'none'), ...nodeArgs);
  // SVC_* settings in the bench's environment reach the sidecar (SVC_WORKER_OLD_GENERATION_MB=96 npm run bench -- http)
  const svc = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SVC_')));
  const child = spawn(process.execPath, [...prof, CLI, 'start', '--config', file], { stdio: ['ignore', 'ignore', 'inherit'], env: { PATH: process.env.PATH ?? '', ...svc, ...env } });
  return { child, url: `http://127.0.0.1:${port}`, key };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export async function runHttpBench(): Promise<object> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const conc = (process.env.BENCH_CONCURRENCY ?? '1,8,32,128').split(',').map(Number);
  const mixed = Number(process.env.BENCH_MIXED ?? 10_000);
  const only = process.env.BENCH_TARGETS?.split(',');
  const all = [...targets().filter((t) => !only || only.includes(t.name)), ...FLOOR_TARGETS.filter((t) => only?.includes(t.name))];
  const floorOnly = all.every((t) => FLOOR_TARGETS.includes(t));
  const root = mkdtempSync(join(tmpdir(), 'proofgate-bench-http-'));
  const dataDir = join(root, 'data');
  const raw = spawn(process.execPath, [RAW], { stdio: ['ignore', 'pipe', 'inherit'] });
  const rawPort = await new Promise<number>((resolve) => raw.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  const rawUrl = `http://127.0.0.1:${rawPort}`;
  const rawTarget: Target = { name: 'raw_node_http', path: '/', bodies: ['{"fixed":true}'] };
  const sc = await startSidecar(dataDir, floorOnly ? ENGINE_PLUGINS : []);
  const rows: Row[] = [];
  const memory: Record<string, number> = {};
  let storage: object = {};
  let shared: object = {};
  try {
    await until(`${sc.url}/healthz`, sc.child);
    memory.rss_mb_after_start = rssMb(sc.child.pid!);
    await until(`${sc.url}/readyz`, sc.child);
    memory.rss_mb_after_readyz = rssMb(sc.child.pid!);
    console.log(`commit mode: ${COMMIT_MODE}; sidecar node flags: ${sidecarFlags()}; warm-up ${SIDECAR_WARM_SECONDS} s per target at c=32 first, then ${WARM_SECONDS} s per row`);
    for (const t of all) if (SIDECAR_WARM_SECONDS > 0) await drive(sc.url, t, sc.key, 32, { seconds: SIDECAR_WARM_SECONDS });
    console.log(`RSS after start ${memory.rss_mb_after_start} MB, after /readyz ${memory.rss_mb_after_readyz} MB`);
    console.log(`${'target'.padEnd(15)} ${'c'.padStart(4)} ${'rps'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'×raw'.padStart(6)} ${'main µs'.padStart(8)} ${'proc µs'.padStart(8)}  statuses`);
    // the A2A target is stated at c=50 (issue 21): that row runs even when 50 is not among the levels
    const a2aOnly = all.filter((t) => t.name === 'a2a_intercept');
    const levels: Array<[number, Target[]]> = [...conc.map((c): [number, Target[]] => [c, all]), ...A2A_CONCURRENCY.filter((c) => !conc.includes(c) && a2aOnly.length).map((c): [number, Target[]] => [c, a2aOnly])];
    for (const [c, ts] of levels) {
      // raw node:http's own CPU per request: the floor under every sidecar row's main-thread figure
      const rawCpu0 = [cpuSeconds(raw.pid!, raw.pid!), cpuSeconds(raw.pid!)];
      const r = await drive(rawUrl, rawTarget, '', c, { seconds });
      const rawPerReq = (s: number) => Math.round((s * 1e6) / Math.max(1, r.requests));
      rows.push({ target: rawTarget.name, concurrency: c, ...r, ratio_to_raw: 1, main_cpu_us: rawPerReq(cpuSeconds(raw.pid!, raw.pid!) - rawCpu0[0]), process_cpu_us: rawPerReq(cpuSeconds(raw.pid!) - rawCpu0[1]) });
      print(rows[rows.length - 1]);
      for (const t of ts) {
        // warm connections and the JIT for this route (at least one request per client)
        await drive(sc.url, t, sc.key, c, WARM_SECONDS > 0 ? { seconds: WARM_SECONDS } : { total: c });
        const pid = sc.child.pid!;
        const cpu0 = [cpuSeconds(pid, pid), cpuSeconds(pid)];
        const threads0 = THREADS ? threadCpu(pid) : null;
        const m = await drive(sc.url, t, sc.key, c, { seconds });
        const perReq = (s: number) => Math.round((s * 1e6) / Math.max(1, m.requests));
        const cpu = { main_cpu_us: perReq(cpuSeconds(pid, pid) - cpu0[0]), process_cpu_us: perReq(cpuSeconds(pid) - cpu0[1]) };
        if (threads0) printThreads(threads0, threadCpu(pid), perReq);
        rows.push({ target: t.name, concurrency: c, ...m, ratio_to_raw: round(m.rps / r.rps, 3), ...cpu });
        print(rows[rows.length - 1]);
      }
    }
    const mix: Target = { name: 'mixed', path: '', bodies: [] };
    let n = 0;
    const per = Math.ceil(mixed / all.length);
    for (const t of all) n += (await drive(sc.url, { ...mix, path: t.path, bodies: t.bodies, method: t.method }, sc.key, 32, { total: per })).requests;
    memory.rss_mb_after_mixed = rssMb(sc.child.pid!);
    // anonymous (heap, stacks) vs file-backed (LMDB's mapped pages follow the data file): a leak shows in the first
    memory.rss_anon_mb_after_mixed = rssMb(sc.child.pid!, 'RssAnon');
    memory.rss_file_mb_after_mixed = rssMb(sc.child.pid!, 'RssFile');
    memory.mixed_requests = n;
    // threads of the process: worker pools grow under load (each thread loads the engine modules it runs)
    memory.threads_after_mixed = readdirSync(`/proc/${sc.child.pid!}/task`).length;
    console.log(`RSS after ${n} mixed requests: ${memory.rss_mb_after_mixed} MB (anonymous ${memory.rss_anon_mb_after_mixed}, file-backed ${memory.rss_file_mb_after_mixed}; ${memory.threads_after_mixed} threads)`);
    // shared mode: one and two replicas on PostgreSQL, against the same raw rows (BENCH_SHARED=0 skips)
    if (process.env.BENCH_SHARED !== '0') {
      const rawRps = new Map(rows.filter((r) => r.target === rawTarget.name).map((r) => [r.concurrency, r.rps]));
      shared = await runSharedBench({ drive, rawRps, bodies: targets()[0].bodies, seconds, conc });
    }
  } finally {
    await stop(sc.child);
    raw.kill('SIGTERM');
  }
  try {
    storage = await storageFigures(dataDir);
    console.log('storage', JSON.stringify(storage));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const audit = await auditAppendBench(Math.min(seconds, 3));
  console.log('audit appends', JSON.stringify(audit));
  // BENCH_STAGES=0 skips the profiled phase (its own sidecar, inspector attached)
  const stages = process.env.BENCH_STAGES === '0' ? {} : await runStageBench({ targets: all, drive, startSidecar, until, stop, seconds });
  return {
    name: 'http',
    machine_note: 'figures depend on the machine and its load; compare ratios to raw node:http within one run',
    commit_mode: COMMIT_MODE,
    sidecar_node_flags: sidecarFlags(),
    seconds_per_row: seconds,
    warm_seconds_per_row: WARM_SECONDS,
    sidecar_warm_seconds_per_target: SIDECAR_WARM_SECONDS,
    rows,
    memory,
    storage,
    audit_append: audit,
    stages,
    shared,
  };
}

function print(r: Row): void {
  const st = Object.entries(r.statuses).map(([k, v]) => `${k}:${v}`).join(' ');
  const refused = r.refused_share ? `  (503 share ${r.refused_share}; p99 of the answered ${r.p99_answered_ms} ms)` : '';
  console.log(`${r.target.padEnd(15)} ${String(r.concurrency).padStart(4)} ${String(r.rps).padStart(7)} ${String(r.p50_ms).padStart(8)} ${String(r.p99_ms).padStart(8)} ${String(r.ratio_to_raw ?? '').padStart(6)} ${String(r.main_cpu_us ?? '').padStart(8)} ${String(r.process_cpu_us ?? '').padStart(8)}  ${st}${refused}`);
}

export const ENGINE_PLUGINS = ['math', 'logic', 'code', 'sql', 'fact', 'natural-language', 'process', 'rag', 'consensus', 'stats', 'image'];

export async function main(): Promise<void> {
  // BENCH_POOL=piscina: only the own pool against piscina without per-task signals (bench/http-pools.ts)
  if (process.env.BENCH_POOL === 'piscina') {
    const only = process.env.BENCH_TARGETS?.split(',') ?? ['verify_math', 'verify_sql', 'verify_code', 'verify_logic'];
    const conc = (process.env.BENCH_CONCURRENCY ?? '32').split(',').map(Number);
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const pools = await runPoolBench({ targets: targets().filter((t) => only.includes(t.name)), conc, drive, startSidecar, until, stop, cpuSeconds, seconds, warmSeconds: WARM_SECONDS, sidecarWarmSeconds: SIDECAR_WARM_SECONDS });
    writeFileSync('bench-results.json', JSON.stringify({ at: new Date().toISOString(), node: process.version, pools }, null, 2));
    return;
  }
  // BENCH_RSS_ENGINES=only: just the per-engine RSS table; =1: the table after the HTTP rows
  const rssOnly = process.env.BENCH_RSS_ENGINES === 'only';
  // the tree as measured: an edit during a minutes-long run would otherwise mark the figures -dirty
  const info = runInfo();
  const http = rssOnly ? null : await runHttpBench();
  const rss_per_engine = process.env.BENCH_RSS_ENGINES ? await rssPerEngine({ engines: ENGINE_PLUGINS, targets: targets(), flags: sidecarFlags(), drive, startSidecar, until, stop, rssMb }) : null;
  const results = { at: new Date().toISOString(), node: process.version, ...info, http, rss_per_engine };
  writeFileSync('bench-results.json', JSON.stringify(results, null, 2));
  // the SVG (BENCH_PLOT, default bench-http.svg) is what the README's performance section shows
  if (http) writePlot(results, 'bench-results.json');
}
