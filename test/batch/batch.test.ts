import t from 'tap';
import type { Plugin, Verifier } from '../../core/types.js';
import { unverifiable, verified, blocked } from '../../core/verdict.js';
import { HttpError, Problems } from '../../core/errors.js';
import batch, { type BatchAttestor } from '../../plugins/batch/index.js';
import { startServer } from '../helpers/server.js';

/** Two organisations, one key each, through the public authenticator API. */
const twoOrgs: Plugin = {
  name: 'two-orgs',
  register(app) {
    app.authenticator('apiKey', async (ctx) => {
      const k = ctx.headers['x-api-key'];
      if (k !== 'key-a' && k !== 'key-b') throw new HttpError(Problems.unauthorized, 'bad key');
      return { kind: 'apiKey', orgId: k === 'key-a' ? 'org-a' : 'org-b', scopes: ['verify:read'] };
    });
  },
};

/** A math verifier that proves `a=a` shapes by string equality: enough to drive the batch's paths. */
const fakeMath: Verifier = {
  async verify(input) {
    const e = String(input.expression);
    if (e === 'boom') throw new Error('engine exploded');
    if (!e.includes('=')) return unverifiable('only computed', { value: e });
    const [l, r] = e.split('=');
    return verified(l === r ? 'holds' : 'does not hold', { is_valid: l === r }, { engine: 'fake-math', engine_version: '1', input: e, result: l === r });
  },
};
const fakeLogic: Verifier = {
  async verify(input) {
    return blocked('syntax', 'logic_verifier.syntax_error', { seen: input.query });
  },
};

function engines(attestor?: BatchAttestor): Plugin {
  return {
    name: 'fake-engines',
    provides: ['verifier.math', 'verifier.logic', ...(attestor ? (['attestation.batch'] as const) : [])],
    register(app) {
      app.provide('verifier.math', fakeMath);
      app.provide('verifier.logic', fakeLogic);
      if (attestor) app.provide('attestation.batch', attestor);
    },
  };
}

t.test('items are verified in order, each by its engine, and the job is stored', async (t) => {
  const attestor: BatchAttestor = { gate: async (d) => ({ result: d, attestation: 'signed.jwt.token' }) };
  const s = await startServer({ plugins: [twoOrgs, engines(attestor), batch] });
  t.teardown(() => s.close());
  const items = [
    { query: 'x=x', type: 'math' },
    { query: '1=2', type: 'math' },
    { query: '2+2', type: 'math' },
    { query: '(AND', type: 'logic' },
    { query: 'is water wet?' },
    { query: 'boom', type: 'math' },
  ];
  const r = await s.request('POST', '/v1/verify/batch', { apiKey: 'key-a', body: { items } });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'completed');
  t.equal(r.body.items.length, 6);
  t.same(r.body.items.map((i: any) => i.index), [0, 1, 2, 3, 4, 5], 'results keep item order');
  t.equal(r.body.items[0].result.status, 'VERIFIED');
  t.equal(r.body.items[0].attestation, 'signed.jwt.token');
  t.equal(r.body.items[1].result.status, 'VERIFIED', 'a refuted claim is still a proof');
  t.equal(r.body.items[1].result.developer_fields.is_valid, false);
  t.equal(r.body.items[2].result.status, 'UNVERIFIABLE', 'an expression without a claim is never VERIFIED');
  t.equal(r.body.items[3].result.developer_fields.constraint_id, 'logic_verifier.syntax_error');
  t.equal(r.body.items[4].type, 'natural_language', 'type defaults to natural_language');
  t.equal(r.body.items[4].result.status, 'BLOCKED', 'no engine for the type: fail closed');
  t.equal(r.body.items[4].result.developer_fields.constraint_id, 'batch.engine_unavailable');
  t.equal(r.body.items[5].result.developer_fields.constraint_id, 'batch.item_failed', 'one failing item does not fail the batch');
  t.notOk('summary' in r.body, 'no pass/fail aggregate');

  const got = await s.request('GET', `/verify/batch/${r.body.job_id}`, { apiKey: 'key-a' });
  t.equal(got.status, 200);
  t.same(got.body.results, r.body.items);
  const other = await s.request('GET', `/verify/batch/${r.body.job_id}`, { apiKey: 'key-b' });
  t.equal(other.status, 403, 'another organisation gets 403');
  const missing = await s.request('GET', '/verify/batch/00000000-0000-0000-0000-000000000000', { apiKey: 'key-a' });
  t.equal(missing.status, 404);
});

