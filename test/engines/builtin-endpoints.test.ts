import t from 'tap';
import { builtinsWithEngines, startServer, untilReady } from '../helpers/server.js';
import { tenant } from '../helpers/tenancy.js';
import { png } from './image/fixtures.js';

/**
 * The five endpoints of this wave through the real stack: API keys from sign-up, rate limits,
 * audit. Each call is audited with the verdict's status, and the multipart ones are hashed raw.
 */
t.test('process, rag, consensus, stats and image through the built-in plugins', async (t) => {
  // the five engines it calls, and math and logic, which consensus asks
  const s = await startServer({ plugins: builtinsWithEngines('process', 'rag', 'consensus', 'stats', 'image', 'math', 'logic'), config: { workers: { threads: 1, task_timeout_ms: 120_000 } } });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const { key } = await tenant(s, ['verify:read']);
  const post = (path: string, body: unknown) => s.request('POST', path, { apiKey: key, body });
  const multipart = async (path: string, fields: Record<string, string>, file: { field: string; data: Buffer }) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append(file.field, new Blob([file.data]), 'f');
    const r = await fetch(s.url + path, { method: 'POST', body: form, headers: { 'x-api-key': key } });
    return { status: r.status, body: (await r.json()) as any };
  };

  const p = await post('/v1/verify/process', { trace: 'Issue: x. Rule: y provides that z. Here, w. Therefore v.' });
  t.equal(p.status, 200);
  t.equal(p.body.status, 'UNVERIFIABLE');
  const r = await post('/v1/verify/rag', { target_document_id: 'd', chunks: [{ id: 'c', metadata: { document_id: 'd' } }] });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'VERIFIED');
  const c = await post('/v1/verify/consensus', { query: '6*7=42', verification_mode: 'high' });
  t.equal(c.status, 200, JSON.stringify(c.body).slice(0, 200));
  t.equal(c.body.status, 'VERIFIED');
  t.same(c.body.verification_chain.map((e: { engine: string }) => e.engine), ['math', 'logic']);
  const st = await multipart('/v1/verify/stats', { query: 'median of v' }, { field: 'file', data: Buffer.from('v\n1\n2\n4\n') });
  t.equal(st.status, 200);
  t.equal(st.body.developer_fields.value_exact, '2');
  const im = await multipart('/v1/verify/image', { claim: '4x2 PNG' }, { field: 'image', data: png(4, 2) });
  t.equal(im.status, 200);
  t.equal(im.body.verdict, 'SUPPORTED');

  const logs = await s.request('GET', '/logs?limit=20', { apiKey: key });
  t.equal(logs.status, 200);
  const routes = logs.body.logs.map((l: { route: string }) => l.route);
  for (const path of ['/verify/process', '/verify/rag', '/verify/consensus', '/verify/stats', '/verify/image']) t.ok(routes.includes(path), `${path} audited`);
});
