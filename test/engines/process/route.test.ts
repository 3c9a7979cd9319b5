import t from 'tap';
import processPlugin from '../../../plugins/engines/process/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import type { Verifier } from '../../../core/types.js';

const IRAC = 'Issue: is the tenant liable? Rule: under the lease, damage is the tenant\'s. Here, the tenant broke a window. Therefore the tenant is liable.';

t.test('POST /verify/process', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), processPlugin] });
  t.teardown(() => s.close());
  const post = (body: unknown, apiKey: string | null = TEST_API_KEY) => s.request('POST', '/verify/process', { apiKey, body });

  const ok = await post({ trace: IRAC });
  t.equal(ok.status, 200);
  t.equal(ok.body.verified, true);
  t.equal(ok.body.score, 1);
  t.same(ok.body.missing_steps, []);
  t.equal(ok.body.mechanism, 'keyword_markers');
  t.equal(ok.body.status, 'UNVERIFIABLE', 'a keyword heuristic is never VERIFIED');
  t.equal(ok.body.proof_ref, null);
  const check = ok.body.developer_fields.advisory_checks[0];
  t.equal(check.advisory_only, true);
  t.equal(check.constraint_id, 'process_verifier.irac_markers');

  const partial = await s.request('POST', '/v1/verify/process', { apiKey: TEST_API_KEY, body: { trace: 'Therefore he pays.', mode: 'irac' } });
  t.equal(partial.status, 200);
  t.equal(partial.body.verified, false);
  t.equal(partial.body.score, 0.25);
  t.same(partial.body.missing_steps, ['issue', 'rule', 'application']);

  const ms = await post({ trace: 'We gathered data, cleaned it, and trained a model.', mode: 'milestones', milestones: ['gathered data', 'trained a model', 'evaluated'] });
  t.equal(ms.status, 200);
  t.equal(ms.body.verified, false);
  t.equal(ms.body.process_rate, 2 / 3);
  t.same(ms.body.missed_milestones, ['evaluated']);
  t.equal(ms.body.status, 'UNVERIFIABLE');
  t.notOk('score' in ms.body);

  for (const body of [
    { trace: IRAC, mode: 'socratic' },
    { trace: IRAC, mode: 'milestones' },
    { trace: IRAC, mode: 'milestones', milestones: [] },
    { trace: IRAC, mode: 'milestones', milestones: ['!!!'] },
    { trace: IRAC, mode: 'milestones', milestones: [3] },
    { trace: '' },
    { mode: 'irac' },
    { trace: IRAC, extra: true },
  ]) {
    const r = await post(body);
    t.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    t.match(r.headers.get('content-type'), /problem\+json/);
  }
  t.equal((await post({ trace: IRAC }, null)).status, 401);
});

t.test('scope verify:read is required', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(['attestation:read']), processPlugin] });
  t.teardown(() => s.close());
  t.equal((await s.request('POST', '/verify/process', { apiKey: TEST_API_KEY, body: { trace: IRAC } })).status, 403);
});

t.test('verifier.process answers verdicts, invalid input BLOCKED', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), processPlugin] });
  t.teardown(() => s.close());
  const v = s.kernel.app.service('verifier.process')!;
  t.equal((await v.verify({ trace: IRAC })).status, 'UNVERIFIABLE');
  const bad = await v.verify({ trace: IRAC, mode: 'milestones' });
  t.equal(bad.status, 'BLOCKED');
  t.equal(bad.developer_fields.constraint_id, 'process_verifier.invalid_request');
  t.equal(bad.proof_ref, null);
});
