import t from 'tap';
import { checkLogicPayload } from '../../../plugins/a2a/guards/logic.js';

t.test('no contradiction is forwarded', async (t) => {
  const r = checkLogicPayload({ assertions: [{ claim: 'x > 1', negated: false }, { claim: 'y = 2', negated: true }] });
  t.equal(r.status, 'forwarded');
  t.same(r.details, { assertions: 2, contradictions: [] });
});

t.test('a claim asserted and negated is a contradiction; the list is sorted and deduplicated', async (t) => {
  const r = checkLogicPayload({
    assertions: [
      { claim: 'zeta holds', negated: false },
      { claim: 'alpha holds', negated: false },
      { claim: 'zeta holds', negated: true },
      { claim: 'alpha holds', negated: true },
      { claim: 'alpha holds', negated: true },
      { claim: 'beta', negated: false },
    ],
  });
  t.equal(r.status, 'blocked');
  t.same(r.details?.contradictions, ['alpha holds', 'zeta holds']);
  t.match(r.reason, /alpha holds; zeta holds/);
});

t.test('claims are compared after NFC, trimming and whitespace collapsing; case matters', async (t) => {
  const r = checkLogicPayload({ assertions: [{ claim: ' caf\u00e9  open ', negated: false }, { claim: 'cafe\u0301 open', negated: true }] });
  t.same(r.details?.contradictions, ['café open']);
  t.equal(checkLogicPayload({ assertions: [{ claim: 'A', negated: false }, { claim: 'a', negated: true }] }).status, 'forwarded');
});

t.test('missing, non-list, empty or malformed assertions are unverifiable', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['missing', {}],
    ['not a list', { assertions: { claim: 'x', negated: false } }],
    ['empty', { assertions: [] }],
    ['item not an object', { assertions: ['x'] }],
    ['claim not a string', { assertions: [{ claim: 1, negated: false }] }],
    ['negated missing', { assertions: [{ claim: 'x' }] }],
    ['negated not boolean', { assertions: [{ claim: 'x', negated: 'yes' }] }],
    ['blank claim', { assertions: [{ claim: '  ', negated: false }] }],
  ];
  for (const [name, payload] of cases) t.equal(checkLogicPayload(payload).status, 'unverifiable', name);
});
