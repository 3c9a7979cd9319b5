import t, { type Test } from 'tap';
import type { AddressInfo } from 'node:net';
import { type Config, type ConfigOverrides } from '../../core/config.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import { createApp } from '../../core/app.js';
import { listenEarly } from '../../sidecar/bootstrap.js';
import health from '../../plugins/health/index.js';
import { sendRequest, TEST_SECRETS } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';

function config(t: Test): Config {
  return loadServiceConfig({
    env: {},
    file: null,
    overrides: { log_level: 'SILENT', data_dir: tempDir(t, 'pg-boot-'), server: { port: 0, host: '127.0.0.1' }, secrets: TEST_SECRETS } as ConfigOverrides,
  });
}

t.test('before the kernel takes over: alive, not ready, everything else 503 with Retry-After', async (t) => {
  const server = await listenEarly(config(t));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const p of ['/healthz', '/v1/healthz', '/healthz/']) {
    const r = await sendRequest(url, 'GET', p);
    t.equal(r.status, 200, p);
    t.same(r.body, { status: 'ok' });
  }
  const ready = await sendRequest(url, 'GET', '/readyz');
  t.equal(ready.status, 503);
  t.same(ready.body, { status: 'starting' });
  const work = await sendRequest(url, 'POST', '/v1/verify/math', { body: { expression: '1+1' } });
  t.equal(work.status, 503);
  t.match(work.headers.get('content-type'), /^application\/problem\+json/);
  t.equal(work.headers.get('retry-after'), '1');
  t.equal(work.body.code, 'service_unavailable');
});

t.test('the kernel takes over the listening server without closing it', async (t) => {
  const cfg = config(t);
  const server = await listenEarly(cfg);
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  t.equal((await sendRequest(url, 'GET', '/health')).status, 503, 'not served yet');
  const kernel = await createApp({ config: cfg, plugins: [health], server });
  t.teardown(() => kernel.close());
  const addr = await kernel.listen();
  t.equal(addr.port, port, 'same socket');
  const r = await sendRequest(url, 'GET', '/health');
  t.equal(r.status, 200, 'now the pipeline answers');
  t.equal(r.body.service, 'proofgate');
  t.equal((await sendRequest(url, 'GET', '/nope')).status, 404, 'unknown routes are the kernel’s 404s, not the bootstrap’s 503');
});
