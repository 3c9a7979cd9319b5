import { Writable } from 'node:stream';
import { SenderAuthenticator } from '../../plugins/a2a/sender-auth.js';
import { pino } from 'pino';
import t from 'tap';
import { A2A_GUARDS_SERVICE, GuardRegistry, type Guard } from '../../plugins/a2a/index.js';
import { A2AGateway } from '../../plugins/a2a/gateway.js';
import { passthroughGuard } from '../../plugins/a2a/guards/passthrough.js';
import { A2AMetrics } from '../../plugins/a2a/metrics.js';
import { loadSigningKey } from '../../plugins/a2a/signer.js';
import { TrustBoundary } from '../../plugins/a2a/trust-boundary.js';
import { Metrics } from '../../core/obs/metrics.js';
import type { Plugin } from '../../core/types.js';
import { decodeJwt, intercept, invoice, KEY_PEM, message, startA2A } from '../helpers/a2a.js';

/** an operator plugin: registers a data_query guard through the public service */
function sqlGuardPlugin(seen: string[]): Plugin {
  return {
    name: 'operator-sql-guard',
    needs: [A2A_GUARDS_SERVICE],
    register(app) {
      const registry = app.service(A2A_GUARDS_SERVICE);
      if (!registry) throw new Error('a2a plugin not loaded');
      registry.register('data_query', {
        name: 'sql_readonly_guard',
        check(payload, ctx) {
          seen.push(ctx.traceId);
          const q = String(payload.query ?? '');
          if (/^\s*select\b/i.test(q) && !/;/.test(q)) return { status: 'forwarded', reason: 'read-only query', details: { query_kind: 'select' } };
          return { status: 'blocked', reason: 'only single SELECT statements may be sent', details: null };
        },
      });
    },
  };
}

const throwingGuard = (name: string): Plugin => ({
  name: `operator-${name}`,
  needs: [A2A_GUARDS_SERVICE],
  register(app) {
    app.service(A2A_GUARDS_SERVICE)!.register('general', {
      name,
      check() {
        throw new Error('boom: secret internal detail');
      },
    });
  },
});

t.test('an operator plugin adds a guard for a payload type', async (t) => {
  const seen: string[] = [];
  const s = await startA2A({}, [sqlGuardPlugin(seen)]);
  t.teardown(() => s.close());
  const ok = await intercept(s, message({ payload_type: 'data_query', payload: { query: 'SELECT * FROM t' } }));
  t.equal(ok.body.status, 'forwarded');
  t.equal(ok.body.engine_used, 'sql_readonly_guard');
  t.equal(decodeJwt(ok.body.attestation_jwt).claims.svc_a2a.engine, 'sql_readonly_guard');
  const no = await intercept(s, message({ payload_type: 'data_query', payload: { query: 'DELETE FROM t' } }));
  t.equal(no.body.status, 'blocked');
  t.same(seen, [ok.body.audit_trace_id, no.body.audit_trace_id], 'the guard saw each trace id');
  t.equal((await intercept(s, message({ payload_type: 'general' }))).body.engine_used, 'passthrough', 'other types unchanged');
  const m = (await s.request('GET', '/a2a/metrics', { apiKey: 'svc_test_harness_key' })).body;
  t.equal(m.engines.sql_readonly_guard, 2);
});

t.test('registry rules: known payload types, one operator guard per type, valid guard shape', async (t) => {
  const replaced: string[] = [];
  const r = new GuardRegistry((type, prev, next) => replaced.push(`${type}:${prev}->${next}`));
  r.registerBuiltin('general', passthroughGuard);
  const g: Guard = { name: 'mine', check: () => ({ status: 'unverifiable', reason: null }) };
  r.register('general', g);
  t.same(replaced, ['general:passthrough->mine']);
  t.throws(() => r.register('general', { ...g, name: 'other' }), /already has the guard mine/);
  t.throws(() => r.register('sql' as any, g), /unknown payload type/);
  t.throws(() => r.register('data_query', { name: 'Bad Name', check: g.check }), /name/);
  t.throws(() => r.register('data_query', { name: 'ok' } as any), /check/);
  t.equal(r.get('general'), g);
});

