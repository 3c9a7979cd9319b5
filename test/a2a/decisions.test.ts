import t from 'tap';
import { DecisionLog, DECISIONS_PER_ORG } from '../../plugins/a2a/decisions.js';
import type { AgentMessage, VerificationVerdict } from '../../plugins/a2a/message.js';

/** The console's decision log: bounded per organisation, newest first, one organisation's never another's. */
const msg = (sender: string, receiver: string): AgentMessage => ({ sender_agent_id: sender, receiver_agent_id: receiver, payload_type: 'general', payload: {}, timestamp: '2026-12-06T00:00:00Z' });
let n = 0;
const verdict = (status: VerificationVerdict['status'], details: Record<string, unknown> | null = null): VerificationVerdict => ({
  status,
  reason: null,
  audit_trace_id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  attestation_jwt: null,
  engine_used: 'passthrough',
  // distinct, increasing times: the log orders by them
  verified_at: new Date(Date.UTC(2026, 11, 6, 0, 0, 0, n)).toISOString(),
  details,
});

t.test('per organisation, newest first, bounded', async (t) => {
  const log = new DecisionLog();
  for (let i = 0; i < DECISIONS_PER_ORG + 50; i++) log.add('org-a', msg('s', `r${i}`), verdict('forwarded'));
  log.add('org-b', msg('b', 'x'), verdict('blocked', { constraint_id: 'c'.repeat(500) }));
  const a = log.recent('org-a', 1000);
  t.equal(a.length, DECISIONS_PER_ORG, 'the oldest are dropped past the bound');
  t.equal(a[0].receiver, `r${DECISIONS_PER_ORG + 49}`, 'newest first');
  t.ok(a.every((d) => d.org_id === 'org-a'));
  const b = log.recent('org-b', 10);
  t.equal(b.length, 1);
  t.equal(b[0].constraint_id!.length, 128, 'a long constraint id is cut');
  t.same(log.recent('org-c', 10), [], 'an organisation with none sees none');
  t.equal(log.recent(null, 1000).length, DECISIONS_PER_ORG + 1, "the operator's reading spans organisations");
  t.same(log.recent('org-b', 10, { sender: 's' }), [], "a filter on another organisation's sender finds nothing");
  t.equal(log.recent('org-a', 10, { receiver: 'r3' }).length, 0, 'r3 was dropped');
  t.equal(log.recent('org-a', 10, { receiver: `r${DECISIONS_PER_ORG + 49}` }).length, 1);
});
