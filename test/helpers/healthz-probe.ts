/**
 * A separate client process for event-loop tests: polls GET <url>/healthz back to back, one at a
 * time. Every request sent between the parent's 'start' and 'stop' is counted (its answer is
 * awaited before 'stop' is answered); it records the slowest answer and reports
 * `{max, held, samples, corrected}`; 'exit' ends it. Being another process, neither its clock nor its requests
 * wait on the server's event loop. Run with child_process.fork(<this file>, [baseUrl, serverPid]).
 *
 * `held` is each answer's latency less the time the scheduler kept the server's main thread (or
 * this probe) runnable but off a CPU, read from Linux's per-thread schedstat. On a 2-core machine
 * shared with another test job, a thread can wait tens of milliseconds for a core while no work
 * holds the event loop at all; the bound is about work holding the loop, so that wait is not
 * counted. Only the larger of the two waits is taken off (they may overlap), so the correction can
 * never hide time the loop spent running. Without schedstat, `held` is the latency itself.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const url = new URL('/healthz', process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let measuring = false;
let exiting = false;
let max = 0;
let held = 0;
let samples = 0;

/** nanoseconds a thread spent runnable but waiting for a CPU (the second field of schedstat), or null */
function waitNs(file: string): number | null {
  try {
    const ns = Number(readFileSync(file, 'latin1').split(' ')[1]);
    return Number.isFinite(ns) ? ns : null;
  } catch {
    return null;
  }
}
const serverPid = process.argv[3];
// the main thread's task id is the process id
const serverStat = serverPid ? `/proc/${serverPid}/task/${serverPid}/schedstat` : null;
const ownStat = '/proc/thread-self/schedstat';
const corrected = serverStat !== null && waitNs(serverStat) !== null && waitNs(ownStat) !== null;
let wake: (() => void) | null = null;
/** the request on the wire, if any: an answer to a request sent while measuring counts even if it lands after 'stop' */
let inFlight: Promise<unknown> = Promise.resolve();

/** one answer: [latency, latency less the scheduler wait] in ms */
function once(): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const serverWait = corrected ? waitNs(serverStat!)! : 0;
    const ownWait = corrected ? waitNs(ownStat)! : 0;
    const started = performance.now();
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        const ms = performance.now() - started;
        if (res.statusCode !== 200) return reject(new Error(`healthz answered ${res.statusCode}`));
        const waited = corrected ? Math.max(waitNs(serverStat!)! - serverWait, waitNs(ownStat)! - ownWait) / 1e6 : 0;
        resolve([ms, Math.max(0, ms - waited)]);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

// the parent gone (a failed or killed test): never outlive it
process.on('disconnect', () => process.exit(0));

process.on('message', (m) => {
  if (m === 'start') {
    max = 0;
    held = 0;
    samples = 0;
    measuring = true;
    wake?.();
    process.send!('started');
  } else if (m === 'stop') {
    measuring = false;
    void inFlight.then(() => process.send!({ max, held, samples, corrected }));
  } else if (m === 'exit') {
    exiting = true;
    wake?.();
  }
});

await once(); // the connection is opened outside any measurement
process.send!('ready');
while (!exiting) {
  // idle between measurements: polling only while the parent measures keeps the shared cores free
  if (!measuring) {
    await new Promise<void>((r) => (wake = r));
    continue;
  }
  // sent while measuring, so counted even when 'stop' came in meanwhile: 'stop' answers only once
  // inFlight settles, and inFlight's reaction runs after this loop's await on the same request
  const p = once();
  inFlight = p.catch(() => undefined);
  const [ms, heldMs] = await p;
  max = Math.max(max, ms);
  held = Math.max(held, heldMs);
  samples++;
}
agent.destroy();
process.disconnect();
