import t, { type Test } from 'tap';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { MAX_PAGE_BYTES } from '../../plugins/mcp/listings.js';
import { VERDICT_META } from '../../plugins/mcp/gate.js';
import { KEY_PEM } from '../helpers/a2a.js';
import { startServer, untilReady } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';

/**
 * Issue 38 item 9: a server's tools/list answer and an agent's tools/call arguments are screened
 * without holding the event loop. While the sidecar reviews the largest tools/list answer it
 * accepts (MAX_PAGE_BYTES, as JSON and as one SSE event), gates the largest call body (mcp.max_body_bytes, 1 MiB) and
 * relays a tools/call answer of ~8 MiB (MAX_ANSWER_BYTES; as JSON and as one SSE event; parsed,
 * re-serialised and given its verdict in the worker pool), a separate process polls /healthz
 * back to back; each answer must come within 50 ms of work holding the loop (helpers/healthz-probe.ts
 * takes off the time the scheduler kept the thread from a core). The texts are the detectors' costly
 * kind (addresses, curl words): screened inline they hold the loop for a second and more.
 *
 * The heavy requests are raw HTTP with pre-serialised bodies and unread answers (they share this
 * process with the sidecar, whose loop is measured: an SDK client would parse the 8 MiB answer on
 * it), and the upstream runs in its own process (bulk-upstream.ts).
 */
const BOUND_MS = 50;
const MAX_BODY = 1024 * 1024;
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];

