import { defineCommand, type Command } from '../../core/cli.js';

export const openapiCommand: Command = defineCommand({
  name: 'openapi',
  summary: 'print the OpenAPI 3.1 document of the built-in routes (the same as GET /openapi.json)',
  usage: `proofgate openapi > openapi.json

Builds the route table of the built-in plugins in this process (fresh secrets, a temporary data
directory, nothing listens) and prints the OpenAPI 3.1 document the server serves at /openapi.json.`,
  // it takes no arguments or options: one meant for another command must not print a document silently
  options: {},
  async run() {
    const [{ localKernel }, { builtinPlugins }] = await Promise.all([import('../local.js'), import('../builtin.js')]);
    // the document is the route table: no engine needs to be warm to print it
    const local = await localKernel(builtinPlugins, {}, { warmEngines: false });
    try {
      process.stdout.write(JSON.stringify(local.kernel.openapi(), null, 2) + '\n');
    } finally {
      await local.close();
    }
    return 0;
  },
});
