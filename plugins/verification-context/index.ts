import type { Plugin } from '../../core/types.js';
import { registerRoutes } from './routes.js';

export { buildDocument, documentProofRef, validateDocument, resolveDocument, type VcDocument } from './document.js';
export { MALFORMED_DIAGNOSTIC } from './routes.js';

/** Verification Context v1.0: conversion of gated diagnostics into portable, self-committing documents. */
const plugin: Plugin = { name: 'verification-context', register: (app) => registerRoutes(app) };
export default plugin;
