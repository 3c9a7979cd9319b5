import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import t from 'tap';
import { Metrics } from '../../../core/obs/metrics.js';
import { A2AGateway } from '../../../plugins/a2a/gateway.js';
import { createFinanceGuard } from '../../../plugins/a2a/guards/finance.js';
import { GuardRegistry } from '../../../plugins/a2a/guards/registry.js';
import type { Guard } from '../../../plugins/a2a/guards/types.js';
import { A2AMetrics } from '../../../plugins/a2a/metrics.js';
import { SenderAuthenticator } from '../../../plugins/a2a/sender-auth.js';
import { loadSigningKey } from '../../../plugins/a2a/signer.js';
import { TrustBoundary } from '../../../plugins/a2a/trust-boundary.js';
import { invoice, KEY_PEM, message } from '../../helpers/a2a.js';

/**
 * The request's logger reaches the gateway as a getter: it is built only when a line is written
 * (the intercept line with info enabled, or a guard failure), and a guard that fails in any way —
 * a synchronous throw, a rejected promise, a malformed outcome — still ends as an `error` verdict.
 */
const key = loadSigningKey(KEY_PEM, 'log-test', 300);
if (!key.ok) throw new Error(key.reason);
const signer = key.signer;

function gateway(o: { infoEnabled?: () => boolean; finance?: Guard } = {}): A2AGateway {
  const guards = new GuardRegistry();
  guards.registerBuiltin('financial_transaction', o.finance ?? createFinanceGuard());
  const boundary = new TrustBoundary({ blocklist: new Set(), blockedPairs: new Set(), allowlist: new Map(), defaultAllow: true, maxRequestsPerMinute: 60 });
  const senders = new SenderAuthenticator({ mode: 'off', allowlist: new Map(), agentKey: async () => undefined });
  return new A2AGateway({ signer, boundary, senders, guards, metrics: new A2AMetrics(new Metrics()), blockOnError: true, disabled: new Map(), infoEnabled: o.infoEnabled });
}

/** a logger getter that counts how often the logger was asked for, and the lines it wrote */
function lazyLog(level: string): { get: () => Logger; built: () => number; lines: any[] } {
  const lines: any[] = [];
  let built = 0;
  const log = pino({ level }, new Writable({ write(chunk, _e, cb) { lines.push(JSON.parse(chunk.toString())); cb(); } }));
  return { get: () => (built++, log), built: () => built, lines };
}

const invoiceMessage = (total = '5.00') => message({ payload_type: 'financial_transaction', payload: invoice([{ amount: '2.50', quantity: 2 }], total) }) as any;
const caller = { principal: null, raw: null };
const signal = () => new AbortController().signal;

t.test('info disabled: a forwarded intercept never builds the request logger', async (t) => {
  const l = lazyLog('error');
  const v = await gateway({ infoEnabled: () => false }).intercept(invoiceMessage(), caller, signal, l.get);
  t.equal(v.status, 'forwarded');
  t.type(v.attestation_jwt, 'string');
  t.equal(l.built(), 0);
  t.same(l.lines, []);
});

t.test('info enabled: the logger is built once and the intercept line is written', async (t) => {
  const l = lazyLog('info');
  const v = await gateway({ infoEnabled: () => true }).intercept(invoiceMessage('9.00'), caller, signal, l.get);
  t.equal(v.status, 'blocked');
  t.equal(l.built(), 1);
  t.equal(l.lines.length, 1);
  t.match(l.lines[0], { msg: 'a2a.intercept', trace_id: v.audit_trace_id, verdict: 'blocked', engine: 'finance_guard' });
  t.type(l.lines[0].latency_ms, 'number');
});

t.test('a guard that throws, rejects or answers nonsense gives an error verdict and an error line', async (t) => {
  const cases: Array<[string, Guard['check'], string]> = [
    ['throws', () => {
      throw new Error('boom');
    }, 'guard_failed'],
    ['rejects', async () => {
      throw new Error('boom');
    }, 'guard_failed'],
    ['malformed', () => ({ status: 'forwarded?' }) as any, 'malformed_outcome'],
    ['malformed async', async () => ({ status: 'forwarded', reason: 7 }) as any, 'malformed_outcome'],
  ];
  for (const [name, check, kind] of cases) {
    const l = lazyLog('info');
    const v = await gateway({ infoEnabled: () => false, finance: { name: 'finance_guard', check } }).intercept(invoiceMessage(), caller, signal, l.get);
    t.equal(v.status, 'error', name);
    t.equal(v.details?.error_kind, kind, name);
    t.equal(v.details?.blocked, true, name);
    t.ok(l.lines.some((x) => x.level === 50 && x.engine === 'finance_guard' && x.trace_id === v.audit_trace_id), `${name}: error line`);
    t.notOk(l.lines.some((x) => x.msg === 'a2a.intercept'), `${name}: no intercept line with info disabled`);
  }
});
