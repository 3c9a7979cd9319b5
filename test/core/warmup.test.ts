import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Plugin } from '../../core/types.js';
import { startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const module = new URL('../fixtures/test-engine.js', import.meta.url);
const engineWithWarmup = (name: string): Plugin => ({ name, register: (app) => void app.engine({ name, version: '0', module, warmup: 'warmAlone' }) });

t.test('warm-ups that share a pool run one after another, on the thread that stays', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'proofgate-warm-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
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
