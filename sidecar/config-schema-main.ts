import { writeFileSync } from 'node:fs';
import { configSchemaText } from './config.js';

/**
 * Writes config/schema.json from the kernel's part and the built-in plugins' settings fragments
 * (run after changing either: `npx tsc -p tsconfig.json && node dist/sidecar/config-schema-main.js`).
 * test/sidecar/config-schema.test.ts fails while the checked-in file differs.
 */
const target = new URL('../../config/schema.json', import.meta.url);
writeFileSync(target, configSchemaText());
console.log(`wrote ${target.pathname}`);
