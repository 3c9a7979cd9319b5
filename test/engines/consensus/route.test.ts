import t from 'tap';
import consensusPlugin from '../../../plugins/engines/consensus/index.js';
import mathPlugin from '../../../plugins/engines/math/index.js';
import logicPlugin from '../../../plugins/engines/logic/index.js';
import { HttpError, defineProblem } from '../../../core/errors.js';
import { verified, blocked } from '../../../core/verdict.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';
import type { Plugin, Verifier } from '../../../core/types.js';

type Behaviour = 'true' | 'false' | 'hang' | 'throw503' | 'throw' | 'down';

/** stand-ins for verifier.math / verifier.logic whose answers the test chooses */
function stubs(b: Partial<Record<'math' | 'logic', Behaviour>>): Plugin {
  const make = (name: string, how: Behaviour): Verifier => ({
    async verify(input, opts) {
      if (how === 'hang') {
        return new Promise((_resolve, reject) => opts?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
      }
      if (how === 'throw503') throw new HttpError(defineProblem('x_unavailable', 503, 'x'), 'down');
      if (how === 'throw') throw new Error('boom');
      if (how === 'down') return blocked('down', `${name}_verifier.engine_unavailable`);
      const holds = how === 'true';
      return verified('stub', { is_valid: holds }, { engine: name, engine_version: 'stub', input, result: holds });
    },
  });
  return {
    name: 'stub-verifiers',
    provides: Object.keys(b).map((name) => `verifier.${name}` as const),
    register(app) {
      for (const [name, how] of Object.entries(b)) app.provide(`verifier.${name}`, make(name, how));
    },
  };
}

async function server(b: Partial<Record<'math' | 'logic', Behaviour>>, deadline_ms?: number) {
  return startServer({
    plugins: [testAuthPlugin(), stubs(b), consensusPlugin],
    config: deadline_ms ? { plugin_config: { consensus: { deadline_ms } } } : {},
  });
}

t.test('modes pick 1, 2, 3 engines; unanimity gives VERIFIED', async (t) => {
  const s = await server({ math: 'true', logic: 'true' });
  t.teardown(() => s.close());
  const post = (body: unknown) => s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body });

  const single = await post({ query: '2+2=4' });
  t.equal(single.status, 200);
  t.equal(single.body.engines_used, 1);
  t.equal(single.body.verification_chain[0].engine, 'math', 'math first for arithmetic');
  t.equal(single.body.status, 'VERIFIED');
  t.equal(single.body.confidence, 100);
  t.equal(single.body.final_answer, 'true');
  t.equal(single.body.meets_requirement, true);
  t.match(single.body.proof_ref, /^sha256:/);

  const high = await s.request('POST', '/v1/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=4', verification_mode: 'high' } });
  t.equal(high.status, 200);
  t.same(high.body.verification_chain.map((e: { engine: string }) => e.engine), ['math', 'logic']);
  t.equal(high.body.agreement_status, 'unanimous');

  const max = await post({ query: '2+2=4', verification_mode: 'maximum' });
  t.equal(max.status, 200);
  t.same(max.body.verification_chain.map((e: { engine: string }) => e.engine), ['math', 'logic', 'rational']);
  t.equal(max.body.engines_used, 3);
  t.equal(max.body.status, 'VERIFIED');
  for (const e of max.body.verification_chain) {
    t.equal(e.success, true);
    t.equal(e.confidence, 100);
    t.equal(typeof e.latency_ms, 'number');
  }
  t.equal(typeof max.body.total_latency_ms, 'number');

  const dsl = await post({ query: '(AND (GT x 1) (LT x 3))' });
  t.equal(dsl.status, 200);
  t.equal(dsl.body.verification_chain[0].engine, 'logic', 'logic for DSL');
});

t.test('disagreement: 422 below min_confidence, 200 when the threshold allows it, never VERIFIED', async (t) => {
  const s = await server({ math: 'true', logic: 'true' });
  t.teardown(() => s.close());
  // the rational engine is real: 2+2=5 is false, the stubs say true → 2 of 3 agree
  const low = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=5', verification_mode: 'maximum' } });
  t.equal(low.status, 422);
  t.match(low.headers.get('content-type'), /problem\+json/);
  t.equal(low.body.code, 'consensus_below_threshold');
  t.equal(low.body.constraint_id, 'consensus.below_threshold');
  t.equal(low.body.consensus.confidence, 66.67);
  t.equal(low.body.consensus.agreement_status, 'majority');
  t.equal(low.body.consensus.status, 'UNVERIFIABLE');
  t.equal(low.body.consensus.meets_requirement, false);

  const ok = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=5', verification_mode: 'maximum', min_confidence: 0.6 } });
  t.equal(ok.status, 200);
  t.equal(ok.body.meets_requirement, true);
  t.equal(ok.body.status, 'UNVERIFIABLE');
  t.equal(ok.body.proof_ref, null);
  t.equal(ok.body.final_answer, 'true', 'majority answer');
});

