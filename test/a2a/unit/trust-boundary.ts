import t from 'tap';
import { TrustBoundary, type TrustPolicy } from '../../../plugins/a2a/trust-boundary.js';
import { parseBlockedPairs, parseBlocklist, parseTrustedAgents, TrustConfigError } from '../../../plugins/a2a/trust-config.js';

function boundary(p: Partial<TrustPolicy> & { trusted?: string | unknown[]; blocked?: string[]; pairs?: string[] } = {}, clock?: () => number) {
  return new TrustBoundary({
    blocklist: parseBlocklist(p.blocked ?? []),
    blockedPairs: parseBlockedPairs(p.pairs ?? []),
    allowlist: parseTrustedAgents(p.trusted ?? ''),
    defaultAllow: p.defaultAllow ?? false,
    maxRequestsPerMinute: p.maxRequestsPerMinute ?? 60,
    clock,
  });
}

const step = (d: ReturnType<TrustBoundary['check']>) => (d.allowed ? 0 : d.step);

t.test('steps are evaluated in the spec order; the first failing one decides', async (t) => {
  // every step would fail for (a → b): the blocklisted sender wins
  const b = boundary({ blocked: ['a', 'b'], pairs: ['a>b'], trusted: 'someone-else', maxRequestsPerMinute: 1 });
  t.equal(step(b.check('o', 'a', 'b', 'general')), 1, '1: sender on the global blocklist');
  t.equal(step(b.check('o', 'x', 'b', 'general')), 2, '2: receiver on the global blocklist');
  const b3 = boundary({ pairs: ['a>b'], trusted: 'someone-else' });
  t.equal(step(b3.check('o', 'a', 'b', 'general')), 3, '3: pair blocked before the allowlist');
  t.equal(step(b3.check('o', 'b', 'a', 'general')), 4, 'a pair is directional: b>a is not blocked, then 4: not allowlisted');
  const b5 = boundary({ trusted: 'a', maxRequestsPerMinute: 1 });
  t.equal(step(b5.check('o', 'a', 'b', 'general')), 0);
  t.equal(step(b5.check('o', 'a', 'b', 'general')), 5, '5: bucket empty');
});

t.test('default deny: nothing configured blocks every sender at step 4', async (t) => {
  const b = boundary();
  const d = b.check('o', 'a', 'b', 'general');
  t.equal(step(d), 4);
  t.equal(!d.allowed && d.constraintId, 'a2a.trust.not_allowlisted');
});

t.test('default_allow skips step 4 but not steps 1-3 and 5', async (t) => {
  const b = boundary({ defaultAllow: true, blocked: ['evil'], pairs: ['a>c'], maxRequestsPerMinute: 1 });
  t.equal(step(b.check('o', 'evil', 'b', 'general')), 1);
  t.equal(step(b.check('o', 'b', 'evil', 'general')), 2);
  t.equal(step(b.check('o', 'a', 'c', 'general')), 3);
  t.equal(step(b.check('o', 'a', 'b', 'general')), 0);
  t.equal(step(b.check('o', 'a', 'b', 'general')), 5);
});

t.test('buckets are created only after steps 1-4 pass', async (t) => {
  const b = boundary({ blocked: ['evil'], pairs: ['a>c'], trusted: 'a' });
  b.check('o', 'evil', 'x', 'general');
  b.check('o', 'x', 'evil', 'general');
  b.check('o', 'a', 'c', 'general');
  b.check('o', 'stranger', 'x', 'general');
  t.equal(b.buckets.size, 0);
  b.check('o', 'a', 'x', 'general');
  t.equal(b.buckets.size, 1);
  t.ok(b.buckets.has('o', 'a', 'x'));
});

t.test('scoped allowlist entries: receiver, payload type, expiry', async (t) => {
  let now = Date.parse('2026-11-23T00:00:00Z');
  const b = boundary(
    {
      trusted: JSON.stringify([
        { agent_id: 'billing', allowed_receivers: ['ledger'], allowed_payload_types: ['financial_transaction'] },
        { agent_id: 'temp', valid_until: '2026-11-23T01:00:00Z' },
        'free',
      ]),
    },
    () => now,
  );
  t.equal(step(b.check('o', 'billing', 'ledger', 'financial_transaction')), 0);
  const r = b.check('o', 'billing', 'other', 'financial_transaction');
  t.equal(step(r), 4);
  t.equal(!r.allowed && r.details.scope, 'receiver');
  const p = b.check('o', 'billing', 'ledger', 'code_execution');
  t.equal(!p.allowed && p.details.scope, 'payload_type');
  t.equal(step(b.check('o', 'temp', 'anyone', 'code_execution')), 0, 'before valid_until');
  now = Date.parse('2026-11-23T01:00:00Z');
  const e = b.check('o', 'temp', 'anyone', 'code_execution');
  t.equal(!e.allowed && e.details.scope, 'expired', 'at valid_until the entry no longer admits');
  t.equal(step(b.check('o', 'free', 'anyone', 'data_query')), 0, 'a bare id in the JSON form is unrestricted');
});

t.test('several entries for one agent: any admitting entry is enough', async (t) => {
  const b = boundary({
    trusted: [
      { agent_id: 'a', allowed_receivers: ['r1'] },
      { agent_id: 'a', allowed_receivers: ['r2'], allowed_payload_types: ['general'] },
    ],
  });
  t.equal(step(b.check('o', 'a', 'r1', 'code_execution')), 0);
  t.equal(step(b.check('o', 'a', 'r2', 'general')), 0);
  t.equal(step(b.check('o', 'a', 'r2', 'code_execution')), 4);
});

t.test('comma-separated trusted agents are unrestricted; whitespace trimmed', async (t) => {
  const list = parseTrustedAgents(' a , b,,c ');
  t.same([...list.keys()], ['a', 'b', 'c']);
  t.same(list.get('b'), [{ agentId: 'b', receivers: null, payloadTypes: null, validUntil: null, jwk: null, orgId: null }]);
  t.equal(parseTrustedAgents('').size, 0);
});

t.test('malformed trust settings are start-up errors', async (t) => {
  const bad: Array<[string, () => unknown]> = [
    ['broken JSON', () => parseTrustedAgents('[{"agent_id": "a"')],
    ['unknown key', () => parseTrustedAgents([{ agent_id: 'a', allowed_recievers: ['b'] }])],
    ['no agent_id', () => parseTrustedAgents([{ allowed_receivers: ['b'] }])],
    ['bad payload type', () => parseTrustedAgents([{ agent_id: 'a', allowed_payload_types: ['sql'] }])],
    ['valid_until not a date-time', () => parseTrustedAgents([{ agent_id: 'a', valid_until: 'tomorrow' }])],
    ['valid_until without offset', () => parseTrustedAgents([{ agent_id: 'a', valid_until: '2026-11-23T01:00:00' }])],
    ['control character in a comma list', () => parseTrustedAgents('a,b\u0007c')],
    ['id too long', () => parseTrustedAgents('x'.repeat(257))],
    ['number item', () => parseTrustedAgents([42])],
    ['blocklist id with control char', () => parseBlocklist(['ok', 'bad\n'])],
    ['pair without >', () => parseBlockedPairs(['ab'])],
    ['pair with an empty side', () => parseBlockedPairs(['a>'])],
  ];
  for (const [name, fn] of bad) t.throws(fn, TrustConfigError, name);
});
