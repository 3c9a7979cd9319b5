import { pino } from 'pino';
import t from 'tap';
import { Metrics } from '../../../core/obs/metrics.js';
import type { Principal } from '../../../core/types.js';
import { A2AGateway, type Caller } from '../../../plugins/a2a/gateway.js';
import { createFinanceGuard } from '../../../plugins/a2a/guards/finance.js';
import { GuardRegistry } from '../../../plugins/a2a/guards/registry.js';
import { A2AMetrics } from '../../../plugins/a2a/metrics.js';
import { ProxyMetrics } from '../../../plugins/a2a/proxy/metrics.js';
import { messageOf, NOT_RFC8785, SENDER_UNKNOWN, verifyMessage, type SenderContext, type Voucher } from '../../../plugins/a2a/proxy/verify-message.js';
import type { VerificationItem } from '../../../plugins/a2a/proxy/mapping.js';
import { SenderAuthenticator } from '../../../plugins/a2a/sender-auth.js';
import { loadSigningKey } from '../../../plugins/a2a/signer.js';
import { TrustBoundary } from '../../../plugins/a2a/trust-boundary.js';
import { KEY_PEM } from '../../helpers/a2a.js';

/**
 * The one verify-message path the outbound proxy, the inbound guard and ext_authz adapt onto
 * (plugins/a2a/proxy/verify-message.ts): a real gateway (finance guard, ES256 signer), its steps in
 * their order, and the refusals each adapter words its own way.
 */
const key = loadSigningKey(KEY_PEM, 'verify-message-test', 300);
if (!key.ok) throw new Error(key.reason);
const signer = key.signer;

function setup() {
  const guards = new GuardRegistry();
  guards.registerBuiltin('financial_transaction', createFinanceGuard());
  const boundary = new TrustBoundary({ blocklist: new Set(), blockedPairs: new Set(), allowlist: new Map(), defaultAllow: true, maxRequestsPerMinute: 600 });
  const senders = new SenderAuthenticator({ mode: 'off', allowlist: new Map(), agentKey: async () => undefined });
  const gateway = new A2AGateway({ signer, boundary, senders, guards, metrics: new A2AMetrics(new Metrics()), blockOnError: true, disabled: new Map() });
  // what the gateway was asked: sender, receiver and the caller it was handed
  const asked: Array<{ sender: string; receiver: string; caller: Caller }> = [];
  const intercept = gateway.intercept.bind(gateway);
  gateway.intercept = (msg, caller, signal, log) => {
    asked.push({ sender: msg.sender_agent_id, receiver: msg.receiver_agent_id, caller });
    return intercept(msg, caller, signal, log);
  };
  const metrics = new Metrics();
  const deps = { gateway, metrics: new ProxyMetrics(metrics, new Set(['bank'])), forwardStatuses: new Set(['forwarded', 'heuristic_pass'] as const) };
  const counted = async () => (await metrics.registry.getSingleMetric('svc_a2a_proxy_verdicts_total')!.get()).values.map((v) => [v.labels.peer, v.labels.decision, v.value]);
  return { deps, asked, counted };
}

const log = pino({ level: 'silent' });
const signal = new AbortController().signal;
const agent: Principal = { kind: 'agentToken', orgId: 'o1', agentId: 'billing', scopes: ['verify:read'] };
const invoice = (total: string) => ({ parts: [{ data: { claimed_total: total, line_items: [{ amount: '2.50', quantity: 2 }] } }] });
const params = (message: unknown, extra: Record<string, unknown> = {}) => ({ message, ...extra });
const byCredential = (principal: Principal | null, admit?: () => Promise<void>): SenderContext => ({ by: 'credential', receiver: 'bank', principal, ...(admit ? { admit } : {}) });

