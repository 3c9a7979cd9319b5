import t from 'tap';
import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { builtinsWithEngines, startServer, untilReady } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { waitFor } from '../helpers/wait.js';
import { spanAttr, startOtlpReceiver } from '../helpers/otlp.js';
import { connectClient, startUpstream } from '../mcp/fixtures.js';
import { otlpTracesUrl } from '../../core/obs/tracing.js';
import { loadServiceConfig } from '../../sidecar/config.js';

/**
 * Tracing through the public surface: an in-process OTLP/HTTP receiver (the exporter posts JSON)
 * collects what the server exports; requests carry a W3C traceparent as a caller's tracer sends it.
 */
// the batch processor reads its delay from the standard variable; a short one keeps the test quick
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';

const { endpoint, spans: received, exports: receiverPaths } = await startOtlpReceiver(t);
const attr = spanAttr;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const spansOf = (traceId: string) => received.filter((s) => s.traceId === traceId);

t.test('the endpoint: the config, else the standard variables; off when neither is set', async (t) => {
  const cfg = (env: NodeJS.ProcessEnv) => loadServiceConfig({ env, file: null, overrides: { secrets: { api_key_lookup_secret: 'a'.repeat(43), jwt_secret_key: 'b'.repeat(43) } } as never });
  t.equal(otlpTracesUrl(cfg({}), {}), null, 'off by default');
  t.equal(otlpTracesUrl(cfg({ SVC_OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }), {}), 'http://c:4318/v1/traces');
  t.equal(otlpTracesUrl(cfg({}), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), 'http://c:4318/v1/traces');
  t.equal(otlpTracesUrl(cfg({}), { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/x' }), 'http://c:4318/x');
  t.equal(otlpTracesUrl(cfg({}), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), null);
  t.throws(() => cfg({ SVC_OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///etc/passwd' }), 'only http(s) endpoints');
});

t.test('a verification is one trace with the caller: server span by route, engine and audit children', async (t) => {
  const s = await startServer({ plugins: builtinsWithEngines('math'), config: { auth: { anonymous_rate_per_minute: 1000 }, tracing: { otlp_endpoint: endpoint } } });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const org = await tenant(s, ['verify:read']);
  const r = await s.request('POST', '/verify/math', { apiKey: org.key, body: { expression: '2+2=4' }, headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'VERIFIED', 'the body is the spec’s, untouched');
  const server = await waitFor(() => spansOf(TRACE).find((x) => x.kind === 2), { what: 'the server span' });
  t.equal(server.parentSpanId, PARENT, 'parented on the caller’s span');
  t.equal(server.name, 'POST /verify/math');
  t.equal(attr(server, 'http.request.method'), 'POST');
  t.equal(attr(server, 'url.path'), '/verify/math');
  t.equal(attr(server, 'http.route'), '/verify/math');
  t.equal(Number(attr(server, 'http.response.status_code')), 200);
  t.equal(attr(server, 'server.address'), '127.0.0.1');
  t.not(server.status?.code, 2, 'not an error');
  t.equal(attr(server, 'proofgate.verdict'), 'VERIFIED', 'the verdict on the request span');
  const engine = await waitFor(() => spansOf(TRACE).find((x) => x.name === 'engine math'), { what: 'the engine span' });
  t.equal(engine.parentSpanId, server.spanId, 'the engine task is a child of the request');
  t.equal(attr(engine, 'proofgate.engine'), 'math');
  t.type(attr(engine, 'proofgate.engine.fn'), 'string');
  // the task inside the worker thread: drawn from the thread's own clock, within the engine span
  const run = await waitFor(() => spansOf(TRACE).find((x) => x.name === 'engine math run'), { what: 'the in-thread engine span' });
  t.equal(run.parentSpanId, engine.spanId, 'the in-thread run is a child of the engine span');
  t.ok(Number(attr(run, 'thread.id')) > 0, 'names the worker thread, not the main one (0)');
  const ns = (v: unknown) => BigInt(String(v));
  t.ok(ns(run.startTimeUnixNano) >= ns(engine.startTimeUnixNano) - 1_000_000n && ns(run.endTimeUnixNano) <= ns(engine.endTimeUnixNano) + 1_000_000n, 'inside the engine span (1 ms for the clocks of two threads)');
  t.ok(ns(run.endTimeUnixNano) >= ns(run.startTimeUnixNano), 'ends after it starts');
  const commit = await waitFor(() => spansOf(TRACE).find((x) => x.name === 'audit commit'), { what: 'the audit commit span' });
  t.equal(commit.parentSpanId, server.spanId);
  const authn = await waitFor(() => spansOf(TRACE).find((x) => x.name === 'authenticate'), { what: 'the authentication span' });
  t.equal(authn.parentSpanId, server.spanId);
  t.equal(attr(authn, 'proofgate.auth.kind'), 'apiKey');
  t.type(r.body.attestation, 'string', 'the verdict was attested');
  const signing = await waitFor(() => spansOf(TRACE).find((x) => x.name === 'attestation sign'), { what: 'the attestation span' });
  t.equal(signing.parentSpanId, server.spanId);
  t.ok(receiverPaths.every((p) => p.startsWith('POST /v1/traces application/json')), 'OTLP/HTTP with JSON bodies');

  // hostile: malformed, oversized, repeated: each ignored, the request answered and a new trace begun
  const bad = ['garbage', `00-${'0'.repeat(32)}-${PARENT}-01`, `00-${TRACE}-${PARENT}-01${'x'.repeat(5000)}`, `00-${TRACE.toUpperCase()}-${PARENT}-01`];
  for (const tp of bad) {
    const before = received.length;
    const b = await s.request('POST', '/verify/math', { apiKey: org.key, body: { expression: '1+1=2' }, headers: { traceparent: tp, tracestate: 'x'.repeat(9000) } });
    t.equal(b.status, 200, `${tp.slice(0, 40)}…: answered`);
    const fresh = await waitFor(() => received.slice(before).find((x) => x.kind === 2), { what: 'the next server span' });
    t.not(fresh.traceId, TRACE, 'a new trace');
    t.notOk(fresh.parentSpanId, 'with no parent');
  }

  // a Host no DNS name could be is not recorded
  {
    const before = received.length;
    // fetch() sets Host itself; node:http sends the one given
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(`${s.url}/verify/math`, { method: 'POST', headers: { 'x-api-key': org.key, 'content-type': 'application/json', host: 'h'.repeat(2000) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', reject);
      req.end('{"expression":"1+1=2"}');
    });
    t.equal(status, 200);
    const span = await waitFor(() => received.slice(before).find((x) => x.kind === 2), { what: 'the long-Host span' });
    t.equal(attr(span, 'server.address'), undefined);
  }

  // a 4xx is the caller's error: the span is not marked failed
  const before = received.length;
  t.equal((await s.request('POST', '/verify/math', { apiKey: 'nope', body: { expression: '1+1=2' } })).status, 401);
  const refused = await waitFor(() => received.slice(before).find((x) => x.kind === 2), { what: 'the refused request’s span' });
  t.equal(Number(attr(refused, 'http.response.status_code')), 401);
  t.not(refused.status?.code, 2);
});

t.test('through the MCP proxy the upstream receives the same trace, from the proxy’s own span', async (t) => {
  const up = await startUpstream();
  t.teardown(() => up.close());
  const first = await startServer({ plugins: [health, auth], config: { auth: { anonymous_rate_per_minute: 1000 } }, keepData: true });
  const org = await tenant(first, ['verify:read', 'agent:write', 'admin:all']);
  await first.close();
  const s = await startServer({
    plugins: [health, auth, agents, a2a, mcp, audit],
    dataDir: first.dataDir,
    config: {
      auth: { anonymous_rate_per_minute: 1000, operator_user_ids: [org.user.id] },
      mcp: { servers: { demo: { url: up.url } }, pin_on_first_use: true },
      tracing: { otlp_endpoint: endpoint },
    },
  });
  t.teardown(async () => {
    await s.close();
    rmSync(first.dataDir, { recursive: true, force: true });
  });
  const agent = await registerAgent(s, org.key, { name: 'mcp-user' });
  const trace = 'a'.repeat(31) + '1';
  const { client } = await connectClient(`${s.url}/mcp/demo`, { 'x-agent-token': agent.agent_token, traceparent: `00-${trace}-${PARENT}-01` });
  t.teardown(() => client.close());
  await client.listTools();
  const sent = up.state.headers.map((h) => h.traceparent).filter((v): v is string => typeof v === 'string');
  t.ok(sent.length > 0, 'the upstream received a traceparent');
  for (const tp of sent) {
    const [, id, parent] = tp.split('-');
    t.equal(id, trace, 'the same trace id');
    t.not(parent, PARENT, 'the parent is the proxy’s client span, not the caller’s');
  }
  const client_ = await waitFor(() => spansOf(trace).find((x) => x.kind === 3), { what: 'the upstream client span' });
  t.equal(attr(client_, 'server.address'), '127.0.0.1');

  const listSpan = await waitFor(() => spansOf(trace).find((x) => x.kind === 2 && x.name === 'tools/list'), { what: 'the MCP message span' });
  t.equal(attr(listSpan, 'mcp.method.name'), 'tools/list');
  const listHttp = await waitFor(() => spansOf(trace).find((x) => x.spanId === listSpan.parentSpanId), { what: 'the tools/list HTTP span' });
  t.equal(listHttp.name, 'POST /mcp/:server', 'without _meta context: a child of the HTTP span');
  t.equal(attr(listSpan, 'mcp.session.id'), up.state.headers.at(-1)?.['mcp-session-id']);
  const listClient = await waitFor(() => spansOf(trace).find((x) => x.kind === 3 && x.parentSpanId === listSpan.spanId), { what: 'the tools/list client span' });
  t.equal(listClient.name, 'tools/list', 'named by the MCP method');
  t.equal(attr(listClient, 'mcp.method.name'), 'tools/list');

  // trace context in _meta (MCP's reserved keys): the message span is parented on it, and the upstream gets the proxy's in its own _meta
  const metaTrace = 'b'.repeat(31) + '2';
  const metaParent = 'c'.repeat(15) + '3';
  const ok = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' }, _meta: { traceparent: `00-${metaTrace}-${metaParent}-01`, tracestate: 'k=v' } });
  t.notOk(ok.isError, 'forwarded');
  const call = up.state.calls.at(-1)!;
  const [, metaId, metaSpan] = String(call.meta?.traceparent).split('-');
  t.equal(metaId, metaTrace, 'the upstream’s _meta carries the client’s trace');
  const exec = await waitFor(() => spansOf(metaTrace).find((x) => x.kind === 2 && x.name === 'tools/call get_weather'), { what: 'the tools/call message span' });
  t.equal(exec.parentSpanId, metaParent, 'parented on the _meta context');
  t.equal(attr(exec, 'mcp.method.name'), 'tools/call');
  t.equal(attr(exec, 'gen_ai.operation.name'), 'execute_tool');
  t.equal(attr(exec, 'gen_ai.tool.name'), 'get_weather');
  t.type(attr(exec, 'jsonrpc.request.id'), 'string');
  const callClient = await waitFor(() => spansOf(metaTrace).find((x) => x.kind === 3), { what: 'the tools/call client span' });
  t.equal(callClient.name, 'tools/call get_weather');
  t.equal(metaSpan, callClient.spanId, 'the _meta parent is the proxy’s CLIENT span, not the caller’s');
  t.equal(callClient.parentSpanId, exec.spanId);
  t.equal(up.state.headers.at(-1)?.traceparent, call.meta?.traceparent, 'header and _meta agree');
  const httpOfCall = await waitFor(() => received.find((x) => x.kind === 2 && x.traceId === trace && attr(x, 'proofgate.verdict') === 'FORWARDED'), { what: 'the request span with the decision' });
  t.equal(attr(httpOfCall, 'proofgate.admission'), 'ADMIT');

  // a denied call: the decision and its constraint on the request span, nothing upstream
  const calls = up.state.calls.length;
  const denied = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris AKIAIOSFODNN7EXAMPLE' } });
  t.ok(denied.isError);
  t.equal(up.state.calls.length, calls);
  const deniedSpan = await waitFor(() => received.find((x) => x.kind === 2 && x.traceId === trace && attr(x, 'proofgate.verdict') === 'DENIED'), { what: 'the denied request span' });
  t.equal(attr(deniedSpan, 'proofgate.admission'), 'DENY');
  t.equal(attr(deniedSpan, 'proofgate.constraint_id'), 'agents.tool_policy');

  // hostile _meta: a malformed traceparent, or one that is not a string, is ignored, and never copied upstream
  for (const tp of ['garbage', 42, `00-${metaTrace}-${metaParent}-01${'x'.repeat(5000)}`]) {
    await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' }, _meta: { traceparent: tp as string } });
    const sentTp = String(up.state.calls.at(-1)!.meta?.traceparent);
    t.equal(sentTp.split('-')[1], trace, 'the upstream’s _meta carries the HTTP trace instead');
  }
});
