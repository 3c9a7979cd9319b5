import { blocked, diagnosticBody, unverifiable, verified } from './verdict.js';
import { defineProblem, HttpError } from './errors.js';
import { canonicalJson, sha256Ref } from './canonical.js';

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
});

export type PluginKit = typeof kit;
