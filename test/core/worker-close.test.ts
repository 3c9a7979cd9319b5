import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { WorkerPools } from '../../core/workers/pools.js';
import { tempDir } from '../helpers/temp-dir.js';
import { nodeCommand } from '../helpers/child.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * V8 aborts the whole process (`Check failed: (location_) != nullptr` in AsyncModuleExecutionFulfilled,
 * seen as SIGILL in two full runs) when a thread is terminated while a module with top-level await is
 * evaluating. The math engine has such a module, and a pool closed during start-up (shutdown right
 * after start, a failed start-up, a test's short-lived server) terminated threads mid-warm-up. A pool
 * now ends a starting thread only once it is ready. The abort itself is a race no test can force;
 * what is checked is that the module's evaluation was never cut short.
 */
const tla = new URL('../fixtures/tla-engine.js', import.meta.url);
const plain = new URL('../fixtures/test-engine.js', import.meta.url);

t.test('closing a pool while a thread evaluates a module with top-level await lets the evaluation finish first', async (t) => {
  const dir = tempDir(t, 'pg-tla-');
  const mark = join(dir, 'mark');
  process.env.TLA_MARK_FILE = mark;
  t.teardown(() => delete process.env.TLA_MARK_FILE);
  const pools = new WorkerPools(2, pino({ level: 'silent' }), 8, 60_000);
  pools.prepare('p');
  pools.warmEveryThread('p', tla, 'warm');
  // two tasks at once: the pool starts a second thread, which evaluates the module before its first task
  const tasks = [1, 2].map(() => pools.run({ pool: 'p', module: plain, fn: 'spin', input: 50, timeoutMs: 30_000 }).catch(() => undefined));
  // well inside the module's 300 ms evaluation
  await new Promise((r) => setTimeout(r, 60));
  t.equal(pools.threads('p'), 2, 'the second thread is starting');
  t.notOk(existsSync(mark), 'its module is still evaluating');
  await pools.close();
  await Promise.all(tasks);
  t.equal(readFileSync(mark, 'utf8'), 'evaluated\n', 'the thread was ended after its module finished evaluating, not during it');
});

t.test('a process that closes its pool while a thread starts waits for the close to finish', async (t) => {
  const child = new URL('./fixtures/close-starting-child.js', import.meta.url);
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const p = spawn(...nodeCommand([fileURLToPath(child)]), { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.once('error', reject);
    p.once('exit', (code) => resolve({ code, out }));
  });
  t.equal(out, 'closed\n', 'close() settled before the process ended');
  t.equal(code, 0, 'and the process ended on its own, not with an unsettled await (13)');
});
