import { sha256Hex } from '../../../core/json/canonical.js';
import { blocked, verified, type DiagnosticResult } from '../../../core/verdict.js';
import { advisoryChecks } from './advisory.js';
import { type Analysis, type Language, BLOCKING, RULES_VERSION, SUPPORTED_LANGUAGES, isBlocking } from './types.js';

export const ENGINE_NAME = 'code';
/** Engine implementation version (parsers + rule runner); the rule set has its own RULES_VERSION. */
export const ENGINE_VERSION = '1.2.0';
/** Largest `code` accepted, in UTF-8 bytes (the route answers 413 past it). */
export const MAX_CODE_BYTES = 200 * 1024;

export const CONSTRAINTS = {
  unsupportedLanguage: 'code_verifier.unsupported_language',
  parseError: 'code_verifier.parse_error',
  timeout: 'code_verifier.timeout',
  complexity: 'code_verifier.complexity_limit_exceeded',
  inputTooLarge: 'code_verifier.input_too_large',
  engineFailure: 'code_verifier.execution_error',
  /** a composite route's item that fails the route's body schema (the route itself answers 400) */
  invalidRequest: 'code_verifier.invalid_request',
} as const;

const LANGUAGE_ALIASES: Record<string, Language> = {
  python: 'python', py: 'python', python3: 'python',
  javascript: 'javascript', js: 'javascript', node: 'javascript', ecmascript: 'javascript',
  typescript: 'typescript', ts: 'typescript',
};

/** Canonical language for a request value (case-insensitive, a few common aliases); null when unsupported. */
export function resolveLanguage(value: unknown): Language | null {
  if (value === undefined || value === null) return 'python';
  if (typeof value !== 'string') return null;
  const key = value.trim().toLowerCase();
  return Object.hasOwn(LANGUAGE_ALIASES, key) ? LANGUAGE_ALIASES[key] : null; // not `constructor`, `__proto__`, …
}

/** Fields every code verdict carries, proven or not (legacy keys are copied to the top level by diagnosticBody). */
function baseFields(language: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { is_valid: false, is_safe: false, vulnerabilities: [], language, rules_version: RULES_VERSION, ...extra };
}

export function unsupportedLanguage(value: unknown): DiagnosticResult {
  const shown = typeof value === 'string' ? value.slice(0, 64) : typeof value;
  return blocked(
    `language ${JSON.stringify(shown)} is not supported; supported: ${SUPPORTED_LANGUAGES.join(', ')}`,
    CONSTRAINTS.unsupportedLanguage,
    baseFields(String(shown), { supported_languages: [...SUPPORTED_LANGUAGES] }),
    'BLOCKED',
  );
}

export function failed(language: string, constraint: string, message: string, extra: Record<string, unknown> = {}): DiagnosticResult {
  return blocked(message, constraint, baseFields(language, extra), 'BLOCKED');
}

/**
 * The verdict for one analysis. A complete tree is a proof either way: a blocking finding proves the
 * code unsafe (VERIFIED, is_valid false, admission BLOCKED); no finding proves the code free of every
 * construct the rule set names (VERIFIED, is_valid true, ADMIT). An incomplete tree proves nothing
 * (BLOCKED), because what failed to parse could hide anything.
 */
export function verdictFor(code: string, analysis: Analysis): DiagnosticResult {
  const advisory = advisoryChecks(code);
  const common = { parser: analysis.parser, advisory_checks: advisory };
  if (analysis.limitExceeded) {
    return failed(analysis.language, CONSTRAINTS.complexity, 'code exceeded the parse or analysis budget; nothing can be proven about it', common);
  }
  if (!analysis.parseOk) {
    const pe = analysis.parseError ?? { line: 1, column: 1, message: 'syntax error' };
    return failed(analysis.language, CONSTRAINTS.parseError, `code does not parse as ${analysis.language} (line ${pe.line}, column ${pe.column}: ${pe.message}); nothing can be proven about it`, { ...common, parse_error: pe });
  }
  const findings = analysis.findings;
  const blocking = findings.filter(isBlocking);
  const safe = blocking.length === 0;
  const evidence = {
    engine: ENGINE_NAME,
    engine_version: ENGINE_VERSION,
    input: { language: analysis.language, code_sha256: sha256Hex(code) },
    parameters: { rules_version: RULES_VERSION },
    result: { findings },
  };
  const fields = {
    is_valid: safe,
    is_safe: safe,
    vulnerabilities: findings,
    language: analysis.language,
    rules_version: RULES_VERSION,
    blocking_severities: [...BLOCKING],
    findings_count: findings.length,
    blocking_count: blocking.length,
    ...common,
  };
  const first = blocking[0];
  const message = safe
    ? `no unsafe construct found on the syntax tree (${RULES_VERSION})${findings.length ? `; ${findings.length} non-blocking finding(s)` : ''}`
    : `code is unsafe: ${blocking.length} blocking finding(s); first at line ${first.line}: ${first.message}`;
  return verified(message, fields, evidence, safe ? 'ADMIT' : 'BLOCKED');
}
