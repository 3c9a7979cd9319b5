import { classifyArgv, isInterpreter, isReconProgram } from './shell.js';
import { launchedProgram } from './launchers.js';
import { GIT_SAFE_KEYS } from './git-options.js';

/**
 * Environment variables that make a program started later — one the rules admit as fixed
 * (`subprocess.run(['ls'])`, `execFile('npm', ['test'])`, `git fetch`) — load or run code the
 * variable names. A program that sets one changes what those fixed programs do, so the write is the
 * finding (both languages: `os.environ[…]`, `os.putenv`, `.update`/`setdefault`, a dict or object
 * literal such as a spawn `env`, `process.env.X = …`).
 *
 * The set is kept to variables whose meaning guarantees that the code they name runs: the dynamic
 * loader's preloads, interpreter start-up options and files, shell start-up files, and commands git
 * and ssh run during ordinary operations. Search paths (`PATH`, `PYTHONPATH`, `NODE_PATH`,
 * `LD_LIBRARY_PATH`, `PERL5LIB`, `GIT_EXEC_PATH`, `GIT_TEMPLATE_DIR`, …) are not in it: they run
 * nothing unless the directory holds a file of a name looked up there, which the tree cannot show,
 * just as a fixed program path is admitted without knowing the file. Editors, pagers and browsers
 * picked by the user (`EDITOR`, `VISUAL`, `PAGER`, `BROWSER`) are everyday configuration and are not
 * in it either; `GIT_EDITOR`/`GIT_PAGER` are, since only a program driving git sets them.
 */

/**
 * NODE_OPTIONS options that load nothing (tuning, warnings, TLS and resolution switches). Every node
 * process and Worker reads NODE_OPTIONS; anything else in it (`--require`, `--import data:…`,
 * `--loader`, `--inspect`, `--openssl-config`) may load code or open a debugger.
 */
const NODE_HARMLESS = new Set([
  'max-old-space-size', 'max-semi-space-size', 'max-http-header-size', 'stack-size', 'stack-trace-limit', 'v8-pool-size', 'expose-gc', 'jitless',
  'no-warnings', 'no-deprecation', 'throw-deprecation', 'pending-deprecation', 'trace-warnings', 'trace-deprecation', 'trace-uncaught', 'trace-exit', 'trace-sigint', 'trace-sync-io',
  'unhandled-rejections', 'enable-source-maps', 'abort-on-uncaught-exception', 'dns-result-order', 'use-openssl-ca', 'use-bundled-ca', 'openssl-legacy-provider',
  'tls-min-v1.0', 'tls-min-v1.1', 'tls-min-v1.2', 'tls-min-v1.3', 'tls-max-v1.2', 'tls-max-v1.3', 'preserve-symlinks', 'preserve-symlinks-main', 'no-addons',
  'disable-proto', 'frozen-intrinsics', 'zero-fill-buffers', 'no-experimental-fetch', 'no-experimental-global-webcrypto', 'experimental-vm-modules', 'conditions', 'title',
]);

