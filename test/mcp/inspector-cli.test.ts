import t from 'tap';
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import mcp from '../../plugins/mcp/index.js';
import audit from '../../plugins/audit/index.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { startReferenceServer } from './conformance-server.js';

/**
 * MCP Inspector's CLI mode against the reference server, direct and through proofgate's /mcp/{server}:
 * the same answers, plus proofgate's verdict in `_meta` on tool results.
 *
 * The `mcp-inspector --cli` wrapper of 0.21.1 imports `commander` without declaring it and gets the
 * repo's hoisted commander 4 (`allowExcessArguments is not a function`), so the test runs the CLI the
 * wrapper would spawn, from @modelcontextprotocol/inspector-cli (which declares commander 13). That
 * CLI reads its own package.json relative to the working directory, hence `cwd` below.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];
const require = createRequire(import.meta.url);
const NODE22 = resolve(require.resolve('node/package.json'), '..', 'bin', 'node');
const CLI_DIR = resolve(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build');
const VERDICT = 'dev.proofgate/verdict';

function inspector(url: string, args: string[], headers: Record<string, string> = {}): Promise<{ ok: boolean; json: any; out: string }> {
  const h = Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]);
  return new Promise((done) => {
    execFile(NODE22, ['index.js', url, '--transport', 'http', ...args, ...h], { cwd: CLI_DIR, timeout: 20_000 }, (err, stdout, stderr) => {
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      done({ ok: !err, json, out: `${stdout}${stderr}`.slice(0, 500) });
    });
  });
}

t.test('Inspector CLI: tools/list and tools/call answer the same direct and through proofgate', async (t) => {
  const ref = await startReferenceServer();
  t.teardown(() => ref.close());
  const s = await startServer({
    plugins: PLUGINS,
    config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { reference: { url: ref.url, policy: { default: 'allow' } } }, pin_on_first_use: true } },
  });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'inspector' });
  const via = `${s.url}/mcp/reference`;
  const token = { 'x-agent-token': agent.agent_token };

  const dl = await inspector(ref.url, ['--method', 'tools/list']);
  const pl = await inspector(via, ['--method', 'tools/list'], token);
  t.ok(dl.ok, dl.ok ? 'tools/list direct' : dl.out);
  t.ok(pl.ok, pl.ok ? 'tools/list through proofgate' : pl.out);
  const names = (r: any) => (r.json?.tools ?? []).map((x: { name: string }) => x.name).sort();
  t.ok(names(dl).length >= 10, 'the reference server lists its tools');
  t.same(names(pl), names(dl), 'through proofgate the Inspector lists the same tools');

  for (const call of [
    ['--tool-name', 'test_simple_text'],
    ['--tool-name', 'test_multiple_content_types'],
    ['--tool-name', 'test_error_handling'],
  ]) {
    const d = await inspector(ref.url, ['--method', 'tools/call', ...call]);
    const p = await inspector(via, ['--method', 'tools/call', ...call], token);
    t.ok(d.ok && p.ok, d.ok && p.ok ? `${call[1]} runs both ways` : `${d.out} / ${p.out}`);
    t.same(p.json?.content, d.json?.content, `${call[1]}: the same content through proofgate`);
    t.equal(p.json?.isError, d.json?.isError, `${call[1]}: the same isError`);
    t.match(p.json?._meta?.[VERDICT], /^[\w-]+\.[\w-]+\.[\w-]+$/, `${call[1]}: proofgate's signed verdict rides in _meta`);
  }

  const pr = await inspector(via, ['--method', 'prompts/get', '--prompt-name', 'test_prompt_with_arguments', '--prompt-args', 'arg1=a', 'arg2=b'], token);
  const dr = await inspector(ref.url, ['--method', 'prompts/get', '--prompt-name', 'test_prompt_with_arguments', '--prompt-args', 'arg1=a', 'arg2=b']);
  t.same(pr.json?.messages, dr.json?.messages, 'prompts/get relays the same messages');
});

t.test('Inspector CLI: without the agent token, or with another value, proofgate refuses', async (t) => {
  const ref = await startReferenceServer();
  t.teardown(() => ref.close());
  const s = await startServer({
    plugins: PLUGINS,
    config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { reference: { url: ref.url, policy: { default: 'allow' } } }, pin_on_first_use: true } },
  });
  t.teardown(() => s.close());
  const none = await inspector(`${s.url}/mcp/reference`, ['--method', 'tools/list']);
  t.notOk(none.ok, 'no token: the CLI fails to connect');
  t.equal(none.json, undefined, 'and lists nothing');
  const forged = await inspector(`${s.url}/mcp/reference`, ['--method', 'tools/list'], { 'x-agent-token': 'agt_forged.notatoken' });
  t.notOk(forged.ok, 'a forged token: refused too');
});
