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
