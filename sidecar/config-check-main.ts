import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../core/config.js';
import { standaloneSource } from '../core/json/validate.js';
import { builtinSettings } from './builtin.js';
import { GENERATED_CHECK } from './config-check.js';

/**
 * Writes dist/sidecar/config-check.gen.cjs: the configuration schema's validator (the kernel's part
 * and every built-in plugin's settings) as code, so that a start loads it instead of compiling the
 * schema. Run by `npm run build` after tsc; build output, never committed.
 */
writeFileSync(GENERATED_CHECK, standaloneSource(configSchema(builtinSettings)));
console.log(`wrote ${fileURLToPath(GENERATED_CHECK)}`);
