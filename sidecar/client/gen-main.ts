import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtinPlugins } from '../builtin.js';
import { localKernel } from '../local.js';
import { generateClient } from './generate.js';

/** `npm run gen:client`: regenerates sidecar/client/{types,client}.gen.ts from the built-in route table. */
const local = await localKernel(builtinPlugins);
try {
  const out = await generateClient(local.kernel.openapi());
  const dir = fileURLToPath(new URL('../../../sidecar/client/', import.meta.url));
  writeFileSync(dir + 'types.gen.ts', out.types);
  writeFileSync(dir + 'client.gen.ts', out.client);
  console.log(`wrote ${dir}types.gen.ts and client.gen.ts`);
} finally {
  await local.close();
}
