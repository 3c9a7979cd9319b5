import t from 'tap';
import { rmSync } from 'node:fs';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp, { DENIAL_META, VERDICT_META } from '../../plugins/mcp/index.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { connectClient, startUpstream } from './fixtures.js';

/**
 * Issue 39, part 1: the operator's approval of a pinned definition admits a tool, per upstream
 * server, with the built-in lists as defaults only. Driven with the official MCP SDK client.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];

const EXTRA = [
  { name: 'echo_text', description: 'Echoes the text it is given.' },
  { name: 'write_file', description: 'Writes a file.', annotations: { destructiveHint: true } },
  { name: 'lookup_note', description: 'Reads a note.', annotations: { readOnlyHint: true } },
];

async function setup(t: { teardown(fn: () => unknown): void }, o: { policy?: unknown } = {}) {
  const up = await startUpstream();
  up.state.extraTools = EXTRA;
  t.teardown(() => up.close());
  const first = await startServer({ plugins: [health, auth], config: { auth: { anonymous_rate_per_minute: 1000 } }, keepData: true });
  const org = await tenant(first, ['verify:read', 'agent:write', 'admin:all']);
  await first.close();
  const s = await startServer({
    plugins: PLUGINS,
    dataDir: first.dataDir,
    config: {
      auth: { anonymous_rate_per_minute: 1000, operator_user_ids: [org.user.id] },
      mcp: { servers: { demo: { url: up.url, ...(o.policy === undefined ? {} : { policy: o.policy }) } }, pin_on_first_use: true },
    },
  });
  t.teardown(async () => {
    await s.close();
    rmSync(first.dataDir, { recursive: true, force: true });
  });
  const agent = await registerAgent(s, org.key, { name: 'mcp-policy' });
  const { client } = await connectClient(`${s.url}/mcp/demo`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  return { up, s, org, agent, client };
}

const names = (tools: Array<{ name: string }>) => tools.map((x) => x.name).sort();
const text = (r: Record<string, unknown>) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;
const constraint = (r: Record<string, unknown>) => (r._meta as Record<string, { constraint_id: string }> | undefined)?.[DENIAL_META]?.constraint_id;

t.test('built-in defaults: a tool on neither list is admitted by an operator approval, not by its name nor a first-use pin', async (t) => {
  const { up, s, org, client } = await setup(t);
  t.same(names((await client.listTools()).tools), ['get_weather', 'search'], 'first-use pins admit only the safe list; echo_text waits for an operator');

  const before = await client.callTool({ name: 'echo_text', arguments: { text: 'hi' } });
  t.equal(before.isError, true);
  t.equal(constraint(before), 'mcp.policy.approval_required');
  t.match(text(before), /needs an operator's approval/);

  const listing = await s.request('GET', '/admin/mcp/servers/demo/tools', { apiKey: org.key });
  const echo = listing.body.tools.find((x: { tool: string }) => x.tool === 'echo_text');
  t.match(echo, { status: 'pinned', approved_by: 'first_use', policy: { action: 'require_approval', admitted: false } }, 'the operator sees why it is not admitted');

  const ok = await s.request('POST', '/admin/mcp/servers/demo/tools/echo_text/approve', { apiKey: org.key, body: { hash: echo.hash } });
  t.equal(ok.status, 200, ok.text);
  t.same(names((await client.listTools()).tools), ['echo_text', 'get_weather', 'search'], 'offered once approved');
  const called = await client.callTool({ name: 'echo_text', arguments: { text: 'hi' } });
  t.equal(text(called), 'called echo_text');
  t.match((called._meta as Record<string, string>)[VERDICT_META], /^[\w-]+\.[\w-]+\.[\w-]+$/, 'an admitted call carries its verdict');

  // admission is not the end: the arguments are still screened
  const secret = await client.callTool({ name: 'echo_text', arguments: { text: 'key AKIAIOSFODNN7EXAMPLE' } });
  t.equal(constraint(secret), 'agents.tool_policy');
  t.match(text(secret), /credential or secret/);
  const outside = await client.callTool({ name: 'echo_text', arguments: { text: 'x', file: 'notes.txt' } });
  t.equal(constraint(outside), 'agents.tool_policy', 'a file-naming argument outside the sandbox');
  t.match(text(outside), /outside the sandbox/);
  const inside = await client.callTool({ name: 'echo_text', arguments: { text: 'x', file: '/sandbox/notes.txt', link: 'https://example.org/a' } });
  t.equal(text(inside), 'called echo_text', 'inside the sandbox it passes');

  // a dangerous name stays denied by default, approval or not
  const w = (await s.request('GET', '/admin/mcp/servers/demo/tools', { apiKey: org.key })).body.tools.find((x: { tool: string }) => x.tool === 'write_file');
  t.match(w.policy, { action: 'deny', source: 'the built-in dangerous list' });
  t.equal((await s.request('POST', '/admin/mcp/servers/demo/tools/write_file/approve', { apiKey: org.key, body: {} })).status, 200);
  const denied = await client.callTool({ name: 'write_file', arguments: { path: '/sandbox/a' } });
  t.equal(constraint(denied), 'mcp.policy.deny');
  t.same(up.state.calls.map((c) => c.name), ['echo_text', 'echo_text'], 'no denied call reached the server');
});

t.test('the admin API replaces the configured policy; rules match names and pinned definitions', async (t) => {
  const { up, s, org, client } = await setup(t, { policy: { rules: [{ tool: 'echo_*', action: 'allow' }] } });
  const cfg = await s.request('GET', '/admin/mcp/servers/demo/policy', { apiKey: org.key });
  t.equal(cfg.status, 200, cfg.text);
  t.match(cfg.body, { server: 'demo', source: 'config', policy: { default: 'builtin', rules: [{ tool: 'echo_*', action: 'allow' }] }, updated_at: null });
  t.same(names((await client.listTools()).tools), ['echo_text', 'get_weather', 'search'], 'the configured allow admits a first-use pin');
  t.equal(text(await client.callTool({ name: 'echo_text', arguments: {} })), 'called echo_text');

  // read-only tools only, whatever their name; everything else denied
  const put = await s.request('PUT', '/admin/mcp/servers/demo/policy', { apiKey: org.key, body: { default: 'deny', rules: [{ tool: '*', action: 'allow', definition: { read_only: true, findings: 'none' } }] } });
  t.equal(put.status, 200, put.text);
  t.equal(put.body.source, 'admin');
  t.ok(put.headers.get('x-audit-log-id'), 'the change is audited');
  t.same(names((await client.listTools()).tools), ['get_weather', 'lookup_note'], 'the new policy holds from the next listing');
  const search = await client.callTool({ name: 'search', arguments: { query: 'x' } });
  t.equal(constraint(search), 'mcp.policy.deny', 'a safe-list name is denied when the policy says so');
  t.match(text(search), /the default/);
  t.equal(text(await client.callTool({ name: 'lookup_note', arguments: {} })), 'called lookup_note');

  // a dangerous name admitted by a rule still needs an operator and sandboxed paths
  await s.request('PUT', '/admin/mcp/servers/demo/policy', { apiKey: org.key, body: { rules: [{ tool: 'Write-File', action: 'require_approval' }] } });
  t.equal(constraint(await client.callTool({ name: 'write_file', arguments: { path: '/sandbox/a' } })), 'mcp.policy.approval_required');
  await s.request('POST', '/admin/mcp/servers/demo/tools/write_file/approve', { apiKey: org.key, body: {} });
  t.equal(text(await client.callTool({ name: 'write_file', arguments: { path: '/sandbox/a' } })), 'called write_file');
  const escape = await client.callTool({ name: 'write_file', arguments: { path: '/sandbox/../etc/cron.d/x' } });
  t.equal(constraint(escape), 'agents.tool_policy');

  const reset = await s.request('DELETE', '/admin/mcp/servers/demo/policy', { apiKey: org.key });
  t.equal(reset.status, 200, reset.text);
  t.equal(reset.body.source, 'config', 'the configuration holds again');
  t.equal(constraint(await client.callTool({ name: 'write_file', arguments: { path: '/sandbox/a' } })), 'mcp.policy.deny');
  t.same(up.state.calls.map((c) => c.name), ['echo_text', 'lookup_note', 'write_file'], 'no denied call reached the server');
});

t.test('hostile input on the policy routes', async (t) => {
  const { s, org, agent } = await setup(t);
  const other = await tenant(s, ['verify:read', 'admin:all']);
  const weak = await tenant(s, ['verify:read']);
  const good = { rules: [{ tool: '*', action: 'allow' }] };
  for (const method of ['GET', 'PUT', 'DELETE'] as const) {
    const body = method === 'PUT' ? { body: good } : {};
    const r = await s.request(method, '/admin/mcp/servers/demo/policy', { apiKey: other.key, ...body });
    t.equal(r.status, 403, `${method}: another tenant's admin:all is no operator`);
    t.equal(r.body.code, 'not_operator');
    t.equal((await s.request(method, '/admin/mcp/servers/demo/policy', { apiKey: weak.key, ...body })).status, 403, `${method}: a key without admin:all`);
    t.equal((await s.request(method, '/admin/mcp/servers/demo/policy', { apiKey: null, headers: { 'x-agent-token': agent.agent_token }, ...body })).status, 401, `${method}: an agent token`);
    const unknown = await s.request(method, '/admin/mcp/servers/nope/policy', { apiKey: org.key, ...body });
    t.equal(unknown.status, 404, `${method}: an unknown server`);
  }
  const bad: Array<[string, unknown]> = [
    ['an unknown action', { rules: [{ tool: 'x', action: 'maybe' }] }],
    ['an unknown member', { rules: [{ tool: 'x', action: 'allow', admin: true }] }],
    ['an unknown condition', { rules: [{ tool: 'x', action: 'allow', definition: { trusted: true } }] }],
    ['an empty pattern', { rules: [{ tool: '', action: 'allow' }] }],
    ['a pattern too long', { rules: [{ tool: 'a'.repeat(129), action: 'allow' }] }],
    ['a pattern of too many stars', { rules: [{ tool: '*a'.repeat(9), action: 'allow' }] }],
    ['too many rules', { rules: Array.from({ length: 65 }, () => ({ tool: 'x', action: 'deny' })) }],
    ['a rule that is a list', { rules: [[{ tool: 'x', action: 'allow' }]] }],
    ['a policy that is a list', [good]],
    ['an unknown default', { default: 'everything' }],
  ];
  for (const [what, body] of bad) {
    const r = await s.request('PUT', '/admin/mcp/servers/demo/policy', { apiKey: org.key, body });
    t.equal(r.status, 400, what);
  }
  const dup = await s.request('PUT', '/admin/mcp/servers/demo/policy', { apiKey: org.key, raw: '{"default":"deny","default":"allow"}', headers: { 'content-type': 'application/json' } });
  t.equal(dup.status, 400, 'duplicate keys');
  const huge = await s.request('PUT', '/admin/mcp/servers/demo/policy', { apiKey: org.key, raw: JSON.stringify({ rules: [{ tool: 'x', action: 'allow' }], pad: 'x'.repeat(64 * 1024) }), headers: { 'content-type': 'application/json' } });
  t.equal(huge.status, 413, 'a body past the cap');
  const deep = await s.request('PUT', '/admin/mcp/servers/demo/policy', { apiKey: org.key, raw: `{"rules":${'['.repeat(5000)}${']'.repeat(5000)}}`, headers: { 'content-type': 'application/json' } });
  t.equal(deep.status, 400, 'a deep body');
  const still = await s.request('GET', '/admin/mcp/servers/demo/policy', { apiKey: org.key });
  t.equal(still.body.source, 'builtin', 'nothing refused was stored');
});

t.test('a malformed policy in the configuration stops start-up', async (t) => {
  const { parseServers } = await import('../../plugins/mcp/config.js');
  t.throws(() => parseServers({ a: { url: 'http://127.0.0.1:1/mcp', policy: { rules: [{ tool: 'x', action: 'yes' }] } } }, {}), /mcp\.servers\.a\.policy\.rules\[0\]\.action/);
  t.throws(() => parseServers({ a: { url: 'http://127.0.0.1:1/mcp', policy: { allow: ['*'] } } }, {}), /unknown member allow/);
  t.throws(() => parseServers({ a: { url: 'http://127.0.0.1:1/mcp', policy: { rules: [{ tool: '*a'.repeat(9), action: 'deny' }] } } }, {}), /at most 8/);
  t.match(parseServers({ a: { url: 'http://127.0.0.1:1/mcp', policy: {} } }, {}).get('a')?.policy, { default: 'builtin', rules: [] });
});

t.test('units: globs, rule order, definition conditions, built-in defaults', async (t) => {
  const { globMatch, decide } = await import('../../plugins/mcp/policy.js');
  t.ok(globMatch('echo_*', 'echo_text'));
  t.ok(globMatch('e?ho*', 'echo'));
  t.ok(globMatch('*', ''));
  t.notOk(globMatch('echo', 'echo_text'), 'a pattern matches the whole name');
  t.notOk(globMatch(`${'*a'.repeat(8)}b`, 'a'.repeat(10_000)), 'a pattern built to backtrack still answers');
  const def = { name: 'x', annotations: { readOnlyHint: true } };
  t.match(decide({ default: 'deny', rules: [{ tool: 'x', action: 'deny' }, { tool: '*', action: 'allow' }] }, 'X', def, []), { action: 'deny', source: /rule 0/ }, 'the first matching rule decides, over normalised names');
  t.match(decide({ default: 'deny', rules: [{ tool: '*', action: 'allow', definition: { destructive: true } }] }, 'x', def, []), { action: 'deny', source: 'the default' });
  t.match(decide({ default: 'deny', rules: [{ tool: '*', action: 'allow', definition: { findings: 'none' } }] }, 'x', def, [{ constraint_id: 'c', excerpt: '', field: 'd' } as never]), { action: 'deny' }, 'a definition with findings is not "none"');
  t.match(decide({ default: 'builtin', rules: [] }, 'Bash', def, []), { action: 'deny' });
  t.match(decide({ default: 'builtin', rules: [] }, 'read-file', def, []), { action: 'allow' });
  t.match(decide({ default: 'builtin', rules: [] }, 'echo', def, []), { action: 'require_approval' });
});
