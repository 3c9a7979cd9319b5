import { blocked, diagnosticBody, unverifiable, verified } from '../verdict.js';
import { defineProblem, describeFieldErrors, HttpError } from '../errors.js';
import { canonicalJson, sha256Ref } from '../json/canonical.js';

/** How a worker task ended without a result (core/workers/pools.ts EngineError kinds). */
export interface EngineFailure {
  kind: string;
}

/**
 * The one mapping of a failed engine call every engine plugin shares: a cancelled task (the client
 * left, shutdown) is rethrown as it is; an unavailable pool (queue full, starting, closing) is
 * overload, thrown as the plugin's 503 from `unavailable`; a timeout or crash is returned for the
 * plugin to turn into its fail-closed verdict (never VERIFIED). Anything that is not an engine
 * failure gives null: the plugin decides (rethrow, or a verdict of its own). EngineError is
 * recognised by shape, so an error from another copy of the kernel's module is one too.
 */
export function engineFailure(err: unknown, unavailable: () => HttpError): EngineFailure | null {
  const e = err as { name?: unknown; kind?: unknown } | null;
  if (!e || e.name !== 'EngineError' || typeof e.kind !== 'string') return null;
  if (e.kind === 'cancelled') throw err;
  if (e.kind === 'unavailable') throw unavailable();
  return { kind: e.kind };
}

/**
 * What an operator plugin loaded from a path needs from the kernel, handed to it on `app.kit`, so a
 * plugin outside this package never imports kernel files by relative path. Built-in plugins may
 * import the same functions directly; it is the same code.
 */
export const kit = Object.freeze({
  verified,
  unverifiable,
  blocked,
  diagnosticBody,
  HttpError,
  defineProblem,
  canonicalJson,
  sha256Ref,
  engineFailure,
  describeFieldErrors,
});

export type PluginKit = typeof kit;
