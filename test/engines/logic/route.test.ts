import t, { type Test } from 'tap';
import logic from '../../../plugins/engines/logic/index.js';
import type { LlmTranslator } from '../../../plugins/engines/logic/index.js';
import { proofRefOf } from '../../../core/verdict.js';
import type { Plugin, Services, Verifier } from '../../../core/types.js';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../../helpers/server.js';
import { evaluate } from './evaluate.js';

const HARD_CUBES = '(EQ (PLUS (POW x 3) (POW y 3) (POW z 3)) 33)';

function translatorPlugin(translate: LlmTranslator['translate']): Plugin {
  return { name: 'fake-translator', provides: ['llm.translator'], register: (app) => app.provide('llm.translator', { translate } as unknown as Services['llm.translator']) };
}

async function server(t: Test, extra: Plugin[] = []): Promise<TestServer> {
  const s = await startServer({ plugins: [testAuthPlugin(), ...extra, logic] });
  t.teardown(() => s.close());
  return s;
}

// one server (one z3 warm-up) for every case without a translator: each verdict depends on its
// query alone, and the case whose query times out shows the next query served as before
const bare = await server(t);

const post = (s: TestServer, body: unknown, path = '/verify/logic') => s.request('POST', path, { body, apiKey: TEST_API_KEY });

