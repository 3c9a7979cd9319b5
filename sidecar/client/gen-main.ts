import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtinPlugins } from '../builtin.js';
import { localKernel } from '../local.js';
import { generateClient, TYPES_DIR } from './generate.js';

/**
 * `npm run gen:client`: regenerates the types of every schema (schemas/gen/<group>.gen.ts, shared by
 * the server and the client) and packages/client/src/{types,client}.gen.ts (the @proofgate/client
 * package) from the built-in route table.
 */
// the client is generated from the route table: no engine needs to be warm
const local = await localKernel(builtinPlugins, {}, { warmEngines: false });
try {
  const out = await generateClient(local.kernel.openapi());
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const dir = `${root}packages/client/src/`;
  writeFileSync(dir + 'types.gen.ts', out.types);
  // the group files are all generated: none survives from an earlier layout (nor the client's old types/)
  rmSync(dir + 'types', { recursive: true, force: true });
  const types = root + TYPES_DIR;
  mkdirSync(types, { recursive: true });
  for (const f of readdirSync(types)) if (f.endsWith('.gen.ts')) rmSync(types + f);
  for (const [group, text] of Object.entries(out.typeFiles)) writeFileSync(`${types}${group}.gen.ts`, text);
  writeFileSync(`${types}index.ts`, out.typesIndex);
  writeFileSync(dir + 'client.gen.ts', out.client);
  console.log(`wrote ${Object.keys(out.typeFiles).length} files in ${types}, ${dir}types.gen.ts and client.gen.ts`);
} finally {
  await local.close();
}
