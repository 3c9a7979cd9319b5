import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EvalInput, EvalOutput } from './evaluator.js';

/**
 * "The sandbox" of decisions §8: each evaluation runs in a fresh Node child started with the
 * permission model — it may read only the evaluator file; no fs writes, no child processes, no
 * workers, no addons, no eval — with a V8 heap cap, an empty environment, and a wall-clock kill.
 * Children are not reused, so nothing one upload leaves behind can reach the next one.
 */

export const EVALUATOR = new URL('./evaluator.js', import.meta.url);
export const SANDBOX_MARKER = '--proofgate-stats-sandbox';

export interface SandboxOptions {
  /** the node binary; default the running one */
  nodePath?: string;
  /** `env` binary that starts node with an empty environment; default /usr/bin/env */
  envPath?: string;
  timeoutMs: number;
  heapMb: number;
  /** concurrent children; more requests wait in a bounded queue */
  concurrency: number;
  maxQueue: number;
  /** stdout cap: a result never needs more */
  maxOutputBytes?: number;
}

export type SandboxOutcome =
  | { kind: 'result'; output: EvalOutput }
  | { kind: 'failure'; reason: 'timeout' | 'cancelled' | 'crashed' | 'bad_output' }
  | { kind: 'unavailable'; reason: string };

/** the permission model's flag: `--permission` since Node 22.13 / 23.5, experimental before */
export function permissionFlag(version = process.versions.node): string {
  const [major, minor] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13) ? '--permission' : '--experimental-permission';
}

export function sandboxArgs(heapMb: number): string[] {
  const file = fileURLToPath(EVALUATOR);
  return [
    permissionFlag(),
    `--allow-fs-read=${file}`,
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${heapMb}`,
    '--no-warnings',
    file,
    SANDBOX_MARKER,
  ];
}

export class Sandbox {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly opts: SandboxOptions) {}

  /**
   * A slot, or null when the queue is full, or 'cancelled' when the request was aborted while it
   * waited: it then leaves the queue at once, and starts no child once a slot frees (a client that
   * hung up used to keep its place and cost a full evaluation).
   */
  private async slot(signal?: AbortSignal): Promise<(() => void) | null | 'cancelled'> {
    if (this.running >= this.opts.concurrency) {
      if (this.waiting.length >= this.opts.maxQueue) return null;
      const got = await new Promise<boolean>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(true);
        };
        const onAbort = () => {
          const at = this.waiting.indexOf(wake);
          if (at >= 0) this.waiting.splice(at, 1);
          resolve(false);
        };
        this.waiting.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      if (!got) return 'cancelled';
    }
    this.running++;
    return () => {
      this.running--;
      this.waiting.shift()?.();
    };
  }

  /** `input` may come already serialised (a worker prepared it), so the event loop never stringifies a big table */
  async run(input: EvalInput | { probe: true } | string, signal?: AbortSignal): Promise<SandboxOutcome> {
    if (signal?.aborted) return { kind: 'failure', reason: 'cancelled' };
    const release = await this.slot(signal);
    if (release === 'cancelled') return { kind: 'failure', reason: 'cancelled' };
    if (!release) return { kind: 'unavailable', reason: 'sandbox queue is full' };
    try {
      return await this.spawnOnce(input, signal);
    } finally {
      release();
    }
  }

  private spawnOnce(input: unknown, signal?: AbortSignal): Promise<SandboxOutcome> {
    const cap = this.opts.maxOutputBytes ?? 1024 * 1024;
    return new Promise((resolve) => {
      let settled = false;
      const done = (o: SandboxOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(o);
      };
      // `env -i`: node starts with an empty environment — no secrets, and no NODE_OPTIONS even when
      // something patched child_process to inject one (APM agents, test runners): injected
      // --import loaders would be outside the read allowance and would kill the child anyway
      const child = spawn(this.opts.envPath ?? '/usr/bin/env', ['-i', this.opts.nodePath ?? process.execPath, ...sandboxArgs(this.opts.heapMb)], {
        env: {},
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let spawned = false;
      const out: Buffer[] = [];
      let outBytes = 0;
      let errText = '';
      let killedFor: 'timeout' | 'cancelled' | 'bad_output' | null = null;
      const kill = (why: 'timeout' | 'cancelled' | 'bad_output') => {
        killedFor ??= why;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => kill('timeout'), this.opts.timeoutMs);
      const onAbort = () => kill('cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
      child.on('spawn', () => {
        spawned = true;
      });
      child.on('error', (err: NodeJS.ErrnoException) => {
        if (!spawned) done({ kind: 'unavailable', reason: `cannot start the sandbox (${err.code ?? 'error'})` });
      });
      child.stdout.on('data', (d: Buffer) => {
        outBytes += d.length;
        if (outBytes > cap) kill('bad_output');
        else out.push(d);
      });
      child.stderr.on('data', (d: Buffer) => {
        if (errText.length < 4096) errText += d.toString('utf8');
      });
      child.stdin.on('error', () => {
        /* a child that dies early closes the pipe; its exit code tells the story */
      });
      child.on('close', (code, sig) => {
        if (!spawned) return;
        if (killedFor) return done({ kind: 'failure', reason: killedFor });
        // env exits 126/127 when node cannot be run; node refuses unknown flags with exit code 9
        if (code === 9 || code === 126 || code === 127 || /bad option|permission model|is not allowed in NODE_OPTIONS/i.test(errText)) {
          return done({ kind: 'unavailable', reason: 'the node runtime refused the sandbox flags' });
        }
        if (code !== 0 || sig) return done({ kind: 'failure', reason: 'crashed' });
        try {
          done({ kind: 'result', output: JSON.parse(Buffer.concat(out).toString('utf8')) as EvalOutput });
        } catch {
          done({ kind: 'failure', reason: 'bad_output' });
        }
      });
      child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
    });
  }
}
