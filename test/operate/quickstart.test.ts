import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { builtinsWithEngines, startServer, untilReady } from '../helpers/server.js';

const run = promisify(execFile);
const README = new URL('../../../README.md', import.meta.url);

/** The README's example reply: the JSON block between the reply markers ("…" marks a value that differs per run). */
function readmeReply(): Record<string, unknown> {
  const m = /<!-- reply:begin -->\s*```json\n([\s\S]*?)```\s*<!-- reply:end -->/.exec(readFileSync(README, 'utf8'));
  if (!m) throw new Error('README.md has no example reply between its markers');
  return JSON.parse(m[1]) as Record<string, unknown>;
}

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
  t.equal(script.match(/localhost:8080/g)?.length, 4, 'sign-up (or sign-in), key and call against the default address');
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

  // issue 43: the README shows the real answer, member for member and in order
  const shown = readmeReply();
  const volatile = Object.keys(shown).filter((k) => shown[k] === '…');
  t.same(volatile.sort(), ['attestation', 'attestation_id'], 'only the per-run values are abbreviated');
  const comparable = Object.fromEntries(Object.entries(answer).map(([k, v]) => [k, volatile.includes(k) && typeof v === 'string' ? '…' : v]));
  t.strictSame(comparable, shown, "the README's example reply is the real one");
  t.same(Object.keys(answer), Object.keys(shown), 'in the same order');

  // issue 43: pasted a second time, the block signs in (sign-up answers 409) instead of running on with TOKEN=undefined
  const again = await run('bash', ['-euo', 'pipefail', '-c', pasted], { env: { PATH: process.env.PATH }, timeout: 60_000 });
  t.equal(JSON.parse(again.stdout).status, 'VERIFIED', again.stderr);
});
