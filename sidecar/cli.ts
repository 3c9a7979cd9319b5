#!/usr/bin/env node
import type { Command } from '../core/cli.js';
import { initCommand } from './commands/init.js';
import { startCommand } from './commands/start.js';
import { openapiCommand } from './commands/openapi.js';
import { verifyCommand } from './commands/verify.js';
import { a2aVerifyVerdictCommand } from '../plugins/a2a/index.js';
import { auditVerifyCommand } from '../plugins/audit/index.js';
import { mcpApproveCommand, mcpScanCommand } from '../plugins/mcp/index.js';
import { keysNewCommand } from './commands/keys.js';
import { orgsListCommand, orgsSetPlanCommand, orgsSetRoleCommand, usersHashPasswordCommand } from './commands/orgs.js';
import { storeStatsCommand } from './commands/store-stats.js';
import { migrateCommand } from './commands/migrate.js';

const commands: Command[] = [startCommand, initCommand, verifyCommand, openapiCommand, auditVerifyCommand, a2aVerifyVerdictCommand, storeStatsCommand, migrateCommand, mcpScanCommand, mcpApproveCommand];
// operating it: provisioning and plans (docs/ops.md)
commands.push(keysNewCommand, orgsSetPlanCommand, orgsSetRoleCommand, orgsListCommand, usersHashPasswordCommand);

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `proofgate — verification gateway sidecar

usage: proofgate <command> [options]    (proofgate <command> --help for details)

${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  // two-word commands (`audit verify`) are registered with their full name
  const cmd = commands.find((c) => c.name === name) ?? commands.find((c) => c.name === `${name} ${rest[0]}`);
  if (!cmd) {
    console.error(`proofgate: unknown command ${name}\n\n${usage()}`);
    return 2;
  }
  const args = cmd.name.includes(' ') ? rest.slice(1) : rest;
  try {
    return await cmd.run(args);
  } catch (err) {
    console.error(`proofgate ${cmd.name}: ${(err as Error).message}`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
