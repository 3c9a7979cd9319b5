import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface RssTarget {
  name: string;
  path: string;
  bodies: string[];
  method?: 'GET' | 'POST';
}

type Sidecar = { child: ChildProcess; url: string; key: string };

/** what the RSS phase borrows from bench/http.ts (passed in, so neither module imports the other) */
export interface RssDeps<T extends RssTarget> {
  engines: string[];
  targets: T[];
  /** the sidecar's node flags, for the record */
  flags: string;
  drive(url: string, t: T, key: string, concurrency: number, o: { total: number }): Promise<{ requests: number }>;
  startSidecar(dataDir: string, disabled: string[]): Promise<Sidecar>;
  until(url: string, child: ChildProcess): Promise<void>;
  stop(child: ChildProcess): Promise<void>;
  rssMb(pid: number, field?: string): number;
}

const IDLE_READING_MS = 20_000;
/** BENCH_RSS_MIXED: requests of the fresh-sidecar mixed phase (default 10000; 0 skips it) */
const MIXED_RSS_REQUESTS = Number(process.env.BENCH_RSS_MIXED ?? 10_000);

/**
 * RSS after /readyz with no engine, with each engine alone, and with all of them: what an operator
 * saves by disabling an engine a pod does not need (SVC_PLUGINS_DISABLED). Then issue 45's memory
 * targets as the issue states them: a sidecar started for each target set (every engine; math +
 * A2A), loaded right after /readyz (no idle time for V8's memory reducer first) with 10,000 mixed
 * requests of what that set serves.
 */
export async function rssPerEngine<T extends RssTarget>(d: RssDeps<T>): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = { sidecar_node_flags: d.flags };
  console.log(`sidecar node flags: ${d.flags}`);
  const sets: Array<[string, string[]]> = [
    ['none', d.engines],
    ...d.engines.map((e): [string, string[]] => [e, d.engines.filter((x) => x !== e)]),
    ['math+a2a only', [...d.engines.filter((x) => x !== 'math'), 'batch', 'badges', 'verification-context', 'agents', 'ops', 'providers']],
    ['all', []],
  ];
  for (const [name, disabled] of sets) {
    await withSidecar(d, disabled, async (sc) => {
      out[name] = d.rssMb(sc.child.pid!);
      // idle RSS keeps falling after /readyz (V8's memory reducer trims some 12-15 s later): the two sets
      // with a target also get a reading after 20 s without requests, beside the one at /readyz
      if (name === 'all' || name === 'math+a2a only') {
        await new Promise((r) => setTimeout(r, IDLE_READING_MS));
        out[`${name}, idle 20 s`] = d.rssMb(sc.child.pid!);
      }
    }).catch((err: Error) => (out[name] = `failed: ${err.message}`));
    const idle = out[`${name}, idle 20 s`];
    console.log(`RSS after /readyz, ${name.padEnd(18)} ${out[name]} MB${idle === undefined ? '' : ` (${idle} MB after 20 s idle)`}`);
  }
  for (const [name, disabled] of sets.filter(([n]) => MIXED_RSS_REQUESTS > 0 && (n === 'all' || n === 'math+a2a only'))) {
    const served = d.targets.filter((t) => name === 'all' || t.name === 'verify_math' || t.name === 'a2a_intercept');
    await withSidecar(d, disabled, async (sc) => Object.assign(out, await mixedRss(d, sc, served, MIXED_RSS_REQUESTS, name))).catch(
      (err: Error) => (out[`${name}, mixed`] = `failed: ${err.message}`),
    );
  }
  return out;
}

async function withSidecar<T extends RssTarget>(d: RssDeps<T>, disabled: string[], fn: (sc: Sidecar) => Promise<unknown>): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'proofgate-bench-rss-'));
  const sc = await d.startSidecar(join(root, 'data'), disabled);
  try {
    await d.until(`${sc.url}/readyz`, sc.child);
    await fn(sc);
  } finally {
    await d.stop(sc.child);
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * RSS, anonymous and file-backed, after `total` requests spread evenly over `ts` at c=32, one target
 * after the other, on a sidecar that has served nothing else: the figure issue 45 sets its memory
 * targets on. The HTTP rows' own mixed phase reads RSS after every row has run (about ten times
 * as many requests), where LMDB's pages of a larger data file are mapped too.
 */
async function mixedRss<T extends RssTarget>(d: RssDeps<T>, sc: Sidecar, ts: T[], total: number, name: string): Promise<Record<string, number>> {
  const pid = sc.child.pid!;
  let n = 0;
  for (const t of ts) n += (await d.drive(sc.url, { ...t, name: 'mixed' }, sc.key, 32, { total: Math.ceil(total / ts.length) })).requests;
  const [all, anon, file] = [d.rssMb(pid), d.rssMb(pid, 'RssAnon'), d.rssMb(pid, 'RssFile')];
  console.log(`RSS of a fresh sidecar (${name}) after ${n} mixed requests (${ts.map((t) => t.name).join(', ')}): ${all} MB (anonymous ${anon}, file-backed ${file})`);
  return { [`${name}, after ${n} mixed`]: all, [`${name}, after ${n} mixed, anonymous`]: anon, [`${name}, after ${n} mixed, file-backed`]: file };
}
