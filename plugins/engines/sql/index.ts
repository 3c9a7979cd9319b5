import type { App, Plugin } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { sqlVerifier } from './verifier.js';
import { ENGINE_NAME, ENGINE_VERSION } from './meta.js';

/**
 * POST /verify/sql: proves a query safe or malicious on its parse tree, checks it against the
 * supplied schema, and (SQLite) compiles it under EXPLAIN QUERY PLAN. Parsing runs in the worker pool.
 */
function register(app: App): void {
  const engine = app.engine({ name: ENGINE_NAME, version: ENGINE_VERSION, module: new URL('./engine.js', import.meta.url) });
  registerRoutes(app, engine);
  // composite routes (batch, consensus, A2A) reach the engine through this service
  app.provide('verifier.sql', sqlVerifier(app, engine));
}

const plugin: Plugin = { name: 'sql', provides: ['verifier.sql'], register };
export default plugin;
export { resolveDialect, DIALECT_NAMES } from './dialects.js';
export { ENGINE_NAME, ENGINE_VERSION, LIMITS } from './meta.js';
export type { SqlInput } from './engine.js';
