import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PgStore } from '../core/store/pg.js';
import { AuditChain } from '../plugins/audit/index.js';
import { Accounts, ApiKeys } from '../plugins/auth/index.js';
import { freePort } from './load.js';
import { FIELDS } from './http-audit.js';

/**
 * Shared-mode rows of `npm run bench -- http`: the sidecar on PostgreSQL as one replica and as two
 * replicas (separate processes on one database, load split evenly), `/verify/math` rps as ratios
 * to raw node:http of the same run, and durable audit appends per second on PostgreSQL (one and
 * two writers with their own pools appending to one organisation: the two-writer figure includes
 * the lost races). A throwaway database is created on BENCH_PG_URL (default the local server)
 * and dropped afterwards; without a server the rows are skipped with the reason.
 */
const CLI = join(fileURLToPath(new URL('..', import.meta.url)), 'sidecar', 'cli.js');
const ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface DriveResult {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  statuses: Record<string, number>;
}
type Drive = (url: string, t: { name: string; path: string; bodies: string[] }, key: string, concurrency: number, o: { seconds?: number; total?: number }) => Promise<DriveResult>;

async function ready(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the replica exited with ${child.exitCode}`);
    const r = await fetch(url + '/readyz').catch(() => null);
    if (r?.status === 200) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function appends(url: string, writers: number, seconds: number, inFlight = 256) {
  // every writer on one schema: they append to one chain, each with its own pool and head cache
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const shared = Array.from({ length: writers }, () => new PgStore({ url, schema }));
  const secret = randomBytes(32).toString('hex');
  const chains = shared.map((s) => new AuditChain(s, secret));
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, c) => {
      while (performance.now() < deadline) {
        await chains[c % writers].append('org_bench', FIELDS);
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(shared.map((s) => s.close()));
  const commits = chains.reduce((n, c) => n + c.stats.commits, 0);
  return { writers, in_flight: inFlight, appends: done, appends_per_second: Math.round(done / elapsed), commits, races: chains.reduce((n, c) => n + c.stats.races, 0) };
}

export async function runSharedBench(o: { drive: Drive; rawRps: Map<number, number>; bodies: string[]; seconds: number; conc: number[] }): Promise<object> {
  const admin = new pg.Client({ connectionString: ADMIN, connectionTimeoutMillis: 2000 });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch (err) {
    console.log(`shared-mode rows skipped: no PostgreSQL at BENCH_PG_URL (${(err as Error).message})`);
    return { skipped: (err as Error).message };
  }
  const dbName = `proofgate_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const u = new URL(ADMIN);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  const root = mkdtempSync(join(tmpdir(), 'proofgate-bench-shared-'));
  const children: ChildProcess[] = [];
  const rows: object[] = [];
  try {
    const secrets = { jwt_secret_key: randomBytes(32).toString('hex'), api_key_lookup_secret: randomBytes(32).toString('hex'), audit_secret_key: randomBytes(32).toString('hex') };
    const store = new PgStore({ url });
    const user = await new Accounts(store).signup('bench@example.com', 'correct horse battery staple', 'bench');
    if (!user) throw new Error('bench tenant could not be created');
    await new Accounts(store).setTier(user.org_id, 'enterprise');
    const { key } = await new ApiKeys(store, secrets.api_key_lookup_secret).create({ orgId: user.org_id, userId: user.id, role: 'owner', name: 'bench', scopes: ['verify:read', 'attestation:read'] });
    await store.close();
    const pem = (): string => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const keys = { attestation: pem(), a2a: pem() };
    const start = async (i: number) => {
      const port = await freePort();
      const config = {
        data_dir: join(root, `data-${i}`),
        store: { url },
        log_level: 'ERROR',
        server: { host: '127.0.0.1', port },
        secrets,
        attestation: { key_continuity_policy: 'persistent', signing_key_pem: keys.attestation },
        a2a: { deployment_id: 'bench', signing_key_pem: keys.a2a },
        // only /verify/math is driven: the other engines' pools and warm-ups would only compete for the cores
        plugins: { disabled: ['logic', 'code', 'sql', 'image', 'consensus', 'rag', 'process', 'stats', 'fact', 'natural-language'], extra: [] },
      };
      const file = join(root, `config-${i}.json`);
      writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
      const child = spawn(process.execPath, [CLI, 'start', '--config', file], { stdio: ['ignore', 'ignore', 'inherit'], env: { PATH: process.env.PATH ?? '' } });
      children.push(child);
      const base = `http://127.0.0.1:${port}`;
      await ready(base, child);
      return base;
    };
    const target = { name: 'verify_math', path: '/verify/math', bodies: o.bodies };
    const urls = [await start(0)];
    for (const replicas of [1, 2]) {
      if (replicas === 2) urls.push(await start(1));
      for (const c of o.conc) {
        const per = Math.max(1, Math.round(c / replicas));
        await Promise.all(urls.map((b) => o.drive(b, target, key, per, { total: Math.min(200, per * 20) })));
        const parts = await Promise.all(urls.map((b) => o.drive(b, target, key, per, { seconds: o.seconds })));
        const rps = parts.reduce((n, p) => n + p.rps, 0);
        const statuses: Record<string, number> = {};
        for (const p of parts) for (const [k, v] of Object.entries(p.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
        const raw = o.rawRps.get(per * replicas) ?? o.rawRps.get(c);
        const row = {
          target: `verify_math_pg_${replicas}r`,
          concurrency: per * replicas,
          requests: parts.reduce((n, p) => n + p.requests, 0),
          rps,
          p50_ms: Math.round(Math.max(...parts.map((p) => p.p50_ms)) * 100) / 100,
          p99_ms: Math.round(Math.max(...parts.map((p) => p.p99_ms)) * 100) / 100,
          ratio_to_raw: raw ? Math.round((rps / raw) * 1000) / 1000 : null,
          statuses,
        };
        rows.push(row);
        const st = Object.entries(statuses).map(([k, v]) => `${k}:${v}`).join(' ');
        console.log(`${row.target.padEnd(17)} ${String(row.concurrency).padStart(4)} ${String(rps).padStart(7)} ${String(row.p50_ms).padStart(8)} ${String(row.p99_ms).padStart(8)} ${String(row.ratio_to_raw ?? '').padStart(6)}  ${st}`);
      }
    }
    for (const c of children) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
    const auditSeconds = Math.min(o.seconds, 3);
    const audit = { one_writer: await appends(url, 1, auditSeconds), two_writers: await appends(url, 2, auditSeconds) };
    console.log('audit appends on PostgreSQL', JSON.stringify(audit));
    return { commit_mode: 'PostgreSQL, synchronous_commit on: one transaction per group-committed batch', rows, audit_append: audit };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}
