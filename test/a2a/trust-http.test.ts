import t from 'tap';
import { decodeJwt, intercept, invoice, message, startA2AWithoutCode, verifyWithJwk } from '../helpers/a2a.js';

t.test('every trust step blocks with a signed verdict and HTTP 200', async (t) => {
  const s = await startA2AWithoutCode({
    default_allow: false,
    blocklist: ['evil'],
    blocked_pairs: ['alice>mallory'],
    trusted_agents: 'alice,evil,bob',
    max_requests_per_minute: 2,
  });
  t.teardown(() => s.close());
  const jwk = (await s.request('GET', '/.well-known/jwks.json')).body.keys[0];
  const expect = async (m: Record<string, unknown>, step: number, constraint: string) => {
    const r = await intercept(s, m);
    t.equal(r.status, 200, `step ${step}: HTTP 200`);
    t.equal(r.body.status, 'blocked', `step ${step}: blocked`);
    t.equal(r.body.engine_used, 'trust_boundary');
    t.equal(r.body.details.trust_step, step);
    t.equal(r.body.details.constraint_id, constraint);
    t.ok(r.body.reason);
    t.ok(verifyWithJwk(r.body.attestation_jwt, jwk), `step ${step}: signed`);
    t.same(decodeJwt(r.body.attestation_jwt).claims.svc_a2a.engine, 'trust_boundary');
    return r;
  };
  await expect(message({ sender_agent_id: 'evil', receiver_agent_id: 'bob' }), 1, 'a2a.trust.sender_blocklisted');
  await expect(message({ sender_agent_id: 'alice', receiver_agent_id: 'evil' }), 2, 'a2a.trust.receiver_blocklisted');
  await expect(message({ sender_agent_id: 'alice', receiver_agent_id: 'mallory' }), 3, 'a2a.trust.pair_blocked');
  await expect(message({ sender_agent_id: 'stranger', receiver_agent_id: 'bob' }), 4, 'a2a.trust.not_allowlisted');
  const ok1 = await intercept(s, message({ sender_agent_id: 'alice', receiver_agent_id: 'bob' }));
  const ok2 = await intercept(s, message({ sender_agent_id: 'alice', receiver_agent_id: 'bob' }));
  t.same([ok1.body.engine_used, ok2.body.engine_used], ['passthrough', 'passthrough'], 'two messages fit the bucket');
  const limited = await expect(message({ sender_agent_id: 'alice', receiver_agent_id: 'bob' }), 5, 'a2a.trust.rate_limited');
  t.ok(limited.body.details.retry_after_seconds >= 1);
  t.equal((await intercept(s, message({ sender_agent_id: 'bob', receiver_agent_id: 'alice' }))).body.engine_used, 'passthrough', 'the reverse pair has its own bucket');
});

t.test('trusted agents still go through engine routing', async (t) => {
  const s = await startA2AWithoutCode({ default_allow: false, trusted_agents: 'billing' });
  t.teardown(() => s.close());
  const bad = await intercept(s, message({ sender_agent_id: 'billing', payload_type: 'financial_transaction', payload: invoice([{ amount: '5' }], '50') }));
  t.equal(bad.body.status, 'blocked');
  t.equal(bad.body.engine_used, 'finance_guard', 'an allowlisted sender is still checked by the guard');
  const good = await intercept(s, message({ sender_agent_id: 'billing', payload_type: 'financial_transaction', payload: invoice([{ amount: '5' }], '5') }));
  t.equal(good.body.status, 'forwarded');
});

t.test('scoped entries from SVC_A2A_TRUSTED_AGENTS JSON', async (t) => {
  const entries = [
    { agent_id: 'billing', allowed_receivers: ['ledger'], allowed_payload_types: ['financial_transaction'] },
    { agent_id: 'old', valid_until: '2020-01-01T00:00:00Z' },
  ];
  const s = await startA2AWithoutCode({ default_allow: false, trusted_agents: JSON.stringify(entries) });
  t.teardown(() => s.close());
  const fin = (over: Record<string, unknown>) => message({ payload_type: 'financial_transaction', payload: invoice([{ amount: 1 }], 1), ...over });
  t.equal((await intercept(s, fin({ sender_agent_id: 'billing', receiver_agent_id: 'ledger' }))).body.status, 'forwarded');
  const wrongReceiver = await intercept(s, fin({ sender_agent_id: 'billing', receiver_agent_id: 'hr' }));
  t.same([wrongReceiver.body.status, wrongReceiver.body.details.scope], ['blocked', 'receiver']);
  const wrongType = await intercept(s, message({ sender_agent_id: 'billing', receiver_agent_id: 'ledger', payload_type: 'general' }));
  t.same([wrongType.body.status, wrongType.body.details.scope], ['blocked', 'payload_type']);
  const expired = await intercept(s, message({ sender_agent_id: 'old' }));
  t.same([expired.body.status, expired.body.details.scope], ['blocked', 'expired']);
});

t.test('malformed trust configuration stops start-up', async (t) => {
  await t.rejects(startA2AWithoutCode({ trusted_agents: '[{"agent_id": 1}]' }), /trusted_agents/);
  await t.rejects(startA2AWithoutCode({ trusted_agents: '[not json' }), /not valid JSON/);
  await t.rejects(startA2AWithoutCode({ blocked_pairs: ['nopair'] }), /blocked_pairs/);
});
