/**
 * git options and arguments that make git run a program named in its own argv. `git fetch` is a fixed
 * program with fixed arguments (admitted, as `subprocess.run([...])` is), but `git -c
 * core.sshCommand='sh -c id' fetch`, `git clone --upload-pack='touch x' repo` or a remote URL
 * `ext::sh -c id` run the named command: the same commands `GIT_SSH_COMMAND` and
 * `GIT_CONFIG_PARAMETERS` name (env-hooks.ts), given by argv instead of the environment.
 *
 * Items: a constant string, `null` for a computed item, or a known prefix followed by `COMPUTED_TAIL`
 * (`'user.name=' + name`), so `-c user.name=<computed>` is a known, harmless key.
 */

/** Marks the end of the known prefix of an item whose rest is computed (execve strings hold no NUL). */
export const COMPUTED_TAIL = '\u0000';

/** git configuration keys that name no program (a key outside this list may be core.sshCommand, core.fsmonitor, alias.*, a filter, …). */
export const GIT_SAFE_KEYS = new Set([
  'user.name', 'user.email', 'safe.directory', 'init.defaultbranch', 'core.autocrlf', 'core.quotepath', 'core.longpaths', 'color.ui', 'advice.detachedhead',
  'commit.gpgsign', 'tag.gpgsign', 'pull.rebase', 'protocol.version', 'http.sslverify', 'http.postbuffer', 'http.extraheader', 'gc.auto', 'core.filemode',
  'core.ignorecase', 'fetch.prune', 'maintenance.auto', 'push.default', 'merge.ff', 'diff.noprefix', 'log.showsignature',
]);

/** git's own options before the subcommand that take the next item as their value. */
const GLOBAL_VALUED = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix']);

