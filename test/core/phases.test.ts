import t from 'tap';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../helpers/server.js';
import { attestableRoutes } from '../helpers/attestation/harness.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { Outcome, Plugin, RequestContext } from '../../core/types.js';
import attestation from '../../plugins/attestation/index.js';
import audit, { AUDIT_SLOTS } from '../../plugins/audit/index.js';

/**
 * Verification as a route property and the kernel's named phases: a route declared with
 * `verification` goes gate → handler → seal (when it attests) → record → reply, a refusal goes
 * through record and reply too, and phases hand each other values through typed request slots.
 */
declare module '../../core/types.js' {
  interface RequestSlots {
    /** what the probe's seal leaves for its record fn */
    'test.sealed': { by: string; step: number };
  }
}

/** the phases each request went through, by request id */
type Trace = Map<string, string[]>;

function probe(trace: Trace): Plugin {
  const step = (ctx: RequestContext, what: string) => {
    const list = trace.get(ctx.id) ?? [];
    list.push(what);
    trace.set(ctx.id, list);
    return list.length;
  };
  const failing = (ctx: RequestContext, where: string) => ctx.query.fail === where;
  const route = (path: string, verification: { attest: boolean } | undefined, refuse = false) => ({
    method: 'POST' as const,
    path,
    auth: 'apiKey' as const,
    scope: 'verify:read' as const,
    ...(verification ? { verification } : {}),
    handler(ctx: RequestContext) {
      step(ctx, 'handler');
      if (refuse) throw new HttpError(Problems.forbidden, 'refused by the handler', { constraintId: 'test.refused' });
      return { body: { ok: true } };
    },
  });
  return {
    name: 'phase-probe',
    register(app) {
      const declared = { attest: true };
      app.route(route('/t/attest', declared));
      // changing the declaration afterwards changes nothing: the kernel keeps its own frozen copy
      declared.attest = false;
      app.route(route('/t/record-only', { attest: false }));
      app.route(route('/t/plain', undefined));
      app.route(route('/t/refuse', { attest: true }, true));
      app.phase('gate', (ctx) => void step(ctx, 'gate'));
      app.phase('seal', (ctx, reply) => {
        const at = step(ctx, 'seal');
        if (failing(ctx, 'seal')) throw new Error('the seal failed');
        ctx.set('test.sealed', { by: 'phase-probe', step: at });
        return { ...reply, body: { ...(reply.body as object), sealed: true } };
      });
      app.phase('record', (ctx, o: Outcome) => {
        step(ctx, `record:${o.kind}`);
        const sealed = ctx.get('test.sealed');
        // what the record saw: the seal's typed value and the reply as it will be sent
        ctx.responseHeaders['x-recorded'] = JSON.stringify({ sealed: sealed ?? null, body: o.kind === 'reply' ? o.reply.body : null });
        if (o.kind === 'reply' && failing(ctx, 'record')) throw new HttpError(Problems.internal, 'the record could not be written: withheld');
        if (o.kind === 'refused' && failing(ctx, 'record-refused')) throw new Error('an observer of a refusal failed');
      });
      app.phase('reply', (ctx, o) => {
        step(ctx, `reply:${o.kind}`);
        if (failing(ctx, 'observe')) throw new Error('a reply observer failed');
      });
    },
  };
}

const trace: Trace = new Map();
const s: TestServer = await startServer({ plugins: [testAuthPlugin(), probe(trace)] });
t.teardown(() => s.close());

async function send(path: string, o: { apiKey?: string | null } = {}) {
  const r = await s.request('POST', path, { apiKey: o.apiKey === undefined ? TEST_API_KEY : o.apiKey, body: {} });
  const id = r.headers.get('x-request-id')!;
  return { ...r, phases: trace.get(id) ?? [], recorded: JSON.parse(r.headers.get('x-recorded') ?? 'null') };
}

t.test('a route that attests is sealed, then recorded, then replied, in that order', async (t) => {
  const r = await send('/t/attest');
  t.equal(r.status, 200, r.text);
  t.same(r.phases, ['gate', 'handler', 'seal', 'record:reply', 'reply:reply']);
  t.same(r.body, { ok: true, sealed: true }, 'the sealed reply is the one sent');
  t.same(r.recorded, { sealed: { by: 'phase-probe', step: 3 }, body: { ok: true, sealed: true } }, 'the record phase read the seal\'s typed value and saw the sealed reply');
});

t.test('a verification that does not attest is recorded without a seal; a plain route is neither', async (t) => {
  const v = await send('/t/record-only');
  t.same(v.phases, ['gate', 'handler', 'record:reply', 'reply:reply']);
  t.same(v.recorded, { sealed: null, body: { ok: true } });
  const p = await send('/t/plain');
  t.equal(p.status, 200);
  t.same(p.phases, ['gate', 'handler', 'reply:reply']);
  t.equal(p.recorded, null, 'no record phase for a route without verification');
});

