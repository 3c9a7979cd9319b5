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
