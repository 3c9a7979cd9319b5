import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ProofgateClient } from '../../packages/client/src/index.js';
import { builtinsWithEngines, startServer, untilReady } from '../helpers/server.js';
import { nodeCommand } from '../helpers/child.js';

// docs/client.md's example, run as written: a user copies it, so it must work as printed.
const repo = fileURLToPath(new URL('../../../', import.meta.url));

t.test('docs/client.md: the usage example runs against a started sidecar', async (t) => {
  const md = readFileSync(repo + 'docs/client.md', 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(md);
  if (!t.ok(block, 'the doc has a js example')) return;
  // the example calls /verify/math and /verify/code: no other engine warms up beside it
  const s = await startServer({ plugins: builtinsWithEngines('math', 'code') });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const anon = new ProofgateClient({ baseUrl: s.url });
  const session = await anon.postAuthSignup({ email: `docs-${process.pid}-${Date.now()}@example.com`, password: 'correct horse battery', organization_name: `Docs ${process.pid} ${Date.now()}` });
  const key = await new ProofgateClient({ baseUrl: s.url, token: session.access_token }).postAuthApiKeys({ name: 'docs' });
  // inside the package, so `proofgate/client` resolves through the package's own exports (self-reference)
  const file = `${repo}dist/docs-client-example.mjs`;
  writeFileSync(file, block![1]);
  t.teardown(() => rmSync(file, { force: true }));
  const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(...nodeCommand([file]), { env: { ...process.env, PROOFGATE_URL: s.url, PROOFGATE_API_KEY: key.key }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr }),
    ),
  );
  t.equal(out.code, 0, out.stderr);
  const lines = out.stdout.trim().split('\n');
  t.match(lines[0], /^VERIFIED sha256:[0-9a-f]{64}$/);
  t.equal(lines[1], 'VERIFIED', 'the attested verdict stays VERIFIED as a document');
  t.match(lines[2], /^BLOCKED \[.*python\.process/);
  t.match(lines[3], / true$/, 'the A2A verdict verifies against the JWKS');
  t.equal(lines[4], '400 /body/expression');
});
