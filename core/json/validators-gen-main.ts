import { fileURLToPath } from 'node:url';
import { SCHEMAS_DIR } from '../app.js';
import { GENERATED_DIR, writeGenerated } from './generated.js';
import { Validator } from './validate.js';

/**
 * Writes dist/core/json/generated/: the validators of every schema under schemas/, generated with
 * ajv's standalone code (core/json/generated.ts). Run by `npm run build` after tsc; build output,
 * never committed.
 */
const v = new Validator();
v.loadDir(SCHEMAS_DIR);
const { written, skipped } = writeGenerated(GENERATED_DIR, v);
console.log(`wrote ${written} validators to ${fileURLToPath(GENERATED_DIR)}${skipped.length ? `; compiled at run time: ${skipped.join(', ')}` : ''}`);
