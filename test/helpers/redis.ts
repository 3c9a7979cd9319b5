import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { waitFor } from './wait.js';

/** A private redis-server for a test (never the shared one on 6379): free port, no persistence. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  // await the server answering (bounded), not a fixed delay
  const answers = async () => {
    try {
      await probe.connect();
      await probe.ping();
      return true;
    } finally {
      probe.disconnect();
    }
  };
  try {
    await waitFor(answers, { what: 'redis-server to answer', timeoutMs: 15_000, everyMs: 50 });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return child;
}

export function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export interface OwnRedis {
  port: number;
  url: string;
  /** stops it (a test of a lost Redis); `start` brings it back on the same port */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A redis-server of the test's own on a free port, stopped at teardown. */
export async function ownRedis(t: { teardown(fn: () => unknown): void }): Promise<OwnRedis> {
  const port = await freePort();
  let child = await startRedis(port);
  t.teardown(() => killProcess(child));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: () => killProcess(child),
    async start() {
      child = await startRedis(port);
    },
  };
}