t.test('a message is mapped, judged as the credential’s sender, decided and counted for its receiver', async (t) => {
  const { deps, asked, counted } = setup();
  const ok = await verifyMessage(deps, messageOf(params(invoice('5.00')), null), byCredential(agent), signal, log);
  t.ok(ok.ok);
  if (!ok.ok) return;
  t.equal(ok.decided.decision, 'forward');
  t.equal(ok.sender, 'billing');
  t.match(ok.decided.header, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the signed verdict for X-Proofgate-Verdict');
  const blocked = await verifyMessage(deps, messageOf(params(invoice('9.00')), null), byCredential(agent), signal, log);
  t.ok(blocked.ok && blocked.decided.decision === 'block' && blocked.decided.deciding.status === 'blocked', 'a wrong total is blocked');
  t.same(asked.map((a) => [a.sender, a.receiver, a.caller.principal?.agentId]), [['billing', 'bank', 'billing'], ['billing', 'bank', 'billing']]);
  t.same((await counted()).sort(), [['bank', 'block', 1], ['bank', 'forward', 1]]);
});

t.test('refusals before any verdict: nothing reaches the gateway, nothing is counted', async (t) => {
  const { deps, asked, counted } = setup();
  const cases: Array<[string, unknown, Record<string, unknown>, Principal | null, string]> = [
    ['no parts', { parts: [] }, {}, agent, 'invalid'],
    ['an ambiguous part', { parts: [{ text: 'a', data: {} }] }, {}, agent, 'invalid'],
    ['an empty named sender', { ...invoice('5.00'), metadata: { proofgate: { sender_agent_id: '' } } }, {}, agent, 'invalid'],
    ['message and params naming different senders', { ...invoice('5.00'), metadata: { proofgate: { sender_agent_id: 'billing' } } }, { metadata: { proofgate: { sender_agent_id: 'payroll' } } }, agent, 'invalid'],
    ['no credential and no name', invoice('5.00'), {}, null, 'sender_unknown'],
  ];
  for (const [what, message, extra, principal, refusal] of cases) {
    const r = await verifyMessage(deps, messageOf(params(message, extra), null), byCredential(principal), signal, log);
    t.same(r.ok ? 'verified' : r.refusal, refusal, what);
    if (!r.ok && refusal === 'sender_unknown') t.equal(r.reason, SENDER_UNKNOWN);
  }
  t.same(asked, [], 'the gateway was never asked');
  t.same(await counted(), [], 'no decision counted');
});

t.test('a payload with no RFC 8785 form is invalid, not an error', async (t) => {
  const { deps } = setup();
  const raw = Buffer.from('{"params":{"message":{"parts":[{"data":{"claimed_total":1e400,"line_items":[]}}]}}}');
  const body = JSON.parse(raw.toString()) as { params: Record<string, unknown> };
  const r = await verifyMessage(deps, messageOf(body.params, raw), byCredential(agent), signal, log);
  t.same(r.ok ? r.decided.decision : [r.refusal, r.reason], ['invalid', NOT_RFC8785]);
});

t.test('admit (ext_authz’s ownership check) runs after mapping and before the named sender is read', async (t) => {
  const { deps, asked } = setup();
  let admitted = 0;
  const refuse = async () => {
    admitted++;
    throw new Error('not the caller’s task');
  };
  const unmapped = await verifyMessage(deps, messageOf(params({ parts: [] }), null), byCredential(agent, refuse), signal, log);
  t.ok(!unmapped.ok && unmapped.refusal === 'invalid');
  t.equal(admitted, 0, 'a message that does not map never reaches admit');
  const badName = { ...invoice('5.00'), metadata: { proofgate: { sender_agent_id: 7 } } };
  await t.rejects(verifyMessage(deps, messageOf(params(badName), null), byCredential(agent, refuse), signal, log), /not the caller’s task/, 'admit refuses before the name is judged');
  t.equal(admitted, 1);
  t.same(asked, []);
});

t.test('voucher mode: the voucher is checked on the mapped items, and decides the sender', async (t) => {
  const { deps, asked } = setup();
  const seen: VerificationItem[][] = [];
  const vouching = (v: Voucher): SenderContext => ({
    by: 'voucher',
    receiver: 'bank',
    vouch: async (items) => {
      seen.push([...items]);
      return v;
    },
  });
  const named = { ...invoice('5.00'), metadata: { proofgate: { sender_agent_id: 'claims-to-be' } } };
  const trusted = await verifyMessage(deps, messageOf(params(named), null), vouching({ ok: true, sender: 'vouched-agent', senderAuth: 'agent_token' }), signal, log);
  t.ok(trusted.ok && trusted.sender === 'vouched-agent', 'the vouched sender, not the name the message gives');
  const unvouched = await verifyMessage(deps, messageOf(params(named), null), vouching({ ok: false, reason: 'no verdict' }), signal, log);
  t.ok(unvouched.ok && unvouched.sender === 'claims-to-be' && unvouched.voucher?.ok === false, 'without a voucher: the named sender, for sender auth to judge');
  const anonymous = await verifyMessage(deps, messageOf(params(invoice('5.00')), null), vouching({ ok: false, reason: 'no verdict' }), signal, log);
  t.ok(anonymous.ok && anonymous.sender === 'unknown');
  t.same(seen.map((items) => items.map((i) => i.payloadType)), [['financial_transaction'], ['financial_transaction'], ['financial_transaction']]);
  t.same(asked.map((a) => [a.sender, a.caller.principal, a.caller.vouched]), [
    ['vouched-agent', null, 'agent_token'],
    ['claims-to-be', null, undefined],
    ['unknown', null, undefined],
  ]);
  const badName = { ...invoice('5.00'), metadata: { proofgate: { sender_agent_id: '' } } };
  const invalid = await verifyMessage(deps, messageOf(params(badName), null), vouching({ ok: true, sender: 'vouched-agent', senderAuth: 'agent_token' }), signal, log);
  t.ok(!invalid.ok && invalid.refusal === 'invalid', 'a malformed name is invalid even when vouched');
  t.equal(seen.length, 4, 'the voucher was checked (and recorded) before the name was judged, as before the extraction');
});
