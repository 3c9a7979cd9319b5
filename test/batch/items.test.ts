import t from 'tap';
import { readFileSync } from 'node:fs';
import batch from '../../plugins/batch/index.js';
import code from '../../plugins/engines/code/index.js';
import fact from '../../plugins/engines/fact/index.js';
import math from '../../plugins/engines/math/index.js';
import naturalLanguage from '../../plugins/engines/natural-language/index.js';
import sql from '../../plugins/engines/sql/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../helpers/server.js';

/**
 * A batch item is checked against the body schema of its engine's own route (plugins/batch/items.ts
 * maps it onto that body): whatever the single route refuses with a 400, the item refuses with a
 * BLOCKED verdict carrying the same field errors, and the rest of the batch still runs.
 */
const s = await startServer({
  plugins: [testAuthPlugin(), batch, math, sql, code, fact, naturalLanguage],
  config: { workers: { threads: 1, task_timeout_ms: 120_000 } },
});
t.teardown(() => s.close());
await untilReady(s.kernel);

const SHOP = 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);';
const post = (path: string, body: unknown) => s.request('POST', path, { body, apiKey: TEST_API_KEY });

interface Case {
  name: string;
  route: string;
  body: Record<string, unknown>;
  item: { type: string; query: string; params?: Record<string, unknown> };
  constraint: string;
}

const astral = (n: number) => '\u{1D465}'.repeat(n); // 𝑥: one code point, two UTF-16 units

const cases: Case[] = [
  { name: 'math: over 5000 characters', route: '/verify/math', body: { expression: 'x'.repeat(5001) }, item: { type: 'math', query: 'x'.repeat(5001) }, constraint: 'math_verifier.invalid_request' },
  { name: 'math: 5001 code points', route: '/verify/math', body: { expression: astral(5001) }, item: { type: 'math', query: astral(5001) }, constraint: 'math_verifier.invalid_request' },
  { name: 'math: tolerance without expected_value', route: '/verify/math', body: { expression: '1', tolerance: '1' }, item: { type: 'math', query: '1', params: { tolerance: '1' } }, constraint: 'math_verifier.invalid_request' },
  { name: 'math: unknown domain', route: '/verify/math', body: { expression: '1', context: { domain: 'q' } }, item: { type: 'math', query: '1', params: { context: { domain: 'q' } } }, constraint: 'math_verifier.invalid_request' },
  { name: 'math: unknown field', route: '/verify/math', body: { expression: '1=1', tolerence: '0.1' }, item: { type: 'math', query: '1=1', params: { tolerence: '0.1' } }, constraint: 'math_verifier.invalid_request' },
  { name: 'sql: whitespace-only query', route: '/verify/sql', body: { query: ' \n\t', schema_ddl: SHOP }, item: { type: 'sql', query: ' \n\t', params: { schema_ddl: SHOP } }, constraint: 'sql_verifier.parse_error' },
  { name: 'sql: whitespace-only schema', route: '/verify/sql', body: { query: 'SELECT 1', schema_ddl: '\u00a0 ' }, item: { type: 'sql', query: 'SELECT 1', params: { schema_ddl: '\u00a0 ' } }, constraint: 'sql_verifier.schema_parse_error' },
  { name: 'sql: missing schema', route: '/verify/sql', body: { query: 'SELECT 1' }, item: { type: 'sql', query: 'SELECT 1' }, constraint: 'sql_verifier.schema_parse_error' },
  { name: 'sql: unknown field', route: '/verify/sql', body: { query: 'SELECT 1', schema_ddl: SHOP, dialekt: 'pg' }, item: { type: 'sql', query: 'SELECT 1', params: { schema_ddl: SHOP, dialekt: 'pg' } }, constraint: 'sql_verifier.parse_error' },
  { name: 'sql: allow_writes not a boolean', route: '/verify/sql', body: { query: 'SELECT 1', schema_ddl: SHOP, allow_writes: 'yes' }, item: { type: 'sql', query: 'SELECT 1', params: { schema_ddl: SHOP, allow_writes: 'yes' } }, constraint: 'sql_verifier.parse_error' },
  { name: 'code: unknown field', route: '/verify/code', body: { code: 'x = 1', lang: 'py' }, item: { type: 'code', query: 'x = 1', params: { lang: 'py' } }, constraint: 'code_verifier.invalid_request' },
  { name: 'code: language too long', route: '/verify/code', body: { code: 'x = 1', language: 'p'.repeat(65) }, item: { type: 'code', query: 'x = 1', params: { language: 'p'.repeat(65) } }, constraint: 'code_verifier.invalid_request' },
  { name: 'fact: whitespace-only claim', route: '/verify/fact', body: { claim: '   ', context: 'It rained.' }, item: { type: 'fact', query: '   ', params: { context: 'It rained.' } }, constraint: 'fact_verifier.invalid_request' },
  { name: 'fact: missing context', route: '/verify/fact', body: { claim: 'It rained.' }, item: { type: 'fact', query: 'It rained.' }, constraint: 'fact_verifier.invalid_request' },
  { name: 'natural language: over 10000 characters', route: '/verify/natural_language', body: { query: 'q'.repeat(10_001) }, item: { type: 'natural_language', query: 'q'.repeat(10_001) }, constraint: 'nl_verifier.translation_invalid' },
  { name: 'natural language: unknown field', route: '/verify/natural_language', body: { query: 'what is 2+2?', model: 'x' }, item: { type: 'natural_language', query: 'what is 2+2?', params: { model: 'x' } }, constraint: 'nl_verifier.translation_invalid' },
];

