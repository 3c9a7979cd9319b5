import t from 'tap';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../helpers/wait.js';

/**
 * The /healthz probe of the event-loop test takes the scheduler's wait off each answer. This checks
 * that the correction cannot hide work: a handler that holds this process's event loop with a fixed
 * amount of computation is still seen as held for about as long as that computation ran.
 */
let sink = 0;
/** runs a fixed computation and returns the CPU milliseconds it took (this thread is the only busy one) */
function compute(iterations: number): number {
  const before = process.cpuUsage();
  let x = 0;
  for (let i = 0; i < iterations; i++) x += Math.sqrt(i);
  sink += x;
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

// calibrated so that the hold is well above the noise of a loaded machine
let iterations = 1_000_000;
while (compute(iterations) < 60) iterations *= 2;

let workMs = 0;
let polls = 0;
const srv = createServer((req, res) => {
  if (req.url === '/hold') workMs = compute(iterations);
  else polls++;
  res.end('ok');
}).listen(0, '127.0.0.1');
await once(srv, 'listening');
t.teardown(() => srv.close());
const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;

const probe = fork(new URL('../helpers/healthz-probe.js', import.meta.url), [base, String(process.pid)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
t.teardown(() => probe.send('exit'));
const next = () => once(probe, 'message').then(([m]) => m as { max: number; held: number; samples: number; corrected: boolean });
await next(); // ready

t.test('a computation holding the event loop is counted as held', async (t) => {
  probe.send('start');
  await next(); // started
  // the probe is polling (back to back, so one request is always waiting) before the loop is held
  const from = polls;
  await waitFor(() => polls >= from + 2, { what: 'the probe to poll' });
  const res = await fetch(`${base}/hold`);
  await res.text();
  probe.send('stop');
  const m = await next();
  t.comment(`work ${workMs.toFixed(1)} ms of CPU; slowest answer ${m.max.toFixed(1)} ms, ${m.held.toFixed(1)} ms held (corrected: ${m.corrected})`);
  t.ok(m.samples > 0, 'the probe was answered');
  t.ok(m.held >= workMs * 0.8, `held ${m.held.toFixed(1)} ms covers the ${workMs.toFixed(1)} ms of work`);
  t.ok(m.max >= m.held, 'the correction only takes time off');
});
