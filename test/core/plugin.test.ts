import t from 'tap';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';
import { diagnosticProblem } from '../../core/verdict.js';
import health from '../../plugins/health/index.js';
import type { Verifier } from '../../core/types.js';
import { tempDir } from '../helpers/temp-dir.js';

const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/word-count/index.mjs', import.meta.url));

t.test('the documented example plugin, loaded from a config path, works end to end', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(['verify:read'])], config: { plugins: { extra: [EXAMPLE], disabled: [] } } });
  t.teardown(() => s.close());
  const ok = await s.request('POST', '/v1/verify/word-count', { apiKey: TEST_API_KEY, body: { text: 'one two  three', claimed_words: 3 } });
  t.equal(ok.status, 200);
  t.equal(ok.body.status, 'VERIFIED');
  t.equal(ok.body.developer_fields.is_valid, true);
  t.equal(diagnosticProblem(ok.body), null, 'a sound DiagnosticResult');
  const wrong = await s.request('POST', '/verify/word-count', { apiKey: TEST_API_KEY, body: { text: 'one two', claimed_words: 3 } });
  t.equal(wrong.body.status, 'VERIFIED');
  t.equal(wrong.body.is_valid, false);
  t.not(wrong.body.proof_ref, ok.body.proof_ref);
  const bare = await s.request('POST', '/verify/word-count', { apiKey: TEST_API_KEY, body: { text: 'a b' } });
  t.equal(bare.body.status, 'UNVERIFIABLE', 'a computation without a claim is not a verification');
  t.equal(bare.body.proof_ref, null);
  const invalid = await s.request('POST', '/verify/word-count', { apiKey: TEST_API_KEY, body: { text: 1 } });
  t.equal(invalid.status, 400, 'its schema is enforced by the kernel');
  const anon = await s.request('POST', '/verify/word-count', { body: { text: 'a' } });
  t.equal(anon.status, 401, 'its declared auth is enforced');
  t.ok(s.kernel.app.engines().some((e) => e.name === 'word-count'));

  // its verifier service (what composite routes reach it by) reuses the route's schema
  const service = s.kernel.app.service('verifier.word-count');
  t.ok(service, 'the example provides verifier.word-count');
  const proven = await service!.verify({ text: 'a b c', claimed_words: 3 });
  t.equal(proven.status, 'VERIFIED');
  t.equal(proven.proof_ref, (await service!.verify({ text: 'a b c', claimed_words: 3 })).proof_ref, 'same input, same proof');
  const refused = await service!.verify({ text: 1 });
  t.equal(refused.status, 'BLOCKED', 'an input the route schema rejects is a BLOCKED verdict');
  t.equal(refused.developer_fields.constraint_id, 'word_count.invalid_request');
});

t.test('a path that is not a plugin stops start-up with a clear error', async (t) => {
  const dir = tempDir(t, 'pg-plugin-');
  const bad = join(dir, 'bad.mjs');
  writeFileSync(bad, 'export default { name: 42 };');
  await t.rejects(startServer({ config: { plugins: { extra: [bad], disabled: [] } } }), /does not export a plugin/);
  await t.rejects(startServer({ config: { plugins: { extra: [join(dir, 'missing.mjs')], disabled: [] } } }), /cannot load plugin/);
});

t.test('two plugins may not claim the same route or name', async (t) => {
  await t.rejects(startServer({ plugins: [health, { ...health }] }), /two plugins are named health/);
  await t.rejects(startServer({ plugins: [health, { name: 'copy', register: health.register }] }), /declared twice/);
});

t.test('a route authenticated by API key must declare a scope', async (t) => {
  const p = { name: 'scopeless', register: (app: any) => app.route({ method: 'GET', path: '/x', auth: 'apiKey', handler: () => ({}) }) };
  await t.rejects(startServer({ plugins: [p] }), /declares no scope/);
  const q = { name: 'authless', register: (app: any) => app.route({ method: 'GET', path: '/y', handler: () => ({}) }) };
  await t.rejects(startServer({ plugins: [q] }), /no valid auth kind/);
});

t.test('disabling an unknown built-in is a start-up error', async (t) => {
  await t.rejects(startServer({ plugins: [health], config: { plugins: { disabled: ['nope'], extra: [] } } }), /unknown plugin/);
});
