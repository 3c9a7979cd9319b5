import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { PrecompiledCheck } from '../core/config.js';

/**
 * The configuration schema's validator that `npm run build` generates beside this module
 * (sidecar/validators-gen-main.ts): the sidecar, its CLI commands and the tests load it instead of
 * compiling the schema at every start (~150 ms of CPU there). A tree compiled without the generator
 * (bare `tsc`) has none, or an older one whose fingerprint no longer matches: the loader then
 * compiles the schema itself, as it always did.
 */
export const GENERATED_CHECK = new URL('./config-check.gen.cjs', import.meta.url);

let loaded: PrecompiledCheck | null | undefined;

export function precompiledConfigCheck(): PrecompiledCheck | undefined {
  if (loaded === undefined) loaded = load(GENERATED_CHECK);
  return loaded ?? undefined;
}

/** the generated module at `url`, or null when there is none or it is not one */
export function load(url: URL): PrecompiledCheck | null {
  try {
    const mod = createRequire(import.meta.url)(fileURLToPath(url)) as PrecompiledCheck['validate'] & { fingerprint?: unknown };
    if (typeof mod !== 'function' || typeof mod.fingerprint !== 'string') return null;
    return { fingerprint: mod.fingerprint, validate: mod };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return null;
    throw err;
  }
}
