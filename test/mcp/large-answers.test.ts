import t, { type Test } from 'tap';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { ANSWER_INLINE_CHARS } from '../../plugins/mcp/screening.js';
import { startServer, type TestResponse } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { bodyAnswer, sseAnswer, sseEvent, startHostileUpstream, type AnswerMaker } from '../helpers/hostile-wire.js';

/**
 * Issue 38 item 9: an answer past ANSWER_INLINE_CHARS is reviewed in the worker pool, with the
 * relay's semantics unchanged: a duplicate key or too deep a nesting is withheld, a stray result in
 * a batch dropped, a second result under the request's id (in a later event, after the worker
 * claimed the first) dropped; and what the pool cannot review in time is withheld, never relayed.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];
const PAD = 'p'.repeat(ANSWER_INLINE_CHARS + 1024);

async function setup(t: Test, workers?: Record<string, unknown>) {
  let answer: (id: number) => AnswerMaker = () => bodyAnswer('{}');
  const up = await startHostileUpstream((r) => {
    const m = r.json;
    if (m?.id === undefined) return (res) => void res.writeHead(202).end();
    return answer(m.id);
  });
  t.teardown(() => up.close());
  const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 100_000 }, ...(workers ? { workers } : {}), mcp: { servers: { h: up.url }, timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'mcp-user' });
  let id = 100;
  /** one resources/read through the proxy, answered by `make(id)` */
  return (make: (id: number) => AnswerMaker) => {
    const n = ++id;
    answer = make;
    return s.request('POST', '/mcp/h', { headers: { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token }, body: { jsonrpc: '2.0', id: n, method: 'resources/read', params: { uri: 'x' } } }).then((r) => ({ r, id: n }));
  };
}

function messages(r: TestResponse): any[] {
  if (/^text\/event-stream/.test(r.headers.get('content-type') ?? '')) return [...r.text.matchAll(/^data: (.*)$/gm)].map((x) => JSON.parse(x[1]));
  return r.body === undefined ? [] : [r.body].flat();
}
const withheld = (id: number, message: RegExp) => ({ jsonrpc: '2.0', id, error: { code: -32603, message, data: { code: 'mcp_upstream_protocol' } } });

t.test('a large answer keeps the relay semantics when a worker reviews it', async (t) => {
  const read = await setup(t);
  const ok = await read((id) => bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id, result: { contents: [{ uri: 'x', text: PAD }] } })));
  t.equal(messages(ok.r)[0].result.contents[0].text, PAD, 'a large clean body is relayed whole');

  const dup = await read((id) => bodyAnswer(`{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"x","text":"${PAD}"}],"contents":[]}}`));
  t.match(messages(dup.r), [withheld(dup.id, /twice in one object/)], 'a duplicate key in a large body is withheld');

  const deep = await read((id) => bodyAnswer(`{"jsonrpc":"2.0","id":${id},"result":{"pad":"${PAD}","x":${'['.repeat(100)}${']'.repeat(100)}}}`));
  t.match(messages(deep.r), [withheld(deep.id, /nested deeper than/)], 'a large body nested too deep is withheld');

  const batch = await read((id) => bodyAnswer(JSON.stringify([{ jsonrpc: '2.0', id: 999, result: { pad: PAD } }, { jsonrpc: '2.0', id, result: { ok: true } }])));
  t.same(messages(batch.r), [{ jsonrpc: '2.0', id: batch.id, result: { ok: true } }], 'a stray result in a large batch is dropped');

  const stray = await read((id) => bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: id + 1, result: { pad: PAD } })));
  t.match(messages(stray.r), [withheld(stray.id, /result for another request/)], 'a large result for another request is withheld');

  const twice = await read((id) => sseAnswer([sseEvent(JSON.stringify({ jsonrpc: '2.0', id, result: { n: 1, pad: PAD } })), sseEvent(JSON.stringify({ jsonrpc: '2.0', id, result: { n: 2, pad: PAD } })), sseEvent(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: PAD } }))]));
  const ms = messages(twice.r);
  t.same(
    ms.map((m) => m.result?.n ?? m.method),
    [1, 'notifications/message'],
    'in a stream of large events, the first result is relayed, a second under the same id dropped, a notification kept',
  );

  const notJson = await read((id) => sseAnswer([sseEvent(`{"jsonrpc":"2.0","id":${id},"result":{"pad":"${PAD}"},}`)]));
  t.match(messages(notJson.r), [withheld(notJson.id, /not JSON/)], 'a large event that is not strict JSON is withheld under the request id');
});

t.test('a large answer the pool cannot review in time is withheld, never relayed', async (t) => {
  // no 8 MiB review finishes within 10 ms
  const read = await setup(t, { task_timeout_ms: 10 });
  const big = 'q'.repeat(8 * 1024 * 1024 - 4096);
  for (const [what, make] of [
    ['JSON body', (id: number) => bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id, result: { text: big } }))],
    ['SSE event', (id: number) => sseAnswer([sseEvent(JSON.stringify({ jsonrpc: '2.0', id, result: { text: big } }))])],
  ] as const) {
    const r = await read(make);
    t.match(messages(r.r), [withheld(r.id, /worker pool could not review \(timeout\)/)], `${what}: withheld`);
    t.notMatch(r.r.text, /qqqq/, `${what}: nothing of it relayed`);
  }
});
