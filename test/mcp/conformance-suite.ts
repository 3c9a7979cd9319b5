import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) and reads its checks.
 * The suite needs Node >= 22; the repo's devDependency `node` (npm `node@22`) provides that binary, so
 * the suite runs on it whatever Node runs the tests.
 */
const require = createRequire(import.meta.url);
export const NODE22 = resolve(require.resolve('node/package.json'), '..', 'bin', 'node');
export const SUITE = resolve(require.resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js');

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

export function cli(args: string[], timeout: number): Promise<{ stdout: string; killed: boolean }> {
  return new Promise((done) => {
    execFile(NODE22, [SUITE, ...args], { timeout, maxBuffer: 16 << 20 }, (err, stdout) => done({ stdout, killed: Boolean((err as { killed?: boolean } | null)?.killed) }));
  });
}

/** The checks of one `--suite all` run against `url`, keyed `scenario/check`. */
export async function runSuite(url: string, timeoutMs: number): Promise<Check[]> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const r = await cli(['server', '--url', url, '--suite', 'all', '-o', out], timeoutMs);
  const checks: Check[] = [];
  for (const dir of readdirSync(out)) {
    // a failing scenario makes the CLI exit 1: the checks files are the answer, not the exit code
    if (!statSync(join(out, dir)).isDirectory()) continue;
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    try {
      checks.push(...(JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]).map((c) => ({ ...c, id: `${scenario}/${c.id}` })));
    } catch {
      // a scenario that wrote no checks counts as none passed
    }
  }
  // a run that hangs (waiting for a notification that never comes) is a failure, with what it got so far
  if (r.killed) checks.push({ id: 'suite:timeout', status: 'FAILURE', errorMessage: `the suite did not finish in ${timeoutMs / 1000} s` });
  rmSync(out, { recursive: true, force: true });
  return checks;
}

export const passed = (cs: Check[]) => new Set(cs.filter((c) => c.status === 'SUCCESS').map((c) => c.id));

/**
 * Every check that passes `direct` passes `through`, except `refused` (id -> why), which must not
 * pass (a documented refusal). Returns how many checks were asserted to pass.
 */
export function expectSamePasses(
  t: { ok(v: unknown, m: string): void; notOk(v: unknown, m: string): void; comment(m: string): void },
  direct: Check[],
  through: Check[],
  o: { via: string; refused?: Record<string, string> },
): number {
  const p = passed(through);
  let asserted = 0;
  for (const id of passed(direct)) {
    const c = through.find((x) => x.id === id);
    const what = `${id} through ${o.via}${c?.errorMessage ? `: ${c.errorMessage}` : ''}`;
    if (o.refused?.[id]) t.notOk(p.has(id), `${id} is refused as documented: ${o.refused[id]}`);
    else {
      t.ok(p.has(id), `passes: ${what}`);
      asserted++;
    }
  }
  return asserted;
}