t.test('internal failure → error verdict; blocked or not per block_on_error', async (t) => {
  for (const blockOnError of [true, false]) {
    const s = await startA2A({ block_on_error: blockOnError }, [throwingGuard('fragile_guard')]);
    const r = await intercept(s, message({ payload_type: 'general' }));
    t.equal(r.status, 200);
    t.equal(r.body.status, 'error');
    t.equal(r.body.engine_used, 'fragile_guard');
    t.equal(r.body.details.blocked, blockOnError, `block_on_error=${blockOnError}`);
    t.notOk(r.text.includes('boom'), 'no exception text in the verdict');
    t.equal(decodeJwt(r.body.attestation_jwt).claims.svc_a2a.verdict, 'error', 'error verdicts are signed');
    const m = (await s.request('GET', '/a2a/metrics', { apiKey: 'svc_test_harness_key' })).body;
    t.equal(m.errors, 1);
    await s.close();
  }
});

t.test('a guard returning a malformed outcome is an error, never a forward', async (t) => {
  const liar: Plugin = {
    name: 'operator-liar',
    needs: [A2A_GUARDS_SERVICE],
    register(app) {
      app.service(A2A_GUARDS_SERVICE)!.register('general', { name: 'liar', check: () => ({ status: 'FORWARDED', reason: 1 }) as any });
    },
  };
  const s = await startA2A({}, [liar]);
  t.teardown(() => s.close());
  const r = await intercept(s, message());
  t.equal(r.body.status, 'error');
  t.equal(r.body.details.blocked, true);
});

t.test('a code-engine worker failure is an error verdict (fail closed)', async (t) => {
  const s = await startA2A({}, [], { workers: { threads: 1, task_timeout_ms: 10 } });
  t.teardown(() => s.close());
  const r = await intercept(s, message({ payload_type: 'code_execution', payload: { code: 'x = 1\n'.repeat(20000) } }));
  t.equal(r.body.status, 'error');
  t.equal(r.body.details.blocked, true);
  t.match(r.body.details.error_kind, /^engine_/);
});

t.test('without the code plugin, code_guard blocks every code message (fail closed, signed)', async (t) => {
  const s = await startA2A({}, [], {}, { withCode: false });
  t.teardown(() => s.close());
  for (const code of ['def add(a, b):\n    return a + b\n', 'eval(x)']) {
    const r = await intercept(s, message({ payload_type: 'code_execution', payload: { code } }));
    t.equal(r.status, 200);
    t.equal(r.body.status, 'blocked', code);
    t.equal(r.body.engine_used, 'code_guard');
    t.equal(r.body.details.constraint_id, 'a2a.code.analyzer_unavailable');
    t.ok(r.body.attestation_jwt, 'a blocked verdict is signed');
  }
});

t.test('enable_* flags off: that payload type becomes unverifiable passthrough', async (t) => {
  const s = await startA2A({ enable_financial_verification: false, enable_logic_verification: false, enable_code_verification: false });
  t.teardown(() => s.close());
  const cases = [
    message({ payload_type: 'financial_transaction', payload: invoice([{ amount: 1 }], 999) }),
    message({ payload_type: 'logic_assertion', payload: { assertions: [{ claim: 'p', negated: false }, { claim: 'p', negated: true }] } }),
    message({ payload_type: 'code_execution', payload: { code: 'eval(x)' } }),
  ];
  for (const m of cases) {
    const r = await intercept(s, m);
    t.equal(r.body.status, 'unverifiable', String(m.payload_type));
    t.equal(r.body.engine_used, 'passthrough');
    t.equal(r.body.attestation_jwt, null);
    t.match(r.body.details.disabled_by, /^enable_/);
  }
});

t.test('one structured info line per intercept: trace id, verdict, engine, latency', async (t) => {
  const lines: any[] = [];
  const log = pino({ level: 'info' }, new Writable({ write(chunk, _e, cb) { lines.push(JSON.parse(chunk.toString())); cb(); } }));
  const key = loadSigningKey(KEY_PEM, 'log-test', 300);
  if (!key.ok) throw new Error(key.reason);
  const guards = new GuardRegistry();
  guards.registerBuiltin('general', passthroughGuard);
  const boundary = new TrustBoundary({ blocklist: new Set(), blockedPairs: new Set(), allowlist: new Map(), defaultAllow: true, maxRequestsPerMinute: 60 });
  const senders = new SenderAuthenticator({ mode: 'off', allowlist: new Map(), agentKey: async () => undefined });
  const gw = new A2AGateway({ signer: key.signer, boundary, senders, guards, metrics: new A2AMetrics(new Metrics()), blockOnError: true, disabled: new Map() });
  const v = await gw.intercept(message() as any, { principal: null, raw: null }, new AbortController().signal, log);
  t.equal(lines.length, 1);
  t.match(lines[0], { level: 30, msg: 'a2a.intercept', trace_id: v.audit_trace_id, verdict: 'unverifiable', engine: 'passthrough', sender: 'agent-a', receiver: 'agent-b' });
  t.type(lines[0].latency_ms, 'number');
});
