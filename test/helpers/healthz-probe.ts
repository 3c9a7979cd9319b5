/**
 * A separate client process for event-loop tests: polls GET <url>/healthz back to back, one at a
 * time. Between the parent's 'start' and 'stop' it records the slowest answer and reports
 * `{max, samples}`; 'exit' ends it. Being another process, neither its clock nor its requests wait
 * on the server's event loop. Run with child_process.fork(<this file>, [baseUrl]).
 */
import { Agent, request } from 'node:http';

const url = new URL('/healthz', process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let measuring = false;
let exiting = false;
let max = 0;
let samples = 0;
let wake: (() => void) | null = null;

function once(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`healthz answered ${res.statusCode}`))));
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
    samples = 0;
    measuring = true;
    wake?.();
    process.send!('started');
  } else if (m === 'stop') {
    measuring = false;
    process.send!({ max, samples });
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
  const ms = await once();
  if (measuring) {
    max = Math.max(max, ms);
    samples++;
  }
}
agent.destroy();
process.disconnect();
