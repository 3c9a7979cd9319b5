import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Plugin } from '../../core/types.js';
import { startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

const module = new URL('../fixtures/test-engine.js', import.meta.url);
const engineWithWarmup = (name: string): Plugin => ({ name, register: (app) => void app.engine({ name, version: '0', module, warmup: 'warmAlone' }) });

t.test('warm-ups that share a pool run one after another, on the thread that stays', async (t) => {
  const dir = tempDir(t, 'proofgate-warm-');
  // workers read the variable when the pool starts them, after this line
  process.env.PROBE_WARM_DIR = dir;
  t.teardown(() => void delete process.env.PROBE_WARM_DIR);
  const s = await startServer({ plugins: [engineWithWarmup('warm-a'), engineWithWarmup('warm-b')], config: { workers: { threads: 2 } } });
  t.teardown(() => s.close());
  const log = () => readFileSync(join(dir, 'log'), 'utf8').trim().split('\n');
  await waitFor(() => log().length === 2, { what: 'both warm-ups to finish' });
  const lines = log();
  t.notOk(lines.includes('overlap'), 'no warm-up ran while the other held the pool');
  t.equal(lines[0], lines[1], 'both ran on the same worker thread');
  await waitFor(() => s.kernel.isReady(), { what: 'the kernel to be ready' });
});

t.test('warmEngines: false declares engines without their warm-ups; the first task still runs', async (t) => {
  const plugin: Plugin = {
    name: 'cold',
    register(app) {
      t.equal(app.warmEngines, false, 'plugins with warm-ups of their own can see it');
      const engine = app.engine({ name: 'cold', version: '0', module, warmup: 'markWarm' });
      app.route({ method: 'GET', path: '/test/cold', auth: 'none', handler: async () => ({ body: await engine.run('spinReport', 0) }) });
    },
  };
  const s = await startServer({ plugins: [plugin], warmEngines: false });
  t.teardown(() => s.close());
  await waitFor(() => s.kernel.isReady(), { what: 'the kernel to be ready' });
  const r = await s.request('GET', '/test/cold');
  t.equal(r.status, 200);
  t.equal(r.body.warmed, false, 'the thread that ran the task never ran the warm-up');
});

t.test('by default the thread that runs the first task ran the warm-up before it', async (t) => {
  const plugin: Plugin = {
    name: 'warm',
    register(app) {
      t.equal(app.warmEngines, true);
      const engine = app.engine({ name: 'warm', version: '0', module, warmup: 'markWarm' });
      app.route({ method: 'GET', path: '/test/warm', auth: 'none', handler: async () => ({ body: await engine.run('spinReport', 0) }) });
    },
  };
  const s = await startServer({ plugins: [plugin] });
  t.teardown(() => s.close());
  await waitFor(() => s.kernel.isReady(), { what: 'the kernel to be ready' });
  t.equal((await s.request('GET', '/test/warm')).body.warmed, true);
});
