import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMAS_DIR } from '../core/app.js';
import { configSchema } from '../core/config.js';
import { GENERATED_DIR, writeGenerated } from '../core/json/generated.js';
import { aloneSource, standaloneSource, Validator } from '../core/json/validate.js';
import { builtinSettings } from './builtin.js';
import { GENERATED_CHECK } from './config-check.js';

/**
 * The build's validators (run by `npm run build` after tsc; build output, never committed), so that
 * no start runs ajv's compiler for what the repository ships:
 * - dist/sidecar/config-check.gen.cjs, the configuration schema's (the kernel's part and every
 *   built-in plugin's settings; sidecar/config-check.ts);
 * - dist/core/json/generated/, every schema under schemas/ and every built-in plugin's settings
 *   fragment (core/json/generated.ts).
 */
writeFileSync(GENERATED_CHECK, standaloneSource(configSchema(builtinSettings)));
const v = new Validator();
v.loadDir(SCHEMAS_DIR);
const fragments = builtinSettings.map(({ settings }) => ({ schema: settings.schema as object, code: () => aloneSource(settings.schema as object) }));
const { written, skipped } = writeGenerated(GENERATED_DIR, v, fragments);
console.log(`wrote ${fileURLToPath(GENERATED_CHECK)} and ${written} validators to ${fileURLToPath(GENERATED_DIR)}${skipped.length ? `; compiled at run time: ${skipped.join(', ')}` : ''}`);
