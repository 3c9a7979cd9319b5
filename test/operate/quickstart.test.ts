import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { builtinsWithEngines, startServer, untilReady } from '../helpers/server.js';

const run = promisify(execFile);
const README = new URL('../../../README.md', import.meta.url);

/** The fenced block between the quickstart markers of README.md, exactly as a reader copies it. */
function quickstart(): string {
  const text = readFileSync(README, 'utf8');
  const m = /<!-- quickstart:begin[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- quickstart:end -->/.exec(text);
  if (!m) throw new Error('README.md has no quickstart block between its markers');
  return m[1];
}

t.test("the README's quick start works when pasted", async (t) => {
  const script = quickstart();
  t.match(script, /auth\/signup/);
  t.match(script, /auth\/api-keys/);
  t.match(script, /verify\/math/);
  t.equal(script.match(/localhost:8080/g)?.length, 3, 'three commands against the default address');
  // a generous engine deadline: the machine running the suite may be busy; correctness is what is checked.
  // The quick start verifies with math (asserted above): no other engine warms up beside it.
  const s = await startServer({ plugins: builtinsWithEngines('math'), config: { workers: { threads: 1, task_timeout_ms: 120_000 } } });
  t.teardown(() => s.close());
  // a reader starts pasting once the server is up; wait for readiness (engines warm), not a fixed time
  await untilReady(s.kernel);
  const hostPort = new URL(s.url).host;
  // only the address changes: the test server listens on a free port
  const pasted = script.replaceAll('localhost:8080', hostPort);
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', pasted], { env: { PATH: process.env.PATH }, timeout: 60_000 });
  const answer = JSON.parse(stdout);
  t.equal(answer.status, 'VERIFIED', stdout);
  t.equal(answer.developer_fields.is_valid, true);
  t.match(answer.proof_ref, /^sha256:/);
});