t.test('one aggregate deadline: a hung engine becomes a BLOCKED chain entry', async (t) => {
  const s = await server({ math: 'true', logic: 'hang' }, 300);
  t.teardown(() => s.close());
  const r = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=4', verification_mode: 'high', min_confidence: 0.5 } });
  t.equal(r.status, 200);
  const logic = r.body.verification_chain.find((e: { engine: string }) => e.engine === 'logic');
  t.equal(logic.status, 'BLOCKED');
  t.equal(logic.success, false);
  t.equal(logic.constraint_id, 'consensus.deadline_exceeded');
  t.equal(r.body.confidence, 50);
  t.equal(r.body.status, 'UNVERIFIABLE');
  const strict = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=4', verification_mode: 'high' } });
  t.equal(strict.status, 422);
});

t.test('a throwing engine fails closed; an unavailable one is 503', async (t) => {
  const s = await server({ math: 'throw', logic: 'true' });
  const r = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=4', verification_mode: 'high', min_confidence: 0.5 } });
  t.equal(r.status, 200);
  t.equal(r.body.verification_chain[0].constraint_id, 'consensus.engine_error');
  t.equal(r.body.verification_chain[0].status, 'BLOCKED');
  await s.close();
  for (const how of ['throw503', 'down'] as const) {
    const d = await server({ math: how, logic: 'true' });
    const u = await d.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=4', verification_mode: 'high' } });
    t.equal(u.status, 503, how);
    t.equal(u.body.constraint_id, 'consensus.engine_unavailable');
    t.ok(u.headers.get('retry-after'));
    await d.close();
  }
  const noLogic = await server({ math: 'true' });
  const u = await noLogic.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '2+2=4', verification_mode: 'maximum' } });
  t.equal(u.status, 503, 'a mode needs an engine this deployment has not loaded');
  t.match(u.body.detail, /logic/);
  await noLogic.close();
});

t.test('request errors: 400 mode/confidence, 422 when too few engines can answer, 401/403', async (t) => {
  const s = await server({ math: 'true', logic: 'true' });
  t.teardown(() => s.close());
  for (const body of [
    { query: '2+2=4', verification_mode: 'paranoid' },
    { query: '2+2=4', min_confidence: 1.5 },
    { query: '2+2=4', min_confidence: -0.1 },
    { query: '2+2=4', min_confidence: '0.9' },
    { query: '' },
    {},
  ]) {
    const r = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body });
    t.equal(r.status, 400, JSON.stringify(body));
  }
  const dslHigh = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '(GT x 1)', verification_mode: 'high' } });
  t.equal(dslHigh.status, 422);
  t.equal(dslHigh.body.code, 'consensus_insufficient_engines');
  t.same(dslHigh.body.engines_possible, ['logic']);
  const prose = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: 'Is Paris the capital of France?' } });
  t.equal(prose.status, 422);
  t.equal(prose.body.query_kind, 'unsupported');
  const exprMax = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '7/2', verification_mode: 'maximum' } });
  t.equal(exprMax.status, 422, 'a bare expression has two engines (math, rational), not three');
  t.equal((await s.request('POST', '/verify/consensus', { body: { query: '1=1' } })).status, 401);
  const ro = await startServer({ plugins: [testAuthPlugin(['attestation:read']), consensusPlugin] });
  t.equal((await ro.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '1=1' } })).status, 403);
  await ro.close();
});

t.test('real engines: math, z3 and exact rationals agree', async (t) => {
  const s = await startServer({
    plugins: [testAuthPlugin(), mathPlugin, logicPlugin, consensusPlugin],
    config: { workers: { threads: 1, task_timeout_ms: 120_000 } },
  });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const yes = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '1/3 + 1/6 = 0.5', verification_mode: 'maximum' } });
  t.equal(yes.status, 200, JSON.stringify(yes.body).slice(0, 300));
  t.equal(yes.body.status, 'VERIFIED');
  t.equal(yes.body.final_answer, 'true');
  t.equal(yes.body.engines_used, 3);
  const no = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '0.1 + 0.2 = 0.30000000000000004', verification_mode: 'maximum' } });
  t.equal(no.status, 200, JSON.stringify(no.body).slice(0, 300));
  t.equal(no.body.status, 'VERIFIED');
  t.equal(no.body.final_answer, 'false', 'exact decimals: a float artefact is refuted by all three');
  t.equal(no.body.developer_fields.is_valid, false);
  const value = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '7/2', verification_mode: 'high', min_confidence: 0 } });
  t.equal(value.status, 422, 'a computed value is never a verified answer');
  t.equal(value.body.consensus.status, 'UNVERIFIABLE');
});
