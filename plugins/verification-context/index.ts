import type { Plugin } from '../../core/types.js';
import { registerRoutes } from './routes.js';

export { buildDocument, commitmentHolds, documentProofRef, sealedHash, SEAL_TYP, validateDocument, type VcDocument } from './document.js';
export { resolveDocument, whyUnresolved, type ResolveDeps, type UnresolvedReason } from './resolve.js';
export { MALFORMED_DIAGNOSTIC, SEAL_UNAVAILABLE } from './routes.js';

/** Verification Context v1.0: conversion of gated diagnostics into portable, self-committing documents sealed by the attestation key. */
const plugin: Plugin = {
  name: 'verification-context',
  optional: ['attestation', 'attestation.signer'],
  register: (app) => registerRoutes(app),
};
export default plugin;
