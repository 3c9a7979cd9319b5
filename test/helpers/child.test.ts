import t from 'tap';
import { spawnSync } from 'node:child_process';
import { nodeCommand, unpreloaded } from './child.js';

const probe = ['-e', 'process.stdout.write(JSON.stringify({ options: process.env.NODE_OPTIONS ?? null, argv: process.argv.slice(1) }))'];

t.test('a child started through nodeCommand sees no NODE_OPTIONS, whatever the parent carries', async (t) => {
  const r = spawnSync(...nodeCommand([...probe, 'a b', '--x']), { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '--no-deprecation' } });
  t.equal(r.status, 0, r.stderr);
  t.same(JSON.parse(r.stdout), { options: null, argv: ['a b', '--x'] }, 'no NODE_OPTIONS; arguments arrive unchanged');
});

// Under tap's runner (`npm test -- <file>`, tap sets TAP_CHILD_ID) processinfo rewrites a child's explicit
// environment to load its preload: if a tap upgrade stops doing so, this fails and the helper can go.
// Under test/runner.mjs (`npm test`) a test process carries no preload, so nothing is put there.
t.test('a child given an explicit env gets the preload of the runner that started this test, and only under tap', async (t) => {
  const r = spawnSync(process.execPath, probe, { encoding: 'utf8', env: { PATH: process.env.PATH } });
  const options = JSON.parse(r.stdout).options;
  if (process.env.TAP_CHILD_ID) t.match(options, /--import/, 'tap rewrote the explicit env');
  else t.equal(options, null, 'test/runner.mjs (or plain node) put nothing into it');
});

t.test('NODE_OPTIONS given to nodeCommand is what the child gets, and only that', async (t) => {
  const r = spawnSync(...nodeCommand(probe, '--no-deprecation'), { encoding: 'utf8' });
  t.equal(JSON.parse(r.stdout).options, '--no-deprecation');
});

t.test('unpreloaded runs any command, found on PATH', async (t) => {
  const r = spawnSync(...unpreloaded('sh', ['-c', 'echo "${NODE_OPTIONS-unset}"']), { encoding: 'utf8', env: { PATH: process.env.PATH, NODE_OPTIONS: '--no-deprecation' } });
  t.equal(r.stdout.trim(), 'unset');
});
