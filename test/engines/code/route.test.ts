import t from 'tap';
import code, { CODE_ANALYZER_SERVICE, type CodeAnalyzer, MAX_CODE_BYTES } from '../../../plugins/engines/code/index.js';
import { registerRoutes } from '../../../plugins/engines/code/routes.js';
import { EngineError } from '../../../core/workers/pools.js';
import type { EngineHandle, Plugin } from '../../../core/types.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

t.test('POST /verify/code through the worker pool', async (t) => {
  let analyzerService: CodeAnalyzer | undefined;
  const grab: Plugin = { name: 'grab', needs: [CODE_ANALYZER_SERVICE], register: (app) => void (analyzerService = app.service(CODE_ANALYZER_SERVICE)) };
  const s = await startServer({ plugins: [testAuthPlugin(), code, grab], config: { workers: { threads: 1, task_timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  const post = (body: unknown, path = '/verify/code', apiKey: string | null = TEST_API_KEY) => s.request('POST', path, { body, apiKey });

  t.equal((await post({ code: 'x = 1' }, '/verify/code', null)).status, 401, 'API key required');

  for (const path of ['/verify/code', '/v1/verify/code']) {
    const r = await post({ code: "import os\nos.system('rm -rf /tmp/' + name)\n" }, path);
    t.equal(r.status, 200, path);
    t.equal(r.body.status, 'VERIFIED');
    t.equal(r.body.admission, 'BLOCKED');
    t.equal(r.body.is_valid, false);
    t.equal(r.body.is_safe, false, 'legacy flag at the top level');
    t.equal(r.body.developer_fields.is_valid, false);
    t.ok(r.body.vulnerabilities.some((v: { rule_id: string }) => v.rule_id === 'python.process.shell_injection'));
    t.match(r.body.proof_ref, /^sha256:[0-9a-f]{64}$/);
  }

  const safe = await post({ code: 'const add = (a, b) => a + b;', language: 'javascript' });
  t.equal(safe.status, 200);
  t.equal(safe.body.status, 'VERIFIED');
  t.equal(safe.body.admission, 'ADMIT');
  t.equal(safe.body.developer_fields.is_valid, true);

  const ts = await post({ code: 'const x: number = eval(s as string);', language: 'typescript' });
  t.equal(ts.body.admission, 'BLOCKED');

  const lang = await post({ code: 'puts 1', language: 'ruby' });
  t.equal(lang.status, 200);
  t.equal(lang.body.status, 'BLOCKED');
  t.equal(lang.body.developer_fields.constraint_id, 'code_verifier.unsupported_language');
  t.equal(lang.body.proof_ref, null);

  const bad = await post({ code: 'def f(:\n  pass\n' });
  t.equal(bad.status, 200);
  t.equal(bad.body.status, 'BLOCKED');
  t.equal(bad.body.developer_fields.constraint_id, 'code_verifier.parse_error');
  t.equal(bad.body.admission, 'BLOCKED');

  const big = await post({ code: '#'.repeat(MAX_CODE_BYTES + 1) });
  t.equal(big.status, 413, 'code over the cap');
  t.equal(big.body.constraint_id, 'code_verifier.input_too_large');
  const huge = await s.request('POST', '/verify/code', { raw: JSON.stringify({ code: 'x'.repeat(600 * 1024) }), headers: { 'content-type': 'application/json' }, apiKey: TEST_API_KEY });
  t.equal(huge.status, 413, 'body over the route limit');

  t.equal((await post({})).status, 400, 'code is required');
  t.equal((await post({ code: 1 })).status, 400, 'code must be a string');
  t.equal((await post({ code: 'x', extra: true })).status, 400, 'unknown fields are refused');

  t.ok(analyzerService, 'code.analyzer service is provided');
  const a = await analyzerService!.analyze("__import__('o' + 's').system(c)", 'python');
  t.equal(a.parseOk, true);
  t.ok(a.findings.some((f) => f.rule_id === 'python.dangerous_call.__import__'));
});

t.test('the verify:read scope is required', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(['attestation:read']), code], config: { workers: { threads: 1, task_timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/verify/code', { body: { code: 'x = 1' }, apiKey: TEST_API_KEY });
  t.equal(r.status, 403);
});

t.test('timeouts and crashes fail closed; a full queue is 503', async (t) => {
  let failure: Error = new EngineError('timeout', 'deadline');
  const fake: EngineHandle = { name: 'code', version: 'test', run: () => Promise.reject(failure) };
  const plugin: Plugin = { name: 'code-fake', register: (app) => registerRoutes(app, fake) };
  const s = await startServer({ plugins: [testAuthPlugin(), plugin] });
  t.teardown(() => s.close());
  const post = () => s.request('POST', '/verify/code', { body: { code: 'x = 1' }, apiKey: TEST_API_KEY });

  const timeout = await post();
  t.equal(timeout.status, 200);
  t.equal(timeout.body.status, 'BLOCKED');
  t.equal(timeout.body.developer_fields.constraint_id, 'code_verifier.timeout');
  t.equal(timeout.body.developer_fields.reason, 'timeout');
  t.equal(timeout.body.admission, 'BLOCKED');
  t.equal(timeout.body.proof_ref, null);

  failure = new EngineError('crashed', 'worker exited');
  const crash = await post();
  t.equal(crash.body.status, 'BLOCKED');
  t.equal(crash.body.developer_fields.constraint_id, 'code_verifier.timeout');
  t.equal(crash.body.developer_fields.reason, 'crashed');

  failure = new EngineError('unavailable', 'queue is full');
  t.equal((await post()).status, 503);
});
