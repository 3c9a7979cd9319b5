import { defineProblem } from '../../../core/errors.js';

/** Problems the SQL plugin raises (the verdicts themselves are DiagnosticResults, not problems). */
export const SqlProblems = {
  unsupportedDialect: defineProblem('sql_unsupported_dialect', 400, 'Unsupported SQL dialect'),
  engineUnavailable: defineProblem('sql_engine_unavailable', 503, 'SQL engine unavailable'),
} as const;
