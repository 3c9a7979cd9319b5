import t from 'tap';
import { spawnSync } from 'node:child_process';
import { permissionFlag, Sandbox, sandboxArgs, SANDBOX_MARKER } from '../../../plugins/engines/stats/sandbox.js';

t.test('the sandbox flags deny fs reads elsewhere, fs writes, child processes and workers', async (t) => {
  const args = sandboxArgs(64);
  t.ok(args.includes(permissionFlag()));
  t.equal(permissionFlag('20.20.2'), '--experimental-permission');
  t.equal(permissionFlag('22.13.0'), '--permission');
  t.equal(permissionFlag('24.1.0'), '--permission');
  t.notOk(args.some((a) => /allow-(fs-write|child-process|worker|addons)/.test(a)));
  // same flags, a hostile script in place of the evaluator
  const flags = args.slice(0, args.indexOf(SANDBOX_MARKER) - 1);
  const script = `
    const r = {};
    const tryIt = (k, f) => { try { f(); r[k] = 'ALLOWED'; } catch (e) { r[k] = e.code || e.name; } };
    tryIt('read', () => require('fs').readFileSync('/etc/hostname'));
    tryIt('write', () => require('fs').writeFileSync('/tmp/proofgate-sandbox-escape', 'x'));
    tryIt('spawn', () => require('child_process').execSync('true'));
    tryIt('worker', () => new (require('worker_threads').Worker)('1', { eval: true }));
    tryIt('env', () => { if (Object.keys(process.env).length) throw new Error('env leaked'); });
    console.log(JSON.stringify(r));`;
  // through env -i as the sandbox does, so no injected NODE_OPTIONS reach the child
  const res = spawnSync('/usr/bin/env', ['-i', process.execPath, ...flags, '-e', script], { env: {}, encoding: 'utf8' });
  const r = JSON.parse(res.stdout);
  t.equal(r.read, 'ERR_ACCESS_DENIED');
  t.equal(r.write, 'ERR_ACCESS_DENIED');
  t.equal(r.spawn, 'ERR_ACCESS_DENIED');
  t.equal(r.worker, 'ERR_ACCESS_DENIED');
  t.equal(r.env, 'ALLOWED', 'the child gets an empty environment');
});

t.test('runs the evaluator; kills on the deadline; reports an unstartable runtime', async (t) => {
  const s = new Sandbox({ timeoutMs: 20_000, heapMb: 64, concurrency: 1, maxQueue: 4 });
  const ok = await s.run({ query: { aggregate: 'sum', column: 'x' }, columns: { x: ['1', '2'] }, rows: 2 });
  t.same(ok, { kind: 'result', output: { ok: true, value: { exact: '3', decimal: '3', n: 2 }, groups: null } });
  const slow = new Sandbox({ timeoutMs: 1, heapMb: 64, concurrency: 1, maxQueue: 4 });
  t.same(await slow.run({ probe: true }), { kind: 'failure', reason: 'timeout' });
  const none = new Sandbox({ nodePath: '/nonexistent/node', timeoutMs: 5000, heapMb: 64, concurrency: 1, maxQueue: 4 });
  t.equal((await none.run({ probe: true })).kind, 'unavailable', 'no node binary');
  const noEnv = new Sandbox({ envPath: '/nonexistent/env', timeoutMs: 5000, heapMb: 64, concurrency: 1, maxQueue: 4 });
  t.equal((await noEnv.run({ probe: true })).kind, 'unavailable', 'no env binary');
  const ac = new AbortController();
  ac.abort();
  t.same(await s.run({ probe: true }, ac.signal), { kind: 'failure', reason: 'cancelled' }, 'an aborted request starts no child');
});

t.test('a request aborted while queued leaves the queue and starts no child', async (t) => {
  // one slot: the first run holds it while the second waits
  const s = new Sandbox({ timeoutMs: 20_000, heapMb: 64, concurrency: 1, maxQueue: 1 });
  const first = s.run({ probe: true });
  const ac = new AbortController();
  const queued = s.run({ probe: true }, ac.signal);
  t.equal((await s.run({ probe: true })).kind, 'unavailable', 'the queue (1) is full while it waits');
  ac.abort();
  t.same(await queued, { kind: 'failure', reason: 'cancelled' }, 'answered at once, not after an evaluation');
  const third = s.run({ probe: true });
  t.equal((await first).kind, 'result');
  t.equal((await third).kind, 'result', 'its place in the queue was given up');
});
