import t from 'tap';
import { LmdbStore } from '../../core/store/lmdb.js';
import { McpExpiry } from '../../plugins/mcp/expiry.js';
import { MIN_RETRY_MS, relayedFields, unwrapEventId, wrapEventId } from '../../plugins/mcp/event-ids.js';
import { reviewMessage, reviewText, VERDICT_META, type ReviewState } from '../../plugins/mcp/relay-review.js';
import { Relist } from '../../plugins/mcp/relist.js';
import { reviewServerMessage } from '../../plugins/mcp/server-messages.js';
import { newToken, OpenStreams, STREAM_COLLECTION, StreamRecords, streamScope } from '../../plugins/mcp/streams.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = newToken();

t.test('event ids: wrapped with the stream token, unwrapped only in that form', async (t) => {
  t.match(TOKEN, /^[\w-]{22}$/);
  t.same(unwrapEventId(wrapEventId(TOKEN, 'ev_1.2:3')), { token: TOKEN, id: 'ev_1.2:3' });
  t.same(unwrapEventId(wrapEventId(TOKEN, '')), { token: TOKEN, id: '' });
  for (const bad of ['ev1', `pg1.${TOKEN}`, `pg1.short.ev1`, `pg2.${TOKEN}.ev1`, `pg1.${TOKEN}.a\nb`, `pg1.${TOKEN}.a\0b`, ` pg1.${TOKEN}.ev1`]) {
    t.equal(unwrapEventId(bad), null, JSON.stringify(bad));
  }
  t.same(relayedFields({ id: 'e1', event: 'message', retry: '0', data: 'x' }, TOKEN), { id: `pg1.${TOKEN}.e1`, event: 'message', retry: String(MIN_RETRY_MS), data: 'x' });
  t.same(relayedFields({ id: 'e1', retry: '5000', data: 'x' }, TOKEN), { id: `pg1.${TOKEN}.e1`, retry: '5000', data: 'x' });
  t.same(relayedFields({ id: 'e\0', retry: 'soon', data: 'x' }, TOKEN), { data: 'x' }, 'an id clients ignore and a retry that is no number are not relayed');
  t.same(relayedFields({ id: 'e1', data: 'x' }, undefined), { data: 'x' }, 'no token, no id: nothing could resume with it');
  t.same(relayedFields({ data: '', comment: ': ping' }, TOKEN), { data: '', comment: ': ping' });
});

