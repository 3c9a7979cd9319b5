/** Identity of the engine, importable without loading mathjs into the main thread. */
export const ENGINE_NAME = 'math';
export const ENGINE_VERSION = '1.5.0';
