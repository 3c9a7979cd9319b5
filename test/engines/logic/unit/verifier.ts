import t from 'tap';
import { EngineError } from '../../../../core/workers/pools.js';
import { createLogicVerifier, POOL_GRACE_MS } from '../../../../plugins/engines/logic/verifier.js';
import { verdictReply } from '../../../../plugins/engines/logic/verdict.js';
import type { SolveOutcome } from '../../../../plugins/engines/logic/outcome.js';

/** The flow around the worker, with the worker replaced: deadlines, crashes, and what reaches it. */
function verifier(run: (fn: string, input: any, opts: any) => Promise<any>, timeoutMs?: number) {
  return createLogicVerifier({ engine: { run: run as never }, translator: () => undefined, timeoutMs });
}

t.test('the pool deadline becomes a timeout ERROR, never a hang or a verdict', async (t) => {
  const v = verifier(async () => {
    throw new EngineError('timeout', 'engine task exceeded 7000 ms');
  });
  const r = await v.verify({ query: '(GT x 1)' });
  t.equal(r.httpStatus, 200);
  t.match(r.body, { status: 'ERROR', error: /timeout/, diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'logic_verifier.timeout' } } });
});

t.test('a crashed or unavailable worker is 503 ERROR', async (t) => {
  for (const kind of ['crashed', 'unavailable', 'failed'] as const) {
    const v = verifier(async () => {
      throw new EngineError(kind, 'x');
    });
    const r = await v.verify({ query: '(GT x 1)' });
    t.equal(r.httpStatus, 503, kind);
    t.match(r.body, { status: 'ERROR', diagnostic: { developer_fields: { constraint_id: 'logic_verifier.engine_unavailable' } } });
  }
});

t.test('every DSL query goes to the worker, which parses it; the deadline is bounded', async (t) => {
  // the parse grows with the query, so it is the worker's (issue 45): the main thread only forwards
  const { solve } = await import('../../../../plugins/engines/logic/engine.js');
  const parseOnly = async (q: string) => solve({ query: q, timeoutMs: 1 });
  const calls: any[] = [];
  const v = verifier(async (fn, input, opts) => {
    calls.push({ fn, input, opts });
    // the worker's own answer for what it cannot parse; a formula it could is left unsolved here
    const parsed = /EXEC|\(GT x$/.test(input.query) ? await parseOnly(input.query) : null;
    return parsed ?? ({ status: 'UNSAT', canonical: '(VAR x Int) (GT x 1)', engine_version: 'test' } satisfies SolveOutcome);
  }, 2000);
  const blockedOp = await v.verify({ query: '(EXEC x)' });
  t.match(blockedOp, { httpStatus: 403, body: { status: 'BLOCKED', diagnostic: { status: 'BLOCKED', developer_fields: { error_kind: 'unknown_operator' } } } });
  const syntax = await v.verify({ query: '(GT x' });
  t.match(syntax, { httpStatus: 400, body: { status: 'ERROR', diagnostic: { developer_fields: { error_kind: 'syntax' } } } });
  await v.verify({ query: '(GT x 1)' });
  await v.verify({ query: '(GT x 1)', timeout_ms: 60_000 });
  await v.verify({ query: '(GT x 1)', timeout_ms: 100 });
  t.same(
    calls.map((c) => [c.fn, c.input.timeoutMs, c.opts.timeoutMs]),
    [
      ['solve', 2000, 2000 + POOL_GRACE_MS],
      ['solve', 2000, 2000 + POOL_GRACE_MS],
      ['solve', 2000, 2000 + POOL_GRACE_MS],
      ['solve', 2000, 2000 + POOL_GRACE_MS],
      ['solve', 100, 100 + POOL_GRACE_MS],
    ],
    'malformed queries reach the worker too; the configured timeout is a ceiling; the pool deadline sits past z3 own timeout',
  );
});

t.test('verdict mapping: z3 unknown is never SAT/UNSAT', async (t) => {
  const r = verdictReply({ status: 'ERROR', kind: 'unknown', error: 'solver could not decide the formula (incomplete quantifiers)', engine_version: 'v' }, 'dsl');
  t.match(r, { httpStatus: 200, body: { status: 'ERROR', diagnostic: { status: 'UNVERIFIABLE', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.solver_unknown' } } } });
  t.notOk('model' in r.body);
  const sat = verdictReply({ status: 'SAT', model: { x: '2' }, canonical: '(VAR x Int) (GT x 1)', engine_version: 'v' }, 'dsl');
  const other = verdictReply({ status: 'SAT', model: { x: '2' }, canonical: '(VAR x Int) (GT x 0)', engine_version: 'v' }, 'dsl');
  t.not(sat.body.diagnostic.proof_ref, other.body.diagnostic.proof_ref, 'different formulas never share a proof_ref');
});