t.test('a VERIFIED math item without a signer is UNVERIFIABLE with the signing constraint', async (t) => {
  const s = await startServer({ plugins: [twoOrgs, engines(), batch] });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: [{ query: 'a=a', type: 'math' }] } });
  t.equal(r.body.items[0].result.status, 'UNVERIFIABLE');
  t.equal(r.body.items[0].result.proof_ref, null);
  t.equal(r.body.items[0].result.developer_fields.constraint_id, 'api.attestation.signing_error');
});

t.test('a signer that throws fails closed the same way', async (t) => {
  const attestor: BatchAttestor = {
    gate: async () => {
      throw new Error('hsm offline');
    },
  };
  const s = await startServer({ plugins: [twoOrgs, engines(attestor), batch] });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: [{ query: 'a=a', type: 'math' }] } });
  t.equal(r.body.items[0].result.status, 'UNVERIFIABLE');
  t.equal(r.body.items[0].result.developer_fields.constraint_id, 'api.attestation.signing_error');
});

t.test('a math item is attested for the expression the engine evaluates, as the route does', async (t) => {
  const subjects: string[] = [];
  const attestor: BatchAttestor = {
    gate: async (d, subject) => {
      subjects.push(subject.query);
      return { result: d, attestation: 'signed.jwt.token' };
    },
  };
  const s = await startServer({ plugins: [twoOrgs, engines(attestor), batch] });
  t.teardown(() => s.close());
  // fullwidth letters and surrounding blanks: the math engine proves the NFKC-normalised, trimmed text
  const r = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: [{ query: '  ａ=ａ\n', type: 'math' }] } });
  t.equal(r.status, 200);
  t.same(subjects, ['a=a']);
  t.equal(r.body.items[0].query, '  ａ=ａ\n', 'the item still echoes what was sent');
});

t.test('limits: at most 100 items, at least one, known types only', async (t) => {
  const s = await startServer({ plugins: [twoOrgs, engines(), batch] });
  t.teardown(() => s.close());
  const many = Array.from({ length: 101 }, () => ({ query: '1', type: 'math' }));
  t.equal((await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: many } })).status, 400);
  t.equal((await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: [] } })).status, 400);
  const bad = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: [{ query: 'x', type: 'image' }] } });
  t.equal(bad.status, 400);
  t.equal(bad.body.errors[0].field, '/body/items/0/type');
  const hundred = Array.from({ length: 100 }, (_, i) => ({ query: `${i}=${i}`, type: 'math' }));
  const ok = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: hundred } });
  t.equal(ok.status, 200);
  t.equal(ok.body.total, 100);
});

