/**
 * A CLI command: `proofgate <name> …`. Plugins contribute commands (e.g. `audit verify`); the
 * sidecar's CLI lists them. Two-word names are supported. Each prints its own --help.
 */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** resolves to the process exit code */
  run(argv: string[]): Promise<number>;
}

export function wantsHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/**
 * A file-system failure as a person reads it: what could not be read and what to do, never the
 * raw `ENOENT: no such file or directory, lstat '…'` of node. `what` names the role ("JWKS file").
 */
export function fsProblem(err: unknown, path: string, what: string): string {
  switch ((err as { code?: unknown })?.code) {
    case 'ENOENT':
      return `${what} ${path} does not exist (check the path; relative paths start at ${process.cwd()})`;
    case 'EACCES':
    case 'EPERM':
      return `${what} ${path} cannot be read: permission denied`;
    case 'EISDIR':
      return `${what} ${path} is a directory, not a file`;
    case 'ENOTDIR':
      return `${what} ${path}: a part of the path is not a directory`;
    case 'ELOOP':
      return `${what} ${path}: too many symbolic links`;
    default:
      return `${what} ${path} cannot be read: ${(err as Error)?.message ?? String(err)}`;
  }
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** The candidate nearest `word` when it is a plausible typo of it (a third of its length, at least 2 edits), else undefined. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best !== undefined && bestD > 0 && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** The options a command's usage text names (`--format`, `--jwks` …): what an unknown flag is compared with. */
export function usageFlags(usage: string): string[] {
  return [...new Set(usage.match(/--[a-z][a-z0-9-]*/g) ?? [])];
}

/**
 * node:util parseArgs's refusal as a usage line: the flag it names, a did-you-mean from the
 * command's own usage, and where to read more — instead of node's advice about positionals.
 */
export function parseArgsProblem(err: unknown, command: string, usage: string): string {
  const e = err as { code?: string; message?: string };
  const flag = /'(-{1,2}[^' ]+)/.exec(e.message ?? '')?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const near = didYouMean(flag, usageFlags(usage));
    return `Unknown option '${flag}'${near ? ` (did you mean ${near}?)` : ''}; see proofgate ${command} --help`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && /argument missing/.test(e.message ?? '')) return `option ${flag} needs a value; see proofgate ${command} --help`;
  return `${e.message ?? String(err)}; see proofgate ${command} --help`;
}