t.test('the single route and a batch item refuse the same input with the same field errors', async (t) => {
  const r = await post('/verify/batch', { items: [...cases.map((c) => c.item), { type: 'math', query: '2+2=4' }] });
  t.equal(r.status, 200, 'refused items do not fail the batch');
  for (const [i, c] of cases.entries()) {
    const single = await post(c.route, c.body);
    t.equal(single.status, 400, `${c.name}: the route answers 400`);
    t.equal(single.body.code, 'validation_failed', c.name);
    const result = r.body.items[i].result;
    t.equal(result.status, 'BLOCKED', `${c.name}: the item is BLOCKED`);
    t.equal(result.proof_ref, null, c.name);
    t.equal(result.developer_fields.constraint_id, c.constraint, c.name);
    t.same(result.developer_fields.errors, single.body.errors, `${c.name}: the same field errors`);
    const field = single.body.errors[0].field.replace(/^\/body\/?/, '');
    t.ok(result.agent_message.includes(`${field} ${single.body.errors[0].message}`), `${c.name}: the message names the field error`);
  }
  // no signer is loaded, so a proven math item is withheld by the attestation gate: it did reach the engine
  t.equal(r.body.items[cases.length].result.developer_fields.constraint_id, 'api.attestation.signing_error', 'a sound item beside them is verified');
});

t.test('lengths are Unicode code points for the route and the item alike; the engine caps stay the same for both', async (t) => {
  // 5000 code points pass the schema; as 10000 UTF-16 units they meet the math engine's own cost cap
  const expression = astral(5000);
  const single = await post('/verify/math', { expression });
  t.equal(single.status, 200, 'within the schema: the engine answers');
  const r = await post('/verify/batch', { items: [{ type: 'math', query: expression }] });
  t.equal(single.body.developer_fields.constraint_id, 'math_verifier.input_too_long');
  t.equal(r.body.items[0].result.developer_fields.constraint_id, single.body.developer_fields.constraint_id, 'the item ends where the route does');
});

t.test('code larger than the byte cap: 413 for the route, BLOCKED input_too_large for the item', async (t) => {
  const big = `# ${'é'.repeat(110_000)}\n`; // 110,003 characters, 220,003 UTF-8 bytes
  const single = await post('/verify/code', { code: big });
  t.equal(single.status, 413);
  t.equal(single.body.constraint_id, 'code_verifier.input_too_large');
  const r = await post('/verify/batch', { items: [{ type: 'code', query: big }, { type: 'code', query: 'import os, sys\nos.system(sys.argv[1])\n' }] });
  t.equal(r.body.items[0].result.status, 'BLOCKED');
  t.equal(r.body.items[0].result.developer_fields.constraint_id, 'code_verifier.input_too_large');
  t.equal(r.body.items[1].result.status, 'VERIFIED', 'a code item is verified by the code engine');
  t.equal(r.body.items[1].result.admission, 'BLOCKED', 'proven unsafe');
});

t.test('an item result carries one of the item types the request admits, and any of them', async (t) => {
  // the server answers with the request's type (or its default); item-result.json declares the same
  // enum so that clients, and the server's generated ItemResult, are typed by it (issue 44)
  const read = (name: string) => JSON.parse(readFileSync(new URL(`../../../schemas/batch/${name}`, import.meta.url), 'utf8'));
  const admitted: string[] = read('request.json').properties.items.items.properties.type.enum;
  const answered: string[] = read('item-result.json').properties.type.enum;
  t.same([...answered].sort(), [...admitted].sort());
  const r = await post('/verify/batch', { items: [{ query: '2+2=4' }, { type: 'sql', query: 'SELECT 1', params: { schema_ddl: SHOP } }] });
  t.equal(r.status, 200, 'the answer validates against item-result.json (the test server checks every response)');
  t.same(r.body.items.map((i: { type: string }) => i.type), ['natural_language', 'sql'], 'an item without a type answers with the default');
});
