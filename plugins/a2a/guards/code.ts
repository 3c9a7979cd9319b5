import { scanHeuristics } from './code-heuristics.js';
import { layer1Threats, type SyntaxAnalysis } from './code-layer1.js';
import { unverifiable, type Guard, type GuardOutcome } from './types.js';

/**
 * code_guard: reads payload.code (and payload.language, default `python`). Layer 1 is the code
 * engine's syntax tree; a syntax error or an exhausted analysis budget blocks (the tree proves
 * nothing then). Layer 2, six text heuristics, runs only when layer 1 found nothing. Any finding
 * blocks; none gives `heuristic_pass` — never `forwarded`, because the absence of a known threat
 * is not a proof of safety. Both layers run in one worker task (see ../engine.ts).
 */
export type CodeLanguage = 'python' | 'javascript' | 'typescript';
export const CODE_LANGUAGES: readonly CodeLanguage[] = ['python', 'javascript', 'typescript'];

export interface CodeTask {
  code: string;
  language: CodeLanguage;
}

/** Turns one analysis (layer 1) plus the raw text (layer 2) into the guard's outcome; pure. */
export function codeOutcome(analysis: SyntaxAnalysis, code: string): GuardOutcome {
  if (!analysis.parseOk) {
    const e = analysis.parseError;
    return {
      status: 'blocked',
      reason: e ? `Code does not parse (line ${e.line}, column ${e.column}): ${e.message}` : 'Code does not parse',
      details: { layer: 1, parser: analysis.parser, syntax_error: e ?? null },
    };
  }
  if (analysis.limitExceeded) {
    return { status: 'blocked', reason: 'Code analysis exceeded its budget; nothing was proven', details: { layer: 1, parser: analysis.parser, limit_exceeded: true } };
  }
  const threats = layer1Threats(analysis);
  if (threats.length) {
    const rules = [...new Set(threats.map((f) => f.rule_id))];
    return {
      status: 'blocked',
      reason: `Syntax-tree analysis found: ${rules.join(', ')}`,
      details: { layer: 1, parser: analysis.parser, findings: threats.map(({ rule_id, type, severity, line, column, message }) => ({ rule_id, type, severity, line, column, message })) },
    };
  }
  const heuristics = scanHeuristics(code);
  if (heuristics.length) {
    return {
      status: 'blocked',
      reason: `Heuristics matched: ${heuristics.map((h) => h.name).join(', ')}`,
      details: { layer: 2, parser: analysis.parser, heuristics },
    };
  }
  return { status: 'heuristic_pass', reason: 'Neither analysis layer found a threat', details: { layer: 2, parser: analysis.parser, heuristics: [] } };
}

/** Reads the payload; the analysis itself runs through `run` (the worker pool in production). */
export function createCodeGuard(run: (task: CodeTask, signal: AbortSignal) => Promise<GuardOutcome>): Guard {
  return {
    name: 'code_guard',
    check(payload, ctx) {
      const code = payload.code;
      if (code === undefined) return unverifiable('payload.code is missing');
      if (typeof code !== 'string') return unverifiable('payload.code is not a string');
      if (code.trim() === '') return unverifiable('payload.code is empty');
      const language = payload.language ?? 'python';
      if (typeof language !== 'string' || !(CODE_LANGUAGES as readonly string[]).includes(language)) {
        return unverifiable(`payload.language must be one of ${CODE_LANGUAGES.join(', ')}`);
      }
      return run({ code, language: language as CodeLanguage }, ctx.signal);
    },
  };
}
