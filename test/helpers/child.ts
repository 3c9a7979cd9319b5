import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';
/**
 * Child processes started as a user starts them, without the test runner's preload.
 *
 * tap's processinfo patches child_process so that every spawn from a test file carries
 * NODE_OPTIONS=--import=<its coverage loader>, whatever `env` the test passes. With coverage off
 * the loader records nothing anyone reads, yet every module the child loads goes through a
 * loader-hooks thread: `proofgate --help` takes 0.47 s instead of 0.24 s, and the suite starts
 * some hundreds of CLI, sidecar and fixture processes (a fifth of its CPU time, measured).
 * `env -u NODE_OPTIONS` drops the variable after the patch has run, as the stats sandbox drops its
 * parent's whole environment with `env -i`. A test that sets NODE_OPTIONS on purpose
 * (core/plugin-lazy's module recorder) passes it here, and the child gets exactly that.
 */
const ENV = '/usr/bin/env';

/**
 * `[file, args]` for spawn/execFile: `cmd args` with NODE_OPTIONS unset, or set to `nodeOptions`
 * (as is on Windows, which has no env(1))
 */
export function unpreloaded(cmd: string, args: readonly string[], nodeOptions?: string): [string, string[]] {
  if (process.platform === 'win32') return [cmd, [...args]];
  return [ENV, [...(nodeOptions === undefined ? ['-u', 'NODE_OPTIONS'] : [`NODE_OPTIONS=${nodeOptions}`]), cmd, ...args]];
}

/** `[file, args]` for `node <args>` with this process's node binary */
export const nodeCommand = (args: readonly string[], nodeOptions?: string): [string, string[]] => unpreloaded(process.execPath, args, nodeOptions);

/**
 * `proofgate start` (or any command that prints "serving on URL") as a child process: resolves with
 * the URL it serves on, rejects with its stderr when it exits first; killed at the end of the test
 * if still running, so nothing writes into a directory being removed. `stop()` sends SIGTERM and
 * gives the exit code.
 */
export async function serveChild(
  t: { teardown(fn: () => unknown): void },
  file: string,
  args: readonly string[],
  opts: SpawnOptionsWithoutStdio,
): Promise<{ url: string; child: ChildProcessWithoutNullStreams; stop(): Promise<number | null> }> {
  const child = spawn(file, args, opts);
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
  return { url, child, stop };
}
