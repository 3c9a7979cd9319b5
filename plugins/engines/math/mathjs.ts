import type { create as Create, FactoryFunctionMap } from 'mathjs';

/**
 * mathjs's `create` and its factories without the package entry point. `import 'mathjs'` also
 * builds the library's default instance eagerly (every function of every type: ~23 MB of heap in
 * each worker thread that loads the math engine); the engine only ever uses instances of its own
 * made with `create(all, config)`, whose functions are built lazily on first use. The package's
 * `exports` map hides these two files, so they are addressed next to its resolved entry point
 * (same package, same version as the lockfile pins).
 */
const entry = import.meta.resolve('mathjs');
const core = (await import(new URL('./core/create.js', entry).href)) as { create: typeof Create };
const factories = (await import(new URL('./factoriesAny.js', entry).href)) as FactoryFunctionMap;

export const create = core.create;
export const all: FactoryFunctionMap = factories;

/**
 * The one plain-double instance (complex values in approx.ts, simplification of displayed text in
 * format.ts): each instance holds its own lazily built functions, so two identical ones would build
 * and keep the same functions twice in every math worker.
 */
export const plain = create(all);