/** Why a NODE_OPTIONS value is a finding, or null when every option in it is harmless. */
export function nodeOptionsFinding(value: string | null): string | null {
  if (value === null) return 'NODE_OPTIONS is set to a computed value: it may load code into every node process started later';
  for (const token of value.split(/\s+/).filter(Boolean)) {
    const m = /^--([a-z0-9.-]+)(=[^'"\\]*)?$/.exec(token);
    const name = m ? m[1].replace(/_/g, '-') : null;
    if (name === null || !NODE_HARMLESS.has(name)) return `NODE_OPTIONS is set to ${JSON.stringify(value)}: ${JSON.stringify(token)} can load code (--require, --import, --loader, --inspect, …) into every node process or worker started later`;
  }
  return null;
}

/** Option variables of other interpreters, by the options in them that load nothing (-M, -r, -d, -I load modules). */
const OPTION_VARS = new Map<string, RegExp>([
  ['PERL5OPT', /^-(?:[wWXtT]+|C\w*)$/],
  ['RUBYOPT', /^-(?:w|v|W[0-2]?|E\S+|-(?:enable|disable)[-=][\w,-]+|-y?jit)$/],
]);

/** The named library or file is loaded or run by every (interactive, for PYTHONSTARTUP and PROMPT_COMMAND) process of its kind. */
const LOADS_NAMED_CODE = new Map<string, string>([
  ['LD_PRELOAD', 'the dynamic loader loads the library into every program started later'],
  ['LD_AUDIT', 'the dynamic loader loads the audit library into every program started later'],
  ['DYLD_INSERT_LIBRARIES', 'the macOS loader loads the library into every program started later'],
  ['PYTHONSTARTUP', 'interactive Python runs the file at start'],
  ['BASH_ENV', 'every non-interactive bash (each bash script started later) runs the file first'],
  ['PROMPT_COMMAND', 'interactive bash runs it as a command before each prompt'],
]);

/** Commands git and ssh run during fetch, push, clone, diff, rebase or a credential prompt. */
const GIT_COMMANDS = new Set(['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_PROXY_COMMAND', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EXTERNAL_DIFF', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_PAGER']);


export interface EnvHook {
  rule: 'process.node_options' | 'process.env_hook';
  message: string;
}

/** True for the variables this file judges (a cheap test before folding a value). */
export function isEnvHookName(name: string): boolean {
  return name === 'NODE_OPTIONS' || name === 'ENV' || OPTION_VARS.has(name) || LOADS_NAMED_CODE.has(name) || GIT_COMMANDS.has(name) || name === 'GIT_CONFIG_PARAMETERS' || /^GIT_CONFIG_KEY_\d+$/.test(name);
}

/** A command git or ssh will run: a fixed program with fixed arguments is what subprocess.run([...]) admits; a shell, an interpreter or shell syntax is not. */
function commandFinding(value: string): string | null {
  if (/[|&;<>`$(){}\n]/.test(value)) return 'git runs it through sh, and it holds shell syntax';
  const [program, ...rest] = value.trim().split(/\s+/);
  const run = launchedProgram(program, rest);
  const shown = run.program ?? program;
  if (run.program === null || isInterpreter(shown) || isReconProgram(shown) || classifyArgv(shown, run.items) !== null || classifyArgv(program, rest) !== null) {
    return `git runs it, and ${JSON.stringify(shown)}${run.via.length ? ` (through ${run.via.join(', ')})` : ''} is a shell, an interpreter or a reconnaissance program`;
  }
  return null;
}

/** The keys a GIT_CONFIG_PARAMETERS value sets (`'k=v'` or `'k'='v'` entries). */
function gitParameterKeys(value: string): string[] | null {
  const keys: string[] = [];
  const re = /'([^']*)'(?:='[^']*')?/g;
  for (let m = re.exec(value); m; m = re.exec(value)) keys.push(m[0].includes("'='") ? m[1] : m[1].split('=')[0]);
  return keys.length ? keys : null;
}

/** The finding for setting `name` to `value` (null: computed), or null when the write runs nothing. */
export function envHookFinding(name: string, value: string | null): EnvHook | null {
  if (!isEnvHookName(name)) return null;
  if (name === 'NODE_OPTIONS') {
    const why = nodeOptionsFinding(value);
    return why === null ? null : { rule: 'process.node_options', message: why };
  }
  const shown = value === null ? 'a computed value' : JSON.stringify(value);
  const hook = (why: string): EnvHook => ({ rule: 'process.env_hook', message: `${name} is set to ${shown}: ${why}` });
  // an empty value switches the hook off
  if (value !== null && value.trim() === '') return null;
  const loads = LOADS_NAMED_CODE.get(name);
  if (loads !== undefined) return hook(loads);
  // ENV is also a common application setting ('production'); interactive sh sources it only as a file path
  if (name === 'ENV') return value !== null && /[/\\~$]|\.sh$|rc$/.test(value) ? hook('interactive sh runs the file at start') : null;
  const harmless = OPTION_VARS.get(name);
  if (harmless !== undefined) {
    const bad = value === null ? undefined : value.split(/\s+/).filter(Boolean).find((t) => !harmless.test(t));
    return value === null || bad !== undefined ? hook(`${name === 'PERL5OPT' ? 'perl' : 'ruby'} applies its options at every start, and ${bad !== undefined ? JSON.stringify(bad) : 'it'} may load a module`) : null;
  }
  if (GIT_COMMANDS.has(name)) {
    const why = value === null ? 'git or ssh runs it as a command' : commandFinding(value);
    return why === null ? null : hook(why);
  }
  // GIT_CONFIG_PARAMETERS / GIT_CONFIG_KEY_<n>: configuration injected into every git started later
  const keys = value === null ? null : name === 'GIT_CONFIG_PARAMETERS' ? gitParameterKeys(value) : [value];
  if (keys === null || keys.some((k) => !GIT_SAFE_KEYS.has(k.trim().toLowerCase()))) return hook('git configuration that may name a program git runs (core.sshCommand, core.fsmonitor, alias.*, filters, …)');
  return null;
}
