import { createRequire } from 'node:module';
import type { Contradiction } from './certificate.js';
import type { OverloadProof } from './disjunctive.js';
import type { FailureKind } from './dsl.js';

/**
 * The plain-JSON contract between the z3 worker and the main thread, and the constants both sides
 * need. Kept apart from engine.ts so the main thread never loads z3's wasm glue just to name a type.
 */
export const DSL_VERSION = '1.0.0';
export const DEFAULT_TIMEOUT_MS = 5000;
/** no request, config or caller may ask for more than this per query */
export { MAX_TIMEOUT_MS } from './settings.js';

export const Z3_PACKAGE_VERSION: string = createRequire(import.meta.url)('z3-solver/package.json').version;
/** engine version known without starting z3; the worker appends the native Z3 version */
export const ENGINE_VERSION = `logic-dsl ${DSL_VERSION}; z3-solver ${Z3_PACKAGE_VERSION}`;

export type OutcomeKind = FailureKind | 'timeout' | 'unknown';

export interface SolveInput {
  query: string;
  /** z3's own timeout; clamped to [1, MAX_TIMEOUT_MS], default DEFAULT_TIMEOUT_MS */
  timeoutMs?: number;
}

export interface SolveOutcome {
  status: 'SAT' | 'UNSAT' | 'ERROR' | 'BLOCKED';
  /** why no verdict was reached (absent on SAT/UNSAT) */
  kind?: OutcomeKind;
  error?: string;
  operator?: string;
  /** free variable → value string, on SAT */
  model?: Record<string, string>;
  /** canonical form of the parsed formula (what was proven) */
  canonical?: string;
  engine_version: string;
  solve_ms?: number;
  /** query shape and the strategy that decided it (strategy.ts) */
  shape?: string;
  strategy?: string;
  /** interval pre-solver UNSAT: the variable whose bounds cross and the two atoms that set them */
  proof?: { variable: string; lower: string; upper: string };
  /** other pre-solver UNSAT: the checked contradiction (certificate.ts, disjunctive.ts) */
  contradiction?: Contradiction | OverloadProof;
}