t.test('server messages: only the methods a server may send, in their form', async (t) => {
  const s: { listChanged?: boolean; refused?: Array<{ id: string | number; code: number; message: string }> } = {};
  const keep = (m: Record<string, unknown>) => t.same(reviewServerMessage(m, s), m, JSON.stringify(m));
  const drop = (m: Record<string, unknown>) => t.equal(reviewServerMessage(m, s), undefined, JSON.stringify(m));
  keep({ jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
  keep({ jsonrpc: '2.0', id: 'e', method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object' } } });
  keep({ jsonrpc: '2.0', id: 2, method: 'ping' });
  keep({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a' } });
  keep({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
  t.notOk(s.listChanged);
  keep({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  t.equal(s.listChanged, true, 'tools/list_changed is noted');
  drop({ jsonrpc: '2.0', method: 'sampling/createMessage', params: {} });
  drop({ jsonrpc: '2.0', id: null, method: 'ping' });
  drop({ jsonrpc: '2.0', id: 1.5e400, method: 'ping' });
  drop({ jsonrpc: '2.0', id: 3, method: 'notifications/message', params: { level: 'info', data: 'x' } });
  drop({ jsonrpc: '2.0', method: 'notifications/message', params: ['x'] });
  drop({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x' } });
  drop({ jsonrpc: '2.0', method: 'Notifications/Tools/List_Changed' });
  drop({ jsonrpc: '2.0', method: 'x/custom' });
  t.same(
    s.refused?.map((r) => [r.id, r.code]),
    [
      [3, -32600],
      [4, -32601],
    ],
    'the dropped requests the server can match are noted for an answer: a notification with an id, a method no server sends',
  );
  reviewServerMessage({ jsonrpc: '2.0', id: 6, method: 'ping', params: 'x' }, s);
  t.match(s.refused?.at(-1), { id: 6, code: -32602, message: /params is not an object/ });
  const forged = reviewServerMessage({ jsonrpc: '2.0', id: 5, method: 'sampling/createMessage', params: { _meta: { [VERDICT_META]: 'x', keep: 1 } } }, s);
  t.same(forged, { jsonrpc: '2.0', id: 5, method: 'sampling/createMessage', params: { _meta: { keep: 1 } } }, "the server's own verdict is removed, the rest kept");
});

t.test('the review of a GET stream: no responses on the standalone one; a resumed one answers its request only', async (t) => {
  const standalone: ReviewState = { requestId: undefined, claimed: false, onlyOwnResponses: true };
  t.equal(reviewMessage({ jsonrpc: '2.0', id: 1, result: { tools: [] } }, standalone), undefined);
  t.equal(reviewMessage({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } }, standalone), undefined);
  t.equal(reviewMessage({ jsonrpc: '2.0', note: 'neither' }, standalone), undefined);
  t.ok(reviewMessage({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }, standalone));

  const call: ReviewState = { requestId: 7, claimed: false, verdict: 'jwt', onlyOwnResponses: true };
  t.equal(reviewMessage({ jsonrpc: '2.0', id: 8, result: {} }, call), undefined, 'another id');
  t.equal(reviewMessage({ jsonrpc: '2.0', id: 8, error: { code: 1, message: 'x' } }, call), undefined, 'an error under another id');
  t.same(reviewMessage({ jsonrpc: '2.0', id: 7, result: { content: [] } }, call), { jsonrpc: '2.0', id: 7, result: { content: [], _meta: { [VERDICT_META]: 'jwt' } } }, 'the verdict again');
  t.equal(reviewMessage({ jsonrpc: '2.0', id: 7, result: { content: [] } }, call), undefined, 'a second result');

  const list: ReviewState = { requestId: 2, claimed: false, onlyOwnResponses: true, withholdResult: 'list again' };
  t.same(reviewMessage({ jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'x' }] } }, list), { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'list again', data: { code: 'mcp_upstream_protocol' } } });

  const post: ReviewState = { requestId: 3, claimed: false };
  t.ok(reviewMessage({ jsonrpc: '2.0', id: 9, error: { code: 1, message: 'x' } }, post), 'a POST stream still relays error responses');
  t.equal(reviewMessage({ jsonrpc: '2.0', method: 'x/custom' }, post), undefined, 'and reviews server messages by method too');
});

t.test('the worker formats a large event as the event loop would: wrapped id, kept id of a dropped message, the list_changed noted', async (t) => {
  const block = (data: string) => [`id: e9\nevent: message\n`, `data: ${data}`];
  const base = { requestId: undefined, claimed: false, mode: 'block' as const, maxDepth: 64, idToken: TOKEN, onlyOwnResponses: true };
  const changed = reviewText({ ...base, text: block(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })) });
  t.match(changed, { ok: true, listChanged: true });
  t.match(Buffer.from((changed as { bytes: Uint8Array }).bytes).toString(), new RegExp(`^id: pg1\\.${TOKEN}\\.e9\\nevent: message\\ndata: \\{`));
  const dropped = reviewText({ ...base, text: block(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })) });
  t.equal(Buffer.from((dropped as { bytes: Uint8Array }).bytes).toString(), `id: pg1.${TOKEN}.e9\ndata: \n\n`, 'a dropped message leaves its id');
  t.match(reviewText({ ...base, text: block('{"a":NaN}') }), { ok: false });
});

t.test('relist: a notice holds calls until a listing asked for after it', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-mcp-relist-'));
  t.teardown(() => store.close());
  let now = 1000;
  const r = new Relist(store, () => now);
  t.equal(await r.pending('s'), null);
  await r.listed('s', 5);
  t.equal(await r.pending('s'), null, 'a listing with no notice changes nothing');
  await r.mark('s');
  t.match(await r.pending('s'), /list its tools again/);
  t.equal(await r.pending('other'), null, 'per server');
  await r.listed('s', 999);
  t.match(await r.pending('s'), /list_changed/, 'a listing asked for before the notice does not lift it');
  await r.listed('s', 1000);
  t.ok(await r.pending('s'), 'nor one asked for in the same millisecond');
  await r.listed('s', 1001);
  t.equal(await r.pending('s'), null, 'a listing asked for after it does');
  now = 2000;
  await r.mark('s');
  t.ok(await r.pending('s'), 'a new notice holds calls again');
});

t.test('stream records: written once, scoped to session, agent and server, forgotten, ended with the session', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-mcp-streams-'));
  t.teardown(() => store.close());
  const streams = new StreamRecords(store);
  const scope = streamScope('demo', 'sid-1', 'agent-1');
  t.not(scope, streamScope('demo', 'sid-2', 'agent-1'));
  t.not(streamScope('demo', undefined, 'agent-1'), streamScope('demo', undefined, 'agent-2'));
  const ev = streams.lazy(scope, TOKEN, { server: 'demo', agent_id: 'agent-1', request_id: 7, method: 'tools/call', verdict: 'jwt' });
  t.equal(await streams.get(scope, TOKEN, 'demo', 'agent-1'), undefined, 'nothing before the first id');
  await Promise.all([ev.record(), ev.record()]);
  t.match(await streams.get(scope, TOKEN, 'demo', 'agent-1'), { request_id: 7, method: 'tools/call', verdict: 'jwt' });
  t.equal(await streams.get(scope, TOKEN, 'demo', 'agent-2'), undefined, 'another agent');
  t.equal(await streams.get(scope, TOKEN, 'other', 'agent-1'), undefined, 'another server');
  t.equal(await streams.get(streamScope('demo', 'sid-2', 'agent-1'), TOKEN, 'demo', 'agent-1'), undefined, 'another session');
  await ev.forget();
  t.equal(await streams.get(scope, TOKEN, 'demo', 'agent-1'), undefined, 'forgotten once answered');
  const tokens = [newToken(), newToken(), newToken()];
  for (const tk of tokens) await streams.lazy(scope, tk, { server: 'demo', agent_id: 'agent-1', request_id: null, method: null }).record();
  const keep = streamScope('demo', 'sid-2', 'agent-1');
  await streams.lazy(keep, TOKEN, { server: 'demo', agent_id: 'agent-1', request_id: null, method: null }).record();
  await streams.end(scope);
  for (const tk of tokens) t.equal(await streams.get(scope, tk, 'demo', 'agent-1'), undefined);
  t.ok(await streams.get(keep, TOKEN, 'demo', 'agent-1'), "another session's stream stays");
});

t.test('open streams: at most max per agent, a slot freed once', async (t) => {
  const open = new OpenStreams(2);
  const a = open.take('a')!;
  const b = open.take('a')!;
  t.equal(open.take('a'), null);
  t.ok(open.take('b'), 'per agent');
  a();
  a();
  t.equal(open.count('a'), 1, 'a release counts once');
  t.ok(open.take('a'));
  b();
});

t.test('the sweep removes stream records past the session lifetime', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-mcp-streams-sweep-'));
  t.teardown(() => store.close());
  const col = store.collection(STREAM_COLLECTION);
  const rec = (at: string) => ({ server: 'demo', agent_id: 'a', request_id: null, method: null, created_at: at });
  await col.put('old', rec('2026-01-01T00:00:00.000Z'));
  await col.put('fresh', rec('2026-01-01T00:59:00.000Z'));
  await col.put('unreadable', { ...rec('x') });
  const expiry = new McpExpiry(store, 3_600_000, () => Date.parse('2026-01-01T01:30:00.000Z'));
  await expiry.sweep();
  t.same((await col.list()).map((e) => e.key), ['fresh']);
});