t.test('a refusal goes through record and reply, never through seal', async (t) => {
  const r = await send('/t/refuse');
  t.equal(r.status, 403);
  t.equal(r.body.constraint_id, 'test.refused');
  t.same(r.phases, ['gate', 'handler', 'record:refused', 'reply:refused']);
  const anon = await send('/t/attest', { apiKey: null });
  t.equal(anon.status, 401);
  t.same(anon.phases, ['record:refused', 'reply:refused'], 'refused at authenticate: no gate, no handler, still recorded');
  const plain = await send('/t/plain', { apiKey: null });
  t.same(plain.phases, ['reply:refused'], 'a plain route has no record phase on a refusal either');
});

t.test('a seal that throws refuses the request, and the refusal is recorded', async (t) => {
  const r = await send('/t/attest?fail=seal');
  t.equal(r.status, 500);
  t.equal(r.body.code, 'internal_error');
  t.notMatch(r.text, /the seal failed/, 'the exception is not sent');
  t.same(r.phases, ['gate', 'handler', 'seal', 'record:refused', 'reply:refused']);
  t.same(r.recorded, { sealed: null, body: null });
});

t.test('a record that fails on a reply withholds it; the refusal goes through record again', async (t) => {
  const r = await send('/t/attest?fail=record');
  t.equal(r.status, 500);
  t.notOk(r.body.sealed, 'the sealed reply is not sent');
  t.same(r.phases, ['gate', 'handler', 'seal', 'record:reply', 'record:refused', 'reply:refused']);
});

t.test('observers of a refusal and of a reply cannot change what is sent', async (t) => {
  const refused = await send('/t/refuse?fail=record-refused');
  t.equal(refused.status, 403, 'the refusal decided, not a 500 from its observer');
  t.same(refused.phases, ['gate', 'handler', 'record:refused', 'reply:refused'], 'a failing record observer does not stop the reply phase');
  const ok = await send('/t/attest?fail=observe');
  t.equal(ok.status, 200);
  t.same(ok.body, { ok: true, sealed: true });
  t.same(ok.phases, ['gate', 'handler', 'seal', 'record:reply', 'reply:reply']);
});

t.test('a verification route needs an authenticated auth kind and a boolean attest', async (t) => {
  const declaring = (def: Record<string, unknown>): Plugin => ({
    name: 'bad-verification',
    register(app) {
      app.route({ method: 'POST', path: '/t/bad', handler: () => ({ body: {} }), ...def } as never);
    },
  });
  await t.rejects(startServer({ plugins: [declaring({ auth: 'none', verification: { attest: false } })] }), /verification needs an authenticated auth kind/);
  await t.rejects(startServer({ plugins: [testAuthPlugin(), declaring({ auth: 'apiKey', scope: 'verify:read', verification: { attest: 'yes' } })] }), /verification needs/);
  await t.rejects(startServer({ plugins: [testAuthPlugin(), declaring({ auth: 'apiKey', scope: 'verify:read', verification: true })] }), /verification needs/);
});

t.test('with the real plugins, the attestation sealed rides in the audit entry\'s one commit', async (t) => {
  const real = await startServer({ plugins: [testAuthPlugin(), attestation, audit, attestableRoutes] });
  t.teardown(() => real.close());
  const chain = real.kernel.app.service('audit.chain');
  if (!chain) return void t.fail('the audit chain is configured');
  const before = { ...chain.stats };
  const r = await real.request('POST', '/test/attestable', { apiKey: TEST_API_KEY, body: { expression: 'x*2=x+x' } });
  t.equal(r.status, 200, r.text);
  t.type(r.body.attestation_id, 'string', 'sealed');
  t.match(r.headers.get('x-audit-log-id'), /./, 'recorded');
  t.equal(chain.stats.commits - before.commits, 1, 'one commit for the request');
  t.equal(chain.stats.entries - before.entries, 1, 'one entry');
  // the record was handed to the audit phase through the typed slot and written in its commit only
  const rec = await real.request('GET', `/attestation/${r.body.attestation_id}`, { apiKey: TEST_API_KEY });
  t.equal(rec.status, 200, 'the attestation record is durable');

  const plain = await real.request('POST', '/test/plain', { apiKey: TEST_API_KEY, body: { expression: 'x*2=x+x' } });
  t.equal(plain.status, 200);
  t.notOk('attestation' in plain.body, 'a verification that does not attest is not sealed');
  t.match(plain.headers.get('x-audit-log-id'), /./, 'but it is recorded');
});

/**
 * Compile-time checks (tsc builds this file before tap runs it): a slot's key decides its type,
 * so a phase cannot read another phase's value under a wrong type, nor set one.
 */
export function slotTypes(ctx: RequestContext): void {
  // @ts-expect-error the audit log id is a string, not a number
  const asNumber: number | undefined = ctx.get(AUDIT_SLOTS.logId);
  // @ts-expect-error the seal's writes are WriteOps, not strings
  const asStrings: readonly string[] | undefined = ctx.get(AUDIT_SLOTS.with);
  // @ts-expect-error the probe's seal value has no `token`
  const token: string | undefined = ctx.get('test.sealed')?.token;
  // @ts-expect-error a value of the wrong type cannot be set under a key
  ctx.set('test.sealed', 'sealed');
  // @ts-expect-error a key nobody declared cannot be read
  ctx.get('test.undeclared');
  // and the right type needs no cast
  const id: string | undefined = ctx.get(AUDIT_SLOTS.logId);
  void [asNumber, asStrings, token, id];
}