t.test('each item is a unit of the plan; a batch larger than what is left is 429 before any work', async (t) => {
  const { createAuthPlugin } = await import('../../plugins/auth/index.js');
  const { signup, createKey } = await import('../helpers/tenancy.js');
  let calls = 0;
  const counting: Plugin = {
    name: 'counting-engine',
    provides: ['verifier.math'],
    register(app) {
      app.provide('verifier.math', { verify: async (input: Record<string, unknown>) => (calls++, fakeMath.verify(input, { signal: new AbortController().signal, principal: null })) } as Verifier);
    },
  };
  const s = await startServer({ plugins: [createAuthPlugin(), counting, batch], config: { limits: { plans: { free: { per_minute: 5, per_day: 100 } } } } });
  t.teardown(() => s.close());
  const acct = await signup(s);
  const key = (await createKey(s, acct.token)).key;
  const items = (n: number) => ({ items: Array.from({ length: n }, () => ({ query: '1=1', type: 'math' })) });
  const three = await s.request('POST', '/verify/batch', { apiKey: key, body: items(3) });
  t.equal(three.status, 200, three.text);
  t.equal(three.headers.get('ratelimit-remaining'), '2', 'three items cost three units');
  t.equal(calls, 3);
  const over = await s.request('POST', '/verify/batch', { apiKey: key, body: items(3) });
  t.equal(over.status, 429, 'one unit paid on arrival, two more are not left');
  t.ok(Number(over.headers.get('retry-after')) >= 1);
  t.match(over.body.detail, /2 units exceed the 1 left/);
  t.equal(calls, 3, 'no item ran');
  const one = await s.request('POST', '/verify/batch', { apiKey: key, body: items(1) });
  t.equal(one.status, 200, 'the refused charge counted nothing beyond its request');
  // larger than a whole minute of the plan: no wait would help, so no 429 and no Retry-After
  const fresh = (await createKey(s, (await signup(s)).token)).key;
  const never = await s.request('POST', '/verify/batch', { apiKey: fresh, body: items(6) });
  t.equal(never.status, 413, `six items on a plan of five a minute can never be granted: ${never.text}`);
  t.equal(never.body.code, 'plan_limit_exceeded');
  t.match(never.body.detail, /needs 6 units and the plan allows 5 per minute/);
  t.equal(never.headers.get('retry-after'), null, 'no Retry-After: waiting does not help');
  t.equal(calls, 4, 'no item of it ran');
});

t.test('jobs are kept for the retention and their stored size is capped', async (t) => {
  const { createBatchPlugin, BATCH_COLLECTIONS, BATCH_JOBS_SERVICE } = await import('../../plugins/batch/index.js');
  let clock = Date.UTC(2030, 0, 1);
  const s = await startServer({
    plugins: [twoOrgs, engines(), createBatchPlugin({ now: () => clock })],
    config: { batch: { retention_seconds: 3600, max_stored_bytes: 4096 } },
  });
  t.teardown(() => s.close());
  const big = { items: Array.from({ length: 20 }, (_, i) => ({ query: `${'x'.repeat(300)}${i}=${'x'.repeat(300)}${i}`, type: 'math' as const })) };
  const r = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: big });
  t.equal(r.status, 200);
  t.equal(r.body.items.length, 20, 'the response has every result');
  const job = await s.request('GET', `/verify/batch/${r.body.job_id}`, { apiKey: 'key-a' });
  t.equal(job.status, 200);
  t.equal(job.body.total, 20);
  t.equal(job.body.results_truncated, true);
  t.ok(job.body.results.length > 0 && job.body.results.length < 20, `kept ${job.body.results.length}`);
  t.same(job.body.results.map((x: { index: number }) => x.index), job.body.results.map((_: unknown, i: number) => i), 'the leading results');
  t.equal(job.body.expires_at, new Date(Date.UTC(2030, 0, 1, 1)).toISOString());
  const stored = await s.kernel.app.store.collection<unknown>(BATCH_COLLECTIONS.jobs).get(r.body.job_id);
  t.ok(Buffer.byteLength(JSON.stringify(stored)) <= 4096, 'stored copy within the cap');

  const small = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: [{ query: '1=1', type: 'math' }] } });
  t.equal((await s.request('GET', `/verify/batch/${small.body.job_id}`, { apiKey: 'key-a' })).body.results_truncated, false);

  clock += 3600_000;
  t.equal((await s.request('GET', `/verify/batch/${r.body.job_id}`, { apiKey: 'key-a' })).status, 404, 'expired');
  const fresh = await s.request('POST', '/verify/batch', { apiKey: 'key-a', body: { items: [{ query: '2=2', type: 'math' }] } });
  const jobs = s.kernel.app.store.collection<unknown>(BATCH_COLLECTIONS.jobs);
  await s.kernel.app.service(BATCH_JOBS_SERVICE)!.sweep();
  t.equal(await jobs.get(r.body.job_id), undefined, 'the sweep removed the expired job from the store');
  t.equal(await jobs.get(small.body.job_id), undefined);
  t.not(await jobs.get(fresh.body.job_id), undefined, 'a job within its retention stays');
});