/** Options of a subcommand whose value is a program or shell command git runs. */
const PROGRAM_OPTIONS = new Map<string, readonly string[]>([
  ['clone', ['--upload-pack', '-u']],
  ['fetch', ['--upload-pack']],
  ['pull', ['--upload-pack']],
  ['ls-remote', ['--upload-pack', '-u']],
  ['fetch-pack', ['--upload-pack', '--exec']],
  ['push', ['--receive-pack', '--exec']],
  ['send-pack', ['--receive-pack', '--exec']],
  ['archive', ['--exec']],
  ['rebase', ['--exec', '-x']],
  ['difftool', ['--extcmd', '-x']],
  ['filter-branch', ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter']],
  ['send-email', ['--to-cmd', '--cc-cmd', '--header-cmd', '--sendmail-cmd']],
  ['daemon', ['--access-hook']],
]);
/** Options that name a program only with an attached value (`-O<pager>`; bare `-O` uses the user's pager). */
const ATTACHED_ONLY = new Map<string, readonly string[]>([['grep', ['--open-files-in-pager', '-O']]]);
/** `git config` forms that read or remove, never set. */
const CONFIG_READS = new Set(['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--unset', '--unset-all', '-l', '--list', '--remove-section', '--rename-section', '-e', '--edit', 'get', 'list', 'unset', 'remove-section', 'rename-section', 'edit']);
const CONFIG_VALUED = new Set(['-f', '--file', '--blob', '--type', '--default', '--comment', '--value']);

const known = (x: string | null): x is string => x !== null && !x.includes(COMPUTED_TAIL);

/** Why setting `key` (to `value`) may make git run a program, or null. */
function keyFinding(key: string | null, value: string | null): string | null {
  if (key === null || key.includes(COMPUTED_TAIL)) return 'sets a configuration key chosen at run time, which may name a program git runs';
  const k = key.trim().toLowerCase();
  if (GIT_SAFE_KEYS.has(k)) return null;
  // an empty credential.helper switches helpers off
  if (k === 'credential.helper' && value === '') return null;
  return `sets ${JSON.stringify(key)}, a configuration key that may name a program git runs (core.sshCommand, core.pager, core.fsmonitor, alias.*, a filter, …)`;
}

/** A `key=value` setting (a `-c` item, a `--config-env=` value); `key` alone sets it to true. */
function settingFinding(kv: string | null): string | null {
  if (kv === null) return keyFinding(null, null);
  const eq = kv.indexOf('=');
  const tail = kv.indexOf(COMPUTED_TAIL);
  // the key ends at the first '=': a computed part before it leaves the key unknown
  if (tail >= 0 && (eq < 0 || tail < eq)) return keyFinding(null, null);
  if (eq < 0) return keyFinding(kv, null);
  return keyFinding(kv.slice(0, eq), tail >= 0 ? null : kv.slice(eq + 1));
}

interface Parsed {
  /** the subcommand; null when computed, undefined when there is none */
  sub: string | null | undefined;
  args: Array<string | null>;
  /** a finding among git's own options */
  global: string | null;
}

function parseGlobal(items: ReadonlyArray<string | null>): Parsed {
  let global: string | null = null;
  let i = 0;
  for (; i < items.length; i++) {
    const x = items[i];
    if (x === null || x.includes(COMPUTED_TAIL) || !x.startsWith('-')) break;
    if (x === '-c') global ??= settingFinding(items[++i] ?? null);
    else if (x.startsWith('-c')) global ??= settingFinding(x.slice(2));
    else if (x.startsWith('--config-env=')) global ??= settingFinding(x.slice('--config-env='.length));
    else if (GLOBAL_VALUED.has(x)) i++;
  }
  const sub = i < items.length ? items[i] : undefined;
  return { sub: sub === undefined ? undefined : known(sub) ? sub : null, args: items.slice(i + 1), global };
}

/** Real options that are also prefixes of a program option (`send-email --to` is not `--to-cmd`). */
const EXACT = new Set(['--to', '--cc']);

/**
 * `-x cmd`, `-xcmd`, `--exec cmd`, `--exec=cmd` for an option of `options`; git's option parser
 * also takes an unambiguous prefix of a long option (`--upload=cmd` is `--upload-pack=cmd`), so a
 * prefix counts (an ambiguous one is refused by git: reading it as the option costs nothing).
 */
function optionAt(x: string, options: readonly string[], attachedOnly: boolean): string | null {
  const eq = x.indexOf('=');
  const name = x.startsWith('--') ? (eq < 0 ? x : x.slice(0, eq)) : null;
  for (const o of options) {
    if (!attachedOnly && x === o) return o;
    if (!o.startsWith('--')) {
      if (x.startsWith(o) && x.length > o.length) return o;
      continue;
    }
    if (name !== null && name.length > 3 && o.startsWith(name) && !EXACT.has(name) && (eq >= 0 || !attachedOnly)) return o;
  }
  return null;
}

export function isGit(program: string): boolean {
  return program.trim().split(/[\\/]/).pop()?.toLowerCase().replace(/\.exe$/, '') === 'git';
}

/** Why `git <items…>` runs a program the argv names, or null. */
export function gitOptionFinding(items: ReadonlyArray<string | null>): string | null {
  const { sub, args, global } = parseGlobal(items);
  if (global !== null) return global;
  const ext = items.find((x): x is string => x !== null && /^ext::/i.test(x));
  if (ext !== undefined) return `is given the remote ${JSON.stringify(ext.replace(COMPUTED_TAIL, '…'))}: the ext:: transport runs it as a command`;
  if (!sub) return null;
  const options = PROGRAM_OPTIONS.get(sub) ?? [];
  const attached = ATTACHED_ONLY.get(sub) ?? [];
  const end = args.indexOf('--');
  const opts = end < 0 ? args : args.slice(0, end);
  for (let i = 0; i < opts.length; i++) {
    const x = opts[i];
    if (x === null) continue;
    const o = optionAt(x, options, false) ?? optionAt(x, attached, true);
    if (o !== null) return `${sub} ${o} names a program git runs`;
    // clone -c/--config sets the new repository's configuration before its first fetch
    const config = sub === 'clone' ? optionAt(x, ['--config'], false) : null;
    if (sub === 'clone' && (x === '-c' || config !== null)) {
      const why = settingFinding(x.includes('=') && x.startsWith('--') ? x.slice(x.indexOf('=') + 1) : (opts[i + 1] ?? null));
      if (why !== null) return `clone ${why}`;
    }
  }
  if (sub === 'config') return configFinding(opts);
  return null;
}

/** `git config [--global] <key> <value>` / `git config set <key> <value>`: a setting stored for every later git. */
function configFinding(args: ReadonlyArray<string | null>): string | null {
  const positional: Array<string | null> = [];
  for (let i = 0; i < args.length; i++) {
    const x = args[i];
    if (x !== null && CONFIG_READS.has(x) && (x.startsWith('-') || positional.length === 0)) return null;
    if (x !== null && x === 'set' && positional.length === 0) continue;
    if (x !== null && CONFIG_VALUED.has(x)) i++;
    else if (x === null || !x.startsWith('-')) positional.push(x);
  }
  if (positional.length < 2) return null;
  const why = keyFinding(positional[0], positional[1]);
  return why === null ? null : `config ${why}, stored for every later git`;
}

/**
 * git as a launcher: `git bisect run <program> <args…>` runs the program, `git submodule foreach
 * <command>` runs the command through a shell. Null when git runs nothing named in its argv.
 */
export function gitLaunch(items: ReadonlyArray<string | null>): { shell: boolean; items: Array<string | null> } | null {
  const { sub, args } = parseGlobal(items);
  if (sub === 'bisect' && args[0] === 'run' && args.length > 1) return { shell: false, items: args.slice(1) };
  if (sub !== 'submodule') return null;
  const at = args.indexOf('foreach');
  if (at < 0 || args.slice(0, at).some((x) => x === null || !x.startsWith('-'))) return null;
  const rest = args.slice(at + 1);
  while (rest.length && (rest[0] === '--recursive' || rest[0] === '--')) rest.shift();
  return rest.length ? { shell: true, items: rest } : null;
}
