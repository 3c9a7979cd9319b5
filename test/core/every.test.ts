import t from 'tap';
import type { Plugin } from '../../core/types.js';
import { startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/**
 * `app.every` (issue 44): the one sweep API. Runs repeat, never overlap, survive a failing run, and
 * stop at shutdown, which waits for a run in progress before the store closes.
 */
const sweeper = (name: string, register: Plugin['register']): Plugin => ({ name, register });

t.test('runs repeat, one at a time, and a failing run does not stop the next', async (t) => {
  let ticks = 0;
  let blockedRuns = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let calls = 0;
  const errors: unknown[] = [];
  const s = await startServer({
    plugins: [
      sweeper('ticker', (app) => app.every(5, () => void ticks++)),
      sweeper('slow', (app) => app.every(5, async () => {
        blockedRuns++;
        await gate;
      })),
      sweeper('flaky', (app) => app.every(5, () => {
        calls++;
        if (calls === 1) throw new Error('first run fails');
      }, { onError: (err) => errors.push(err) })),
    ],
  });
  t.teardown(() => s.close());
  await waitFor(() => ticks >= 5 && calls >= 2, { what: 'several runs of the ticker and two of the flaky sweep' });
  t.equal(blockedRuns, 1, 'a run still in progress is not started again');
  t.equal(errors.length, 1, 'the failure went to onError');
  t.match(String(errors[0]), /first run fails/);
  release();
  await waitFor(() => blockedRuns >= 2, { what: 'the next run once the first finished' });
});

t.test('atStart runs at once, not after the first interval', async (t) => {
  let runs = 0;
  const s = await startServer({ plugins: [sweeper('hourly', (app) => app.every(3_600_000, () => void runs++, { atStart: true }))] });
  t.teardown(() => s.close());
  await waitFor(() => runs === 1, { what: 'the run at start' });
  t.pass('ran without waiting an hour');
});

t.test('shutdown stops the sweeps and waits for a run in progress before the store closes', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started = false;
  const seen: string[] = [];
  let storeOpenAtEnd: boolean | undefined;
  const s = await startServer({
    plugins: [
      sweeper('long', (app) => app.every(5, async () => {
        started = true;
        await gate;
        // a macrotask later: a shutdown that did not wait would be closing the store by now
        await new Promise((r) => setImmediate(r));
        storeOpenAtEnd = app.store.ready;
        seen.push('sweep done');
      })),
    ],
  });
  await waitFor(() => started, { what: 'the sweep to start' });
  const closing = s.close().then(() => seen.push('closed'));
  await waitFor(() => s.kernel.app.draining.aborted, { what: 'shutdown to begin' });
  release();
  await closing;
  t.same(seen, ['sweep done', 'closed'], 'close resolved only after the run in progress');
  t.equal(storeOpenAtEnd, true, 'the store was still open when the run ended');
  t.notOk(s.kernel.app.store.ready, 'and closed after');
});

t.test('no plugin keeps a sweep timer of its own', async (t) => {
  const { readFileSync } = await import('node:fs');
  const { join, relative } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const { sourceFiles } = await import('../helpers/sources.js');
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  // timers that are not sweeps of stored records: in-memory buckets and checkpoint scheduling, both
  // with a timer their tests inject; the code engine names setInterval as a rule, it never calls it
  const allowed = new Set(['plugins/a2a/token-bucket.ts', 'plugins/audit/checkpoint.ts']);
  const found = sourceFiles(join(root, 'plugins'))
    .map((f) => relative(root, f))
    .filter((f) => !f.startsWith('plugins/engines/code/') && !allowed.has(f))
    .filter((f) => /\bsetInterval\s*\(/.test(readFileSync(join(root, f), 'utf8')));
  t.same(found, [], 'periodic work goes through app.every');
});
