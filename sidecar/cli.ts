#!/usr/bin/env node
import { didYouMean, parseArgsProblem, type Command } from '../core/cli.js';

/**
 * Where each command lives, in the order `proofgate --help` lists them. A module is imported only
 * when one of its commands runs (or for the list): `start` then loads no other command's code, and
 * no plugin the configuration disables (the plugins contribute `audit verify`, `mcp …`, `a2a …`).
 */
const SOURCES: Array<{ names: string[]; load: () => Promise<Command[]> }> = [
  { names: ['start'], load: async () => [(await import('./commands/start.js')).startCommand] },
  { names: ['init'], load: async () => [(await import('./commands/init.js')).initCommand] },
  { names: ['verify'], load: async () => [(await import('./commands/verify.js')).verifyCommand] },
  { names: ['openapi'], load: async () => [(await import('./commands/openapi.js')).openapiCommand] },
  { names: ['audit verify'], load: async () => [(await import('../plugins/audit/index.js')).createAuditVerifyCommand((await import('./config.js')).loadServiceConfig)] },
  { names: ['attestation verify'], load: async () => [(await import('../plugins/attestation/cli.js')).attestationVerifyCommand] },
  { names: ['a2a verify-verdict'], load: async () => [(await import('../plugins/a2a/index.js')).a2aVerifyVerdictCommand] },
  { names: ['store stats'], load: async () => [(await import('./commands/store-stats.js')).storeStatsCommand] },
  { names: ['migrate'], load: async () => [(await import('./commands/migrate.js')).migrateCommand] },
  {
    names: ['mcp scan', 'mcp approve'],
    load: async () => {
      const m = await import('../plugins/mcp/index.js');
      return [m.mcpScanCommand, m.mcpApproveCommand];
    },
  },
  // operating it: provisioning and plans (docs/ops.md)
  { names: ['keys new'], load: async () => [(await import('./commands/keys.js')).keysNewCommand] },
  {
    names: ['orgs set-plan', 'orgs set-role', 'orgs list', 'users hash-password'],
    load: async () => {
      const m = await import('./commands/orgs.js');
      return [m.orgsSetPlanCommand, m.orgsSetRoleCommand, m.orgsListCommand, m.usersHashPasswordCommand];
    },
  },
];

async function usage(): Promise<string> {
  const commands = (await Promise.all(SOURCES.map((s) => s.load()))).flat();
  const width = Math.max(...commands.map((c) => c.name.length));
  return `proofgate — verification gateway sidecar

usage: proofgate <command> [options]    (proofgate <command> --help for details)

${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}`;
}

/** the command `argv` names (two-word commands, `audit verify`, are listed with their full name) */
async function find(name: string, next: string | undefined): Promise<Command | undefined> {
  for (const wanted of [name, `${name} ${next}`]) {
    const source = SOURCES.find((s) => s.names.includes(wanted));
    if (source) return (await source.load()).find((c) => c.name === wanted);
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(await usage());
    return name ? 0 : 2;
  }
  const cmd = await find(name, rest[0]);
  if (!cmd) {
    const all = SOURCES.flatMap((s) => s.names);
    // `proofgate audit` alone, or with a word no command has: the commands that start with it
    const family = all.filter((n) => n.startsWith(`${name} `));
    const near = didYouMean(rest[0] ? `${name} ${rest[0]}` : name, all) ?? didYouMean(name, all) ?? (family.length ? family.join(' or ') : undefined);
    console.error(`proofgate: unknown command ${name}${near ? ` (did you mean ${near}?)` : ''}\n\n${await usage()}`);
    return 2;
  }
  const args = cmd.name.includes(' ') ? rest.slice(1) : rest;
  try {
    return await cmd.run(args);
  } catch (err) {
    // node:util parseArgs refusing the arguments is a usage error (2), as every command's own checks
    // answer it; anything else is a failure to run (1)
    const usageError = String((err as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS_');
    console.error(`proofgate ${cmd.name}: ${usageError ? `${parseArgsProblem(err, cmd.name, cmd.usage)}\n\n${cmd.usage}` : (err as Error).message}`);
    return usageError ? 2 : 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
