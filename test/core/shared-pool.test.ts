import t, { type Test } from 'tap';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import ops from '../../plugins/ops/index.js';
import code from '../../plugins/engines/code/index.js';
import { sharedPoolThreads } from '../../core/workers/pools.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import { sendRequest, startServer, testAuthPlugin, TEST_API_KEY, TEST_SECRETS } from '../helpers/server.js';

/**
 * The shared engine pool's size (issue 45): by default one fewer than the cores, so on two cores a
 * burst does not start a second thread (a heap and every engine's modules) for CPU the main thread
 * and z3 already take. Read through the svc_engine_pool_threads gauge, as an operator would.
 */
t.test('workers.threads defaults to null: one fewer than the cores, at least 1, at most 64', async (t) => {
  const secrets = { SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key, SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret, SVC_AUDIT_SECRET_KEY: TEST_SECRETS.audit_secret_key };
  t.equal(loadServiceConfig({ env: secrets, file: null }).workers.threads, null);
  t.equal(loadServiceConfig({ env: { ...secrets, SVC_WORKER_THREADS: '3' }, file: null }).workers.threads, 3);
  t.equal(loadServiceConfig({ env: { ...secrets, SVC_WORKER_THREADS: 'null' }, file: null }).workers.threads, null);
  t.throws(() => loadServiceConfig({ env: { ...secrets, SVC_WORKER_THREADS: '0' }, file: null }), /workers\.threads/);
  t.same([1, 2, 3, 8, 200].map((c) => sharedPoolThreads(c)), [1, 1, 2, 7, 64]);
  t.equal(sharedPoolThreads(), Math.max(1, availableParallelism() - 1));
});

async function burstThenScrape(t: Test, threads: number | undefined): Promise<number> {
  const s = await startServer({
    plugins: [testAuthPlugin(), ops, code],
    config: { metrics: { port: 0 }, auth: { metrics_operator_user_ids: ['user-test'] }, workers: { ...(threads ? { threads } : {}), task_timeout_ms: 60_000 } },
  });
  t.teardown(() => s.close());
  const listener = s.kernel.app.service('ops.metrics_listener')!;
  const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  // a burst deep enough that a pool allowed a second thread starts one (the pool grows when a task has no free thread)
  const body = { code: Array.from({ length: 400 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join('') };
  const replies = await Promise.all(Array.from({ length: 48 }, () => s.request('POST', '/verify/code', { body, apiKey: TEST_API_KEY })));
  t.same([...new Set(replies.map((r) => r.status))], [200]);
  const text = (await sendRequest(base, 'GET', '/metrics')).text;
  const m = /^svc_engine_pool_threads\{pool="engines"\} (\d+)$/m.exec(text);
  t.ok(m, 'the shared pool has a gauge series');
  return Number(m?.[1]);
}

t.test('by default a burst grows the shared pool to at most one fewer than the cores', async (t) => {
  const n = await burstThenScrape(t, undefined);
  t.ok(n >= 1 && n <= sharedPoolThreads(), `${n} thread(s), at most ${sharedPoolThreads()}`);
});

t.test('an explicit workers.threads is the bound instead, and the gauge follows the pool as it grows', async (t) => {
  const n = await burstThenScrape(t, 3);
  t.ok(n >= 1 && n <= 3, `${n} thread(s), at most 3`);
});
