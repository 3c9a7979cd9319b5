import { defineProblem } from '../../../core/errors.js';

export const C = {
  validation: 'stats_verifier.validation_error',
  execution: 'stats_verifier.execution_failure',
  runtime: 'stats_verifier.runtime_unavailable',
} as const;

export const StatsProblems = {
  badCsv: defineProblem('stats_invalid_csv', 400, 'Invalid CSV'),
  missingFile: defineProblem('stats_missing_file', 400, 'CSV file required'),
  tooManyCells: defineProblem('stats_cell_cap_exceeded', 413, 'CSV has too many cells'),
  tooManyColumns: defineProblem('stats_column_cap_exceeded', 413, 'CSV has too many columns'),
  sandboxUnavailable: defineProblem('stats_sandbox_unavailable', 503, 'Statistics sandbox unavailable'),
} as const;
