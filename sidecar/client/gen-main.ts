import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtinPlugins } from '../builtin.js';
import { localKernel } from '../local.js';
import { generateClient } from './generate.js';

/** `npm run gen:client`: regenerates packages/client/src/{types,client}.gen.ts (the @proofgate/client package) from the built-in route table. */
// the client is generated from the route table: no engine needs to be warm
const local = await localKernel(builtinPlugins, {}, { warmEngines: false });
try {
  const out = await generateClient(local.kernel.openapi());
  const dir = fileURLToPath(new URL('../../../packages/client/src/', import.meta.url));
  writeFileSync(dir + 'types.gen.ts', out.types);
  // the group files are all generated: none survives from an earlier layout
  rmSync(dir + 'types', { recursive: true, force: true });
  mkdirSync(dir + 'types');
  for (const [group, text] of Object.entries(out.typeFiles)) writeFileSync(`${dir}types/${group}.gen.ts`, text);
  writeFileSync(dir + 'client.gen.ts', out.client);
  console.log(`wrote ${dir}types.gen.ts, ${Object.keys(out.typeFiles).length} files in types/ and client.gen.ts`);
} finally {
  await local.close();
}
