import t, { type Test } from 'tap';
import { request, type IncomingMessage } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp, { VERDICT_META } from '../../plugins/mcp/index.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { bodyAnswer, sseAnswer, sseEvent, startHostileUpstream, type AnswerMaker } from '../helpers/hostile-wire.js';

/**
 * Issue 39: an event-stream answer the relay has whole before the event loop's next turn goes to
 * the client whole, with a length, in one write; one the server holds back goes out as it comes,
 * the headers and each reviewed event before the rest. Either way every event is reviewed (the
 * verdict on the result, a NaN withheld), and a client that leaves ends the server's request.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];
const TOOL = { name: 'get_weather', description: 'Current weather for a city.', inputSchema: { type: 'object' } };
const progress = (token: number) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
const result = (id: number, text = 'sunny') => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

/** `version` 2025-03-26: the server hands out a session and the proxy relays batches on it */
async function setup(t: Test, version = '2025-06-18') {
  let call: (id: number) => AnswerMaker = (id) => sseAnswer([sseEvent(result(id))]);
  const up = await startHostileUpstream((r) => {
    const m = r.json;
    if (m?.method === 'initialize') {
      return (res) => void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'framing-session' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } } }));
    }
    if (m?.id === undefined) return (res) => void res.writeHead(202).end();
    if (m.method === 'tools/list') return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [TOOL] } }));
    return call(m.id);
  });
  t.teardown(() => up.close());
  const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 100_000 }, mcp: { servers: { h: up.url }, pin_on_first_use: true, timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'framing' });
  const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  const init = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } } });
  const session = { ...h, 'mcp-session-id': init.headers.get('mcp-session-id')! };
  const listed = await s.request('POST', '/mcp/h', { headers: session, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
  t.same(listed.body.result.tools.map((x: { name: string }) => x.name), ['get_weather'], 'pinned on first use');
  let id = 10;
  /** a tools/call through the proxy, answered by `answer`; resolves with the response as soon as its headers arrive */
  const callTool = (answer: (id: number) => AnswerMaker) => {
    const n = ++id;
    call = answer;
    const body = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'get_weather', arguments: { city: 'Lisbon' } } });
    const url = new URL('/mcp/h', s.url);
    return new Promise<{ res: IncomingMessage; id: number; abort: () => void }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { ...session, 'content-type': 'application/json' } }, (res) => resolve({ res, id: n, abort: () => req.destroy() }));
      req.on('error', reject);
      req.end(body);
    });
  };
  /** a batch of tools/calls, each member answered by `answer` */
  const batch = (ids: number[], answer: (id: number) => AnswerMaker) => {
    call = answer;
    return s.request('POST', '/mcp/h', { headers: session, body: ids.map((n) => ({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'get_weather', arguments: { city: 'Lisbon' } } })) });
  };
  return { callTool, batch };
}

/** the body's text until `until` matches it (or the body ends) */
function readUntil(res: IncomingMessage, until: RegExp | null, so = { text: '' }): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = () => {
      res.off('data', onData);
      res.off('end', done);
      resolve(so.text);
    };
    const onData = (c: Buffer) => {
      so.text += c.toString('utf8');
      if (until && until.test(so.text)) done();
    };
    res.on('data', onData);
    res.once('end', done);
    res.once('error', reject);
  });
}
const messages = (text: string) => [...text.matchAll(/^data: (.*)$/gm)].map((x) => JSON.parse(x[1]));

t.test('an answer that came whole goes out whole: one length, every event reviewed', async (t) => {
  const { callTool } = await setup(t);
  // head, events and end in one write: the relay reads them in one turn
  const { res, id } = await callTool((n) => bodyAnswer(sseEvent(progress(n)) + sseEvent(result(n)), { type: 'text/event-stream' }));
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/event-stream/);
  t.equal(res.headers['transfer-encoding'], undefined, 'not chunked');
  const text = await readUntil(res, null);
  t.equal(Number(res.headers['content-length']), Buffer.byteLength(text), 'the length is the body');
  const [p, r] = messages(text);
  t.equal(p.method, 'notifications/progress', 'the server order is kept');
  t.equal(r.id, id);
  t.type(r.result._meta?.[VERDICT_META], 'string', 'the result carries the verdict: it was reviewed');
});

