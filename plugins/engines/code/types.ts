/**
 * Shared shapes of the code-security analysis. Everything here is plain JSON so an analysis can
 * cross a worker boundary and be reused by other plugins (the A2A code guard) without conversion.
 * The wire shapes are the ones generated from schemas/code/ (schemas/gen/code.gen.ts).
 */
import type { CodeVerifyResponse, CodeVulnerability } from '../../../schemas/gen/index.js';

export type Severity = CodeVulnerability['severity'];
export type Language = 'python' | 'javascript' | 'typescript';

export const SUPPORTED_LANGUAGES: readonly Language[] = ['python', 'javascript', 'typescript'];

/**
 * Name of the rule set; bumped whenever a rule is added, removed or changes severity, because it
 * is part of the proof_ref evidence (the same code under another rule set is another proof).
 */
export const RULES_VERSION = 'proofgate-code-rules/1.16.0';

/** Severities that block admission. MEDIUM and LOW are reported but admitted (see docs/engines/code.md). */
export const BLOCKING: ReadonlySet<Severity> = new Set<Severity>(['CRITICAL', 'HIGH']);

/**
 * One finding proven on the syntax tree; the spec's Vulnerability entry plus column and rule_id
 * (schemas/code/vulnerability.json). line and column are 1-based, the column in UTF-16 code units
 * (as JavaScript strings count); a flow's `path` is the source line, each step, then the sink line.
 */
export type Finding = CodeVulnerability;

type AdvisoryItem = NonNullable<CodeVerifyResponse['developer_fields']['advisory_checks']>[number];

/**
 * A text-only signal: never a proof, never the basis of a verdict. The schema's `details` is an
 * object, which json-schema-to-typescript spells `{}` (no field can be read from or typed into it).
 */
export type AdvisoryCheck = Omit<AdvisoryItem, 'details'> & { details: Record<string, unknown> };

/** Result of analysing one source text. */
export interface Analysis {
  language: Language;
  /** false when the source did not parse into a complete tree; findings are then not a safety proof */
  parseOk: boolean;
  /** why parsing failed (line/column and a short reason), only when parseOk is false */
  parseError?: { line: number; column: number; message: string };
  /** how the tree was produced, e.g. `tree-sitter-python`, `acorn(module)`, `sucrase+acorn(script)` */
  parser: string;
  findings: Finding[];
  /** the resolution step budget ran out: findings are partial and prove nothing about safety */
  limitExceeded?: boolean;
}

export function isBlocking(f: Finding): boolean {
  return BLOCKING.has(f.severity);
}

const ORDER: Record<Severity, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };

/** Deterministic order (severity, line, column, rule) with exact duplicates removed: the list is hashed into proof_ref. */
export function normaliseFindings(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of findings) {
    const key = `${f.rule_id}|${f.line}|${f.column}|${f.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out.sort(
    (a, b) => ORDER[a.severity] - ORDER[b.severity] || a.line - b.line || a.column - b.column || a.rule_id.localeCompare(b.rule_id),
  );
}