t.test('DSL over HTTP: SAT, UNSAT, BLOCKED, ERROR with the spec statuses', async (t) => {
  const s = bare;

  const sat = await post(s, { query: '(AND (GT x 5) (LT x 10) (EQ (MOD x 4) 1))' });
  t.equal(sat.status, 200);
  t.match(sat.body, { status: 'SAT', provider_used: 'dsl', diagnostic: { status: 'VERIFIED', developer_fields: { is_valid: true, sat: true } } });
  t.ok(evaluate('(AND (GT x 5) (LT x 10) (EQ (MOD x 4) 1))', sat.body.model), 'model satisfies the query');
  const df = sat.body.diagnostic.developer_fields;
  t.equal(
    sat.body.diagnostic.proof_ref,
    proofRefOf({ engine: 'logic', engine_version: df.engine_version, input: { formula: df.canonical_query }, result: { sat: true, model: sat.body.model } }),
    'proof_ref binds engine, version, canonical formula and result',
  );
  t.match(df.engine_version, /z3-solver \d+\.\d+\.\d+; Z3 /, 'engine_version names z3');

  const v1 = await post(s, { query: '(AND  (GT x 5)\n(LT x 10) (EQ (mod x 4) 1))' }, '/v1/verify/logic');
  t.equal(v1.status, 200, '/v1 path');
  t.equal(v1.body.diagnostic.proof_ref, sat.body.diagnostic.proof_ref, 'same formula in other spelling, same proof_ref');

  const unsat = await post(s, { query: '(AND (GT x 5.5) (LT x 6))' });
  t.equal(unsat.status, 200);
  t.match(unsat.body, { status: 'UNSAT', provider_used: 'dsl', diagnostic: { status: 'VERIFIED', developer_fields: { is_valid: false, sat: false } } });
  t.notOk('model' in unsat.body, 'no model on UNSAT');
  t.not(unsat.body.diagnostic.proof_ref, sat.body.diagnostic.proof_ref);

  const blocked = await post(s, { query: '(AND (GT x 5) (EXEC x))' });
  t.equal(blocked.status, 403);
  t.match(blocked.body, {
    status: 'BLOCKED', provider_used: 'dsl', error: /unknown operator 'EXEC'/,
    diagnostic: { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.unknown_operator', operator: 'EXEC' } },
  });

  // issue 46: a malformed formula is a 400 problem+json (the endpoint's members as extensions), with
  // or without its opening bracket; never a 422 from a translator that was handed it as language
  for (const q of ['(AND (GT x 5) (LT x 10)', '(GT x)', '', '(GT x 5$)', 'AND (GT x 5) (LT x 10))', 'GT x 5)', ')(GT x 5)']) {
    const r = await post(s, { query: q });
    t.equal(r.status, 400, JSON.stringify(q));
    t.match(r.headers.get('content-type'), /^application\/problem\+json/, JSON.stringify(q));
    t.match(r.body, {
      type: 'urn:proofgate:problem:logic_syntax_error', code: 'logic_syntax_error', status: 400, detail: String, constraint_id: 'logic_verifier.syntax_error',
      error: String, provider_used: 'dsl', diagnostic: { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.syntax_error' } },
    }, JSON.stringify(q));
  }
  const typed = await post(s, { query: '(AND x (GT y 1))' });
  t.match({ status: typed.status, body: typed.body }, { status: 400, body: { code: 'logic_type_error', constraint_id: 'logic_verifier.type_error', diagnostic: { developer_fields: { constraint_id: 'logic_verifier.type_error' } } } });

  const huge = await post(s, { query: '(AND ' + '(GT x 1) '.repeat(8000) + ')' });
  t.match({ status: huge.status, body: huge.body }, { status: 413, body: { status: 'ERROR', diagnostic: { developer_fields: { constraint_id: 'logic_verifier.limit_exceeded' } } } });
});

t.test('a timed-out query answers ERROR (200) and the worker keeps serving', async (t) => {
  const s = bare;
  const slow = await post(s, { query: HARD_CUBES, timeout_ms: 300 });
  t.equal(slow.status, 200);
  t.match(slow.body, { status: 'ERROR', error: /timeout/, diagnostic: { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.timeout' } } });
  const next = await post(s, { query: '(AND (GT x 5) (LT x 7))' });
  t.match(next.body, { status: 'SAT', model: { x: '6' } });
});

t.test('natural language: refused without a translator, translated-only with one', async (t) => {
  const nl = await post(bare, { query: 'is there an integer above 5 and below 10?' });
  t.equal(nl.status, 503);
  t.match(nl.body, { status: 'ERROR', error: /no translator configured/, provider_used: 'none', diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'logic_verifier.translator_unavailable' } } });
  t.notOk('model' in nl.body, 'never a guess');

  const seen: string[] = [];
  const s = await server(t, [
    translatorPlugin(async ({ text }) => {
      seen.push(text);
      if (text.includes('exec')) return { expression: '(AND (GT x 5) (EXEC x))', provider: 'fake' };
      if (text.includes('garbage')) return { expression: '(AND (GT x', provider: 'fake' };
      if (text.includes('fail')) throw new Error('upstream down');
      return { expression: '(AND (GT x 5) (LT x 10))', provider: 'fake' };
    }),
  ]);
  const ok = await post(s, { query: 'is there an integer above 5 and below 10?', provider: 'fake' });
  t.equal(ok.status, 200);
  t.match(ok.body, {
    status: 'SAT', provider_used: 'fake', translation: { expression: '(AND (GT x 5) (LT x 10))', provider: 'fake' },
    diagnostic: { status: 'UNVERIFIABLE', proof_ref: null, developer_fields: { query_semantics_verified: false } },
  });
  t.same(seen, ['is there an integer above 5 and below 10?']);
  const exec = await post(s, { query: 'please exec something' });
  t.match({ status: exec.status, body: exec.body }, { status: 403, body: { status: 'BLOCKED', provider_used: 'fake' } });
  const garbage = await post(s, { query: 'garbage please' });
  t.match({ status: garbage.status, body: garbage.body }, { status: 400, body: { code: 'logic_translation_invalid', translation: { provider: 'fake' }, diagnostic: { developer_fields: { constraint_id: 'logic_verifier.translation_invalid' } } } });
  const malformed = await post(s, { query: 'AND (GT x 5) (LT x 10))' });
  t.match({ status: malformed.status, code: malformed.body.code }, { status: 400, code: 'logic_syntax_error' });
  t.notOk(seen.includes('AND (GT x 5) (LT x 10))'), 'a malformed formula never reaches the translator');
  const fail = await post(s, { query: 'this will fail' });
  t.match({ status: fail.status, body: fail.body }, { status: 503, body: { status: 'ERROR', diagnostic: { developer_fields: { constraint_id: 'logic_verifier.translation_failed' } } } });
});

t.test('route guards: API key, body schema', async (t) => {
  const s = bare;
  const anon = await s.request('POST', '/verify/logic', { body: { query: '(GT x 1)' } });
  t.equal(anon.status, 401);
  const extra = await post(s, { query: '(GT x 1)', surprise: true });
  t.equal(extra.status, 400);
  const missing = await post(s, { provider: 'x' });
  t.equal(missing.status, 400);
  const route = s.kernel.routes.find((r) => r.path === '/verify/logic');
  t.match(route, { method: 'POST', auth: 'apiKey', scope: 'verify:read', verification: { attest: false } });
});

t.test('verifier.logic gives composite routes the same verdict as the route', async (t) => {
  const s = bare;
  const v = s.kernel.app.service('verifier.logic');
  t.ok(v, 'provided');
  const sat = await v!.verify({ query: '(AND (GT x 5) (LT x 7))' });
  const direct = await post(s, { query: '(AND (GT x 5) (LT x 7))' });
  const { solve_ms: _a, ...viaService } = sat.developer_fields;
  const { solve_ms: _b, ...viaRoute } = direct.body.diagnostic.developer_fields;
  t.same({ ...sat, developer_fields: viaService }, { ...direct.body.diagnostic, developer_fields: viaRoute }, 'same verdict (timings aside)');
  t.equal(sat.proof_ref, direct.body.diagnostic.proof_ref);
  t.match(await v!.verify({ query: '(EXEC x)' }), { status: 'BLOCKED', developer_fields: { constraint_id: 'logic_verifier.unknown_operator' } });
  // what the route's body schema refuses with a 400 is the item's BLOCKED invalid_request, field errors included
  for (const bad of [{ query: 42 }, { query: '(AND true)', timeout_ms: 0 }, { query: '(AND true)', timout_ms: 10 }]) {
    const r = await v!.verify(bad as Record<string, unknown>);
    t.match(r, { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.invalid_request' } }, JSON.stringify(bad));
    const refused = await post(s, bad);
    t.equal(refused.status, 400);
    t.same(r.developer_fields.errors, refused.body.errors, 'the same field errors as the route');
  }
});
