import { parseArgs, type ParseArgsConfig } from 'node:util';
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

/**
 * A refusal of the command's arguments or inputs (exit 2): printed as `proofgate <command>: message`,
 * with the usage when `withUsage`. Anything else a command throws is a failure to run (exit 1).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly withUsage = false,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

export interface CommandDef<O extends Options> {
  name: string;
  summary: string;
  usage: string;
  options: O;
  /** how many positional arguments the command takes (default none) */
  positionals?: { min?: number; max?: number; what?: string };
  /** rewrites argv before parsing (a value node:util would read as options) */
  preparse?: (argv: string[]) => string[];
  run(args: { values: Parsed<O>['values']; positionals: string[] }): Promise<number>;
}

/**
 * A CLI command from its options and its work: `--help`, node:util parseArgs (strict, a did-you-mean
 * on an unknown flag), the positional count, and UsageError as exit 2 are the same for every command.
 */
export function defineCommand<O extends Options>(def: CommandDef<O>): Command {
  const { min = 0, max = 0, what = 'argument' } = def.positionals ?? {};
  const fail = (message: string, withUsage: boolean) => {
    console.error(`proofgate ${def.name}: ${message}${withUsage ? `\n\n${def.usage}` : ''}`);
    return 2;
  };
  return {
    name: def.name,
    summary: def.summary,
    usage: def.usage,
    async run(argv) {
      if (wantsHelp(argv)) {
        console.log(def.usage);
        return 0;
      }
      let parsed: Parsed<O>;
      try {
        parsed = parseArgs({ args: def.preparse ? def.preparse(argv) : argv, options: def.options, allowPositionals: true, strict: true }) as Parsed<O>;
      } catch (err) {
        return fail(parseArgsProblem(err, def.name, def.usage), true);
      }
      const n = parsed.positionals.length;
      if (n < min || n > max) {
        const want = min === max ? `exactly ${min === 1 ? 'one' : min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
        return fail(max === 0 ? `takes no ${what}s (got ${JSON.stringify(parsed.positionals[0])})` : `give ${want} ${what}${max === 1 ? '' : 's'} (got ${n})`, true);
      }
      try {
        return await def.run({ values: parsed.values, positionals: parsed.positionals });
      } catch (err) {
        if (err instanceof UsageError) return fail(err.message, err.withUsage);
        throw err;
      }
    },
  };
}
