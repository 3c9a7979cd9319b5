import { blocked, unverifiable, verified, type DiagnosticResult } from '../../../core/verdict.js';
import type { SolveOutcome } from './outcome.js';
import { FAILURES, type FailureCode } from './errors.js';

/**
 * Turns an engine outcome into the /verify/logic wire body (decisions §2: the endpoint keeps its own
 * SAT/UNSAT/BLOCKED/ERROR `status` and carries the unified verdict under `diagnostic`).
 *
 * SAT and UNSAT are both proofs: z3 exhibited a model, or refuted every assignment. The claim a
 * logic query makes is "these constraints can all hold", so `is_valid` is true for SAT and false
 * for UNSAT; both are VERIFIED, with a proof_ref binding the canonical formula and the result.
 * A formula that came from a language-model translation is proven only as translated: its
 * diagnostic is UNVERIFIABLE (decisions §1), whatever the solver said.
 */
export const ENGINE_NAME = 'logic';

export interface Translation {
  expression: string;
  provider: string;
}

export interface LogicBody {
  status: 'SAT' | 'UNSAT' | 'BLOCKED' | 'ERROR';
  model?: Record<string, string>;
  error?: string;
  provider_used: string;
  translation?: Translation;
  diagnostic: DiagnosticResult;
}

export interface LogicReply {
  httpStatus: number;
  body: LogicBody;
}

export function verdictReply(o: SolveOutcome, providerUsed: string, translation?: Translation): LogicReply {
  if (o.status === 'SAT' || o.status === 'UNSAT') return decided(o, providerUsed, translation);
  const code = (o.kind ?? 'engine_unavailable') as FailureCode;
  return failure(translation && (code === 'syntax' || code === 'type' || code === 'limit') ? 'translation_invalid' : code, o.error ?? 'no verdict', providerUsed, {
    translation,
    operator: o.operator,
    canonical: o.canonical,
  });
}

function decided(o: SolveOutcome, providerUsed: string, translation?: Translation): LogicReply {
  const sat = o.status === 'SAT';
  const model = sat ? (o.model ?? {}) : null;
  const fields: Record<string, unknown> = {
    is_valid: sat,
    sat,
    canonical_query: o.canonical,
    engine_version: o.engine_version,
    ...(model ? { model } : {}),
    ...(o.solve_ms !== undefined ? { solve_ms: o.solve_ms } : {}),
    ...(o.strategy !== undefined ? { strategy: o.strategy } : {}),
    ...(o.proof !== undefined ? { interval_proof: o.proof } : {}),
    ...(o.contradiction !== undefined ? { contradiction: o.contradiction } : {}),
  };
  let diagnostic: DiagnosticResult;
  if (translation) {
    diagnostic = unverifiable(
      `${sat ? 'Satisfiable' : 'Unsatisfiable'} as translated; the translation itself is not verified.`,
      {
        ...fields,
        translated_query: translation.expression,
        query_semantics_verified: false,
        advisory_checks: [
          { name: 'llm_translation', advisory_only: true, constraint_id: 'logic_verifier.llm_translation', details: { provider: translation.provider } },
        ],
      },
    );
  } else {
    diagnostic = verified(
      sat ? 'Satisfiable: the solver found a model.' : 'Unsatisfiable: no assignment satisfies the constraints.',
      fields,
      {
        engine: ENGINE_NAME,
        engine_version: o.engine_version,
        input: { formula: o.canonical },
        result: { sat, model },
      },
    );
  }
  const body: LogicBody = { status: o.status as 'SAT' | 'UNSAT', provider_used: providerUsed, diagnostic };
  if (model) body.model = model;
  if (translation) body.translation = translation;
  return { httpStatus: 200, body };
}

export function failure(
  code: FailureCode,
  error: string,
  providerUsed: string,
  extra: { translation?: Translation; operator?: string; canonical?: string } = {},
): LogicReply {
  const def = FAILURES[code];
  const fields: Record<string, unknown> = { error, error_kind: code };
  if (extra.operator !== undefined) fields.operator = extra.operator;
  if (extra.canonical !== undefined) fields.canonical_query = extra.canonical;
  if (extra.translation) fields.translated_query = extra.translation.expression;
  const diagnostic =
    def.diagnostic === 'UNVERIFIABLE'
      ? unverifiable(`No verdict: ${error}`, { ...fields, constraint_id: def.constraintId })
      : blocked(`No verdict: ${error}`, def.constraintId, fields);
  const body: LogicBody = { status: code === 'unknown_operator' ? 'BLOCKED' : 'ERROR', error, provider_used: providerUsed, diagnostic };
  if (extra.translation) body.translation = extra.translation;
  return { httpStatus: def.httpStatus, body };
}
