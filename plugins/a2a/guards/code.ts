import { CodeGuardConstraints } from '../errors.js';
import { scanHeuristics, type HeuristicFinding } from './code-heuristics.js';
import { layer1Threats, type SyntaxAnalysis } from './code-layer1.js';
import { unverifiable, type Guard, type GuardOutcome } from './types.js';

/**
 * code_guard: reads payload.code (and payload.language, default `python`). Layer 1 is the code
 * plugin's syntax tree, reached through its `code.analyzer` service (parsing runs in the code
 * plugin's pool); a syntax error or an exhausted analysis budget blocks (the tree proves nothing
 * then), and so does a deployment without the code plugin. Layer 2, six text heuristics, runs only
 * when layer 1 found nothing. Any finding blocks; none gives `heuristic_pass` — never `forwarded`,
 * because the absence of a known threat is not a proof of safety.
 */
export type CodeLanguage = 'python' | 'javascript' | 'typescript';
export const CODE_LANGUAGES: readonly CodeLanguage[] = ['python', 'javascript', 'typescript'];
/** at most this much code is scanned by the heuristics on the event loop; longer text goes to a worker */
export const CODE_INLINE_CHARS = 16 * 1024;

export interface CodeTask {
  code: string;
  language: CodeLanguage;
}

/** The slice of the code plugin's `CodeAnalyzer` the guard uses (a fake one drives the guard in tests). */
export interface SyntaxAnalyzer {
  analyze(code: string, language: CodeLanguage, opts: { signal?: AbortSignal }): Promise<SyntaxAnalysis>;
}

export interface CodeGuardDeps {
  /** looked up per message: undefined when the code plugin is not loaded (then every message blocks) */
  analyzer: () => SyntaxAnalyzer | undefined;
  /** layer 2 over a text longer than CODE_INLINE_CHARS (the A2A worker pool in production) */
  scanLarge?: (code: string, signal: AbortSignal) => Promise<HeuristicFinding[]>;
}

/** Layer 1's outcome: a blocking one, or null when the tree is complete and holds no threat; pure. */
export function layer1Outcome(analysis: SyntaxAnalysis): GuardOutcome | null {
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
  if (!threats.length) return null;
  const rules = [...new Set(threats.map((f) => f.rule_id))];
  return {
    status: 'blocked',
    reason: `Syntax-tree analysis found: ${rules.join(', ')}`,
    details: { layer: 1, parser: analysis.parser, findings: threats.map(({ rule_id, type, severity, line, column, message }) => ({ rule_id, type, severity, line, column, message })) },
  };
}

/** Layer 2's outcome from the heuristics' findings; pure. */
export function layer2Outcome(parser: string, heuristics: HeuristicFinding[]): GuardOutcome {
  if (heuristics.length) {
    return { status: 'blocked', reason: `Heuristics matched: ${heuristics.map((h) => h.name).join(', ')}`, details: { layer: 2, parser, heuristics } };
  }
  return { status: 'heuristic_pass', reason: 'Neither analysis layer found a threat', details: { layer: 2, parser, heuristics: [] } };
}

/** no analyzer, no proof: the message is blocked (signed), never passed on unchecked */
function analyzerUnavailable(): GuardOutcome {
  return {
    status: 'blocked',
    reason: 'The code plugin is not loaded, so code cannot be analysed; the message is blocked',
    details: { layer: 1, constraint_id: CodeGuardConstraints.analyzerUnavailable },
  };
}

/** Reads the payload; the analysis runs in the code plugin's pool, large heuristics scans in `scanLarge`. */
export function createCodeGuard(deps: CodeGuardDeps): Guard {
  return {
    name: 'code_guard',
    async check(payload, ctx) {
      const code = payload.code;
      if (code === undefined) return unverifiable('payload.code is missing');
      if (typeof code !== 'string') return unverifiable('payload.code is not a string');
      if (code.trim() === '') return unverifiable('payload.code is empty');
      const language = payload.language ?? 'python';
      if (typeof language !== 'string' || !(CODE_LANGUAGES as readonly string[]).includes(language)) {
        return unverifiable(`payload.language must be one of ${CODE_LANGUAGES.join(', ')}`);
      }
      const analyzer = deps.analyzer();
      if (!analyzer) return analyzerUnavailable();
      const analysis = await analyzer.analyze(code, language as CodeLanguage, { signal: ctx.signal });
      const blocked = layer1Outcome(analysis);
      if (blocked) return blocked;
      const heuristics = deps.scanLarge && code.length > CODE_INLINE_CHARS ? await deps.scanLarge(code, ctx.signal) : scanHeuristics(code);
      return layer2Outcome(analysis.parser, heuristics);
    },
  };
}
