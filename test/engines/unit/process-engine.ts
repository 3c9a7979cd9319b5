import t from 'tap';
import { checkIrac, checkMilestones, normalise } from '../../../plugins/engines/process/engine.js';

t.test('IRAC: each step needs its own marker', async (t) => {
  const full = 'Issue: whether the contract binds. Rule: under the statute an offer needs acceptance. ' +
    'In this case the buyer signed. Therefore the contract binds.';
  const r = checkIrac(full);
  t.equal(r.verified, true);
  t.equal(r.score, 1);
  t.same(r.missing_steps, []);
  t.equal(r.mechanism, 'keyword_markers');
  t.equal(r.in_order, true);

  const noRule = 'The question is whether he is liable. Here, he drove fast. Accordingly he is liable.';
  const n = checkIrac(noRule);
  t.equal(n.verified, false);
  t.equal(n.score, 0.75);
  t.same(n.missing_steps, ['rule']);

  t.same(checkIrac('He drove fast and hit a fence.').missing_steps, ['issue', 'rule', 'application', 'conclusion']);
  t.equal(checkIrac('He drove fast and hit a fence.').score, 0);
  t.same(checkIrac('See § 2 of the act.').missing_steps, ['issue', 'application', 'conclusion'], 'a section sign is a rule marker');
  // words merely containing a marker do not count
  t.same(checkIrac('Thereforest issues rules heretofore').missing_steps, ['issue', 'rule', 'application', 'conclusion']);

  const reversed = checkIrac('Conclusion: liable. Application: he drove. Rule: duty of care. Issue: negligence?');
  t.equal(reversed.verified, true);
  t.equal(reversed.in_order, false, 'order is reported, not required');
});

t.test('milestones: normalised whole-phrase occurrence anywhere', async (t) => {
  t.equal(normalise('  Hello,   WORLD!! ﬁne '), 'hello world fine');
  const trace = 'First we Parse the input; then we type-check it. Finally: code generation.';
  const r = checkMilestones(trace, ['parse the input', 'Type check', 'code generation']);
  t.equal(r.verified, true);
  t.equal(r.process_rate, 1);
  t.same(r.missed_milestones, []);
  t.equal(r.in_order, true);

  const m = checkMilestones(trace, ['code generation', 'optimise', 'parse']);
  t.equal(m.verified, false);
  t.equal(m.process_rate_exact, '2/3');
  t.equal(m.process_rate, 2 / 3);
  t.same(m.missed_milestones, ['optimise']);
  t.same(m.found_milestones, ['code generation', 'parse']);
  t.equal(m.in_order, false);

  t.same(checkMilestones('the syntax tree', ['tax']).missed_milestones, ['tax'], 'whole words only');
});