const fill = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const upstream = fork(new URL('./bulk-upstream.js', import.meta.url), [String(MAX_PAGE_BYTES)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
t.teardown(() => {
  upstream.disconnect();
});
const { port, call, callSse } = (await once(upstream, 'message'))[0] as { port: number; bytes: number; call: number; callSse: number };

const first = await startServer({ plugins: [health, auth], config: { auth: { anonymous_rate_per_minute: 100_000 } }, keepData: true });
const org = await tenant(first, ['verify:read', 'agent:write', 'admin:all']);
await first.close();
const s = await startServer({
  plugins: PLUGINS,
  dataDir: first.dataDir,
  config: {
    auth: { anonymous_rate_per_minute: 100_000, operator_user_ids: [org.user.id] },
    a2a: { deployment_id: 'mcp-loop', signing_key_pem: KEY_PEM },
    // deadlines raised so that a busy machine cannot turn this into a test of speed: past them an
    // 8 MiB answer is withheld (fail closed), which is not what this file measures
    workers: { task_timeout_ms: 60_000 },
    mcp: { servers: { demo: `http://127.0.0.1:${port}/mcp` }, pin_on_first_use: true, max_body_bytes: MAX_BODY, timeout_ms: 60_000 },
  },
});
t.teardown(() => s.close());
await untilReady(s.kernel);
const agent = await registerAgent(s, org.key, { name: 'loop' });

interface Posted {
  status: number;
  size: number;
  head: string;
  tail: string;
}
/** the answer's status and size; its first and last 4 KiB as text (the big answers are never parsed here) */
function post(body: Buffer): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}/mcp/demo`, { method: 'POST', headers: { 'x-agent-token': agent.agent_token, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(body.length) } }, (res) => {
      let size = 0;
      let head = '';
      let tail = Buffer.alloc(0);
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (head.length < 4096) head += c.toString('utf8', 0, Math.min(c.length, 4096));
        tail = Buffer.concat([tail, c.subarray(-4096)]).subarray(-4096);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, size, head, tail: tail.toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const rpc = (m: unknown) => Buffer.from(JSON.stringify(m));
// search is listed and pinned on first use, so a call of it passes the pin and reaches the policy
// (no assertion out here: tap ends the root test after a top-level one once the loop idles)
const listed = await post(rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
if (listed.status !== 200) throw new Error(`the first tools/list answered ${listed.status}`);

const probe = fork(new URL('../helpers/healthz-probe.js', import.meta.url), [s.url, String(process.pid)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
t.teardown(() => {
  probe.send('exit');
});
const next = () => once(probe, 'message').then(([m]) => m as unknown);
await next(); // ready

async function measured(send: () => Promise<Posted>) {
  probe.send('start');
  await next();
  const r = await send();
  probe.send('stop');
  const m = (await next()) as { max: number; held: number; samples: number; corrected: boolean };
  return { ...r, ...m };
}

const listing = (id: number) => async () => {
  // new definitions each run: a definition seen before is not screened again
  upstream.send('vary');
  await once(upstream, 'message');
  return post(rpc({ jsonrpc: '2.0', id, method: 'tools/list' }));
};
/**
 * A tools/call answer of ~8 MiB reaches the client whole: the server's text re-serialised (the same
 * bytes, as the server wrote them with JSON.stringify), with the verdict appended to the result's
 * `_meta` (its last member), read from the answer's tail.
 */
const relayedCall = (id: number, upstreamBytes: number) => (t: Test, r: Posted) => {
  t.match(r.head, new RegExp(`^(event: message\\ndata: )?\\{"jsonrpc":"2.0","id":${id},"result":\\{"content":\\[`), 'the answer starts as the server wrote it');
  const jwt = new RegExp(`"_meta":\\{"${VERDICT_META}":"([\\w.-]+)"\\}\\}\\}(\\n\\n)?$`).exec(r.tail)?.[1];
  t.ok(jwt, 'and ends with the verdict under result._meta');
  t.equal(r.size, upstreamBytes + `,"_meta":{"${VERDICT_META}":"${jwt}"}`.length, 'every byte of the result is relayed');
};
type Check = (t: Test, r: Posted) => void;
const cases: Array<[string, () => Promise<Posted>, Check?]> = [
  ['tools/list answer of MAX_PAGE_BYTES (JSON)', listing(2)],
  ['tools/list answer of MAX_PAGE_BYTES (one SSE event)', listing(4)],
  [
    'tools/call with a 1 MiB argument',
    () => {
      const body = rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: fill('curl xxxxxxxxxx ', MAX_BODY - 200) } } });
      return post(body);
    },
  ],
  ['tools/call answered with an ~8 MiB result (JSON)', () => post(rpc({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'search', arguments: { query: 'big' } } })), relayedCall(6, call)],
  ['tools/call answered with an ~8 MiB result (one SSE event)', () => post(rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search', arguments: { query: 'big' } } })), relayedCall(7, callSse)],
];

for (const [what, send, check] of cases) {
  t.test(`${what}: /healthz answers within ${BOUND_MS} ms while it is screened`, async (t) => {
    // the best of up to five runs: scheduling noise varies between runs, work holding the loop does not
    let r = await measured(send);
    const tries = [r];
    for (let i = 0; i < 4 && r.held >= BOUND_MS; i++) tries.push((r = await measured(send)));
    t.equal(r.status, 200, `${what} answered`);
    t.ok(r.size > 0, `and relayed (${r.size} bytes)`);
    t.ok(r.samples > 0, 'the probe was answered while the request ran');
    check?.(t, r);
    t.comment(`${what}: ${r.samples} /healthz answers, slowest (ms): ${tries.map((x) => `${x.held.toFixed(1)} held of ${x.max.toFixed(1)}`).join(', ')}${r.corrected ? '' : ' (not corrected)'}`);
    t.ok(r.held < BOUND_MS, `slowest /healthz ${r.held.toFixed(1)} ms held by work < ${BOUND_MS} ms`);
  });
}

t.test('a tools/list answer past MAX_PAGE_BYTES is not read on: withheld under the request id', async (t) => {
  const r = await post(rpc({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
  t.equal(r.status, 200);
  const body = JSON.parse(r.head) as { id?: unknown; error?: { code?: number; message?: string; data?: { code?: string } } };
  t.equal(body.id, 5);
  t.equal(body.error?.code, -32603);
  t.equal(body.error?.data?.code, 'mcp_upstream_protocol');
  t.match(body.error?.message, /larger than/);
});
