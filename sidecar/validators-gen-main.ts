import { fileURLToPath } from 'node:url';
import { SCHEMAS_DIR } from '../core/app.js';
import { configSchema } from '../core/config.js';
import { GENERATED_DIR, writeGenerated } from '../core/json/generated.js';
import { aloneSource, Validator } from '../core/json/validate.js';
import { builtinSettings } from './builtin.js';

/**
 * The build's validators (run by `npm run build` after tsc; build output, never committed), so that
 * no start runs ajv's compiler for what the repository ships:
 * dist/core/json/generated/ (core/json/generated.ts): every schema under schemas/, every built-in
 * plugin's settings fragment, and the configuration schema as the sidecar assembles it (the kernel's
 * part and every built-in's settings), the last two looked up by their text.
 */
const v = new Validator();
v.loadDir(SCHEMAS_DIR);
const alone = [configSchema(builtinSettings) as object, ...builtinSettings.map(({ settings }) => settings.schema as object)];
const { written, skipped } = writeGenerated(GENERATED_DIR, v, alone.map((schema) => ({ schema, code: () => aloneSource(schema) })));
console.log(`wrote ${written} validators to ${fileURLToPath(GENERATED_DIR)}${skipped.length ? `; compiled at run time: ${skipped.join(', ')}` : ''}`);