t.test('a NaN in an answer that came whole is withheld as in a stream', async (t) => {
  const { callTool } = await setup(t);
  const { res, id } = await callTool((n) => bodyAnswer(sseEvent(result(n).replace('"sunny"', 'NaN')), { type: 'text/event-stream' }));
  t.equal(res.headers['transfer-encoding'], undefined, 'not chunked');
  const [m, ...rest] = messages(await readUntil(res, null));
  t.match(m, { id, error: { code: -32603, message: /^proofgate withheld the answer: / } });
  t.same(rest, []);
});

/** the server sends its headers and a progress event, then holds the result until `release` */
function held(bad = false) {
  let release!: () => void;
  const go = new Promise<void>((r) => (release = r));
  let upstreamClosed!: () => void;
  const closed = new Promise<void>((r) => (upstreamClosed = r));
  const answer = (n: number): AnswerMaker => async (res: ServerResponse) => {
    res.once('close', upstreamClosed);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseEvent(progress(n)));
    await go;
    if (!res.destroyed) res.end(sseEvent(bad ? result(n).replace('"sunny"', 'Infinity') : result(n)));
  };
  return { answer, release, closed };
}

t.test('an answer the server holds back is not held by the relay: headers and the first event come first', async (t) => {
  const { callTool } = await setup(t);
  const h = held();
  const { res, id } = await callTool(h.answer);
  t.equal(res.headers['transfer-encoding'], 'chunked', 'streamed');
  const so = { text: '' };
  // the result is only sent once the progress event reached the client: had the relay waited for it, this would hang
  await readUntil(res, /notifications\/progress[^\n]*\n\n/, so);
  t.equal(messages(so.text).length, 1, 'the progress event alone');
  h.release();
  const all = messages(await readUntil(res, null, so));
  t.equal(all.length, 2);
  t.equal(all[1].id, id);
  t.type(all[1].result._meta?.[VERDICT_META], 'string', 'the later result is reviewed too');
});

t.test('a held answer that turns bad is withheld; a client that leaves ends the server request', async (t) => {
  const { callTool } = await setup(t);
  const bad = held(true);
  const one = await callTool(bad.answer);
  const so = { text: '' };
  await readUntil(one.res, /notifications\/progress[^\n]*\n\n/, so);
  bad.release();
  const all = messages(await readUntil(one.res, null, so));
  t.match(all[1], { id: one.id, error: { code: -32603 } }, 'an Infinity after the hold is withheld');
  t.notMatch(so.text, /Infinity|sunny/);

  const left = held();
  const two = await callTool(left.answer);
  await readUntil(two.res, /notifications\/progress[^\n]*\n\n/);
  two.abort();
  await left.closed;
  t.pass('the server request ended with the client');
  left.release();
});

t.test('a batch whose members came whole: each answer is still an event of the merged stream, reviewed', async (t) => {
  const { batch } = await setup(t, '2025-03-26');
  const r = await batch([21, 22], (n) => bodyAnswer(sseEvent(progress(n)) + sseEvent(n === 22 ? result(n).replace('"sunny"', 'NaN') : result(n)), { type: 'text/event-stream' }));
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /^text\/event-stream/);
  const all = messages(r.text);
  const byId = new Map(all.filter((m) => m.id !== undefined).map((m) => [m.id, m]));
  t.equal(all.filter((m) => m.method === 'notifications/progress').length, 2, 'every member event relayed as an event');
  t.type(byId.get(21)?.result?._meta?.[VERDICT_META], 'string', 'a clean member is reviewed: it carries its verdict');
  t.match(byId.get(22), { error: { code: -32603 } }, 'a NaN member is withheld under its own id');
  t.notMatch(r.text, /NaN|data: event:/, 'nothing unreviewed, no event inside an event');
});
