import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { mcpApproveCommand } from '../../plugins/mcp/index.js';
import { nodeCommand } from '../helpers/child.js';

/**
 * `proofgate mcp approve` calls the sidecar through the generated client (packages/client): what
 * goes on the wire is the client's (the /v1 route, the key header, the JSON body), names that are
 * path segments of their own are refused before anything is sent, and an answer that is not the
 * route's is reported, not crashed on. The round trips against a real sidecar are in proxy.test.ts.
 */
interface Seen {
  method: string;
  url: string;
  key: string | undefined;
  body: string;
}

/** a server that records each request and answers with `answer` */
async function recorder(t: Test, answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, key: req.headers['x-api-key'] as string | undefined, body });
      answer(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' });
  res.end(JSON.stringify(body));
};

async function approve(t: Test, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = t.capture(console, 'log');
  const errors = t.capture(console, 'error');
  const text = (r: typeof out) => r().map((c) => c.args.join(' ')).join('\n');
  try {
    const code = await mcpApproveCommand.run(args);
    return { code, stdout: text(out), stderr: text(errors) };
  } finally {
    out.restore();
    errors.restore();
  }
}

const KEY = 'svc_live_operator_key_0123456789abcdef';
const PIN = { server: 'demo', tool: 'get_weather', hash: `sha256:${'a'.repeat(64)}`, previous_hash: null, approved_at: '2026-01-01T00:00:00Z', approved_by: 'u1', accepted_findings: [] };

t.test('the CLI process lists and approves on the client’s routes, with the key and the body it was given', async (t) => {
  const { url, seen } = await recorder(t, (req, res) => json(200, req.method === 'GET' ? { server: 'demo', tools: [] } : PIN)(req, res));
  const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(...nodeCommand([CLI, 'mcp', 'approve', ...args]), { env: { ...process.env, PROOFGATE_API_KEY: KEY } });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const listed = await run(['--url', url, '--server', 'demo']);
  t.equal(listed.code, 0, listed.stderr);
  const pinned = await run(['--url', `${url}/`, '--server', 'demo', '--tool', 'get_weather', '--hash', PIN.hash, '--accept-findings']);
  t.equal(pinned.code, 0, pinned.stderr);
  t.match(pinned.stdout, `pinned demo/get_weather ${PIN.hash}`);
  t.same(
    seen.map((s) => [s.method, s.url, s.key]),
    [
      ['GET', '/v1/admin/mcp/servers/demo/tools', KEY],
      ['POST', '/v1/admin/mcp/servers/demo/tools/get_weather/approve', KEY],
    ],
  );
  t.same(JSON.parse(seen[1].body), { hash: PIN.hash, accept_findings: true });
});

t.test('a server or tool name that is a path segment of its own is refused before anything is sent', async (t) => {
  const { url, seen } = await recorder(t, json(200, PIN));
  // resolved as URL segments, `..` would approve on another server's route (or call another route)
  for (const args of [['--server', '..', '--tool', 'x'], ['--server', 'demo', '--tool', '..'], ['--server', '.'], ['--server', 'demo', '--tool', '.']]) {
    const r = await approve(t, ['--url', url, '--api-key', KEY, ...args]);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, /path parameter (server|tool) may not be or hold a "\." or "\.\." segment; nothing was sent/);
  }
  // a slash is encoded, not a separator
  const slashed = await approve(t, ['--url', url, '--api-key', KEY, '--server', 'demo', '--tool', 'a/../../b']);
  t.equal(slashed.code, 0, slashed.stderr);
  t.same(seen.map((s) => s.url), ['/v1/admin/mcp/servers/demo/tools/a%2F..%2F..%2Fb/approve']);
});

t.test('a lying or failing server: reported with its status, one attempt, no crash', async (t) => {
  const notProofgate = await recorder(t, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>captive portal</html>'));
  const html = await approve(t, ['--url', notProofgate.url, '--api-key', KEY, '--server', 'demo']);
  t.equal(html.code, 2);
  t.match(html.stderr, /did not answer as a proofgate sidecar/);

  const wrongShape = await recorder(t, json(200, { server: 'demo', tools: 'none' }));
  const shape = await approve(t, ['--url', wrongShape.url, '--api-key', KEY, '--server', 'demo']);
  t.equal(shape.code, 2);
  t.match(shape.stderr, /did not answer as a proofgate sidecar/);

  const busy = await recorder(t, json(503, { title: 'Service Unavailable', detail: 'store unavailable' }));
  const down = await approve(t, ['--url', busy.url, '--api-key', KEY, '--server', 'demo', '--tool', 'get_weather']);
  t.equal(down.code, 2, 'a server error is exit 2');
  t.match(down.stderr, /503 store unavailable/);
  t.equal(busy.seen.length, 1, 'not retried: the operator sees the status at once');

  const findings = await recorder(t, json(409, { title: 'Conflict', detail: 'the definition has findings', findings: [{ constraint_id: 'agents.poisoning', details: 'hidden instruction' }] }));
  const refused = await approve(t, ['--url', findings.url, '--api-key', KEY, '--server', 'demo', '--tool', 'add']);
  t.equal(refused.code, 1, 'a refusal is exit 1');
  t.match(refused.stderr, /409 the definition has findings\n {2}agents\.poisoning: hidden instruction/);

  // port 1 (tcpmux) listens nowhere here: the connection is refused
  const gone = await approve(t, ['--url', 'http://127.0.0.1:1', '--api-key', KEY, '--server', 'demo']);
  t.equal(gone.code, 2);
  t.match(gone.stderr, /http:\/\/127\.0\.0\.1:1 cannot be reached/);
});
