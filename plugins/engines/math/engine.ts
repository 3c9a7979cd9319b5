import { blocked, unverifiable, verified, type DiagnosticResult, type Evidence } from '../../../core/verdict.js';
import { C, MathRefusal } from './errors.js';
import { parseInput } from './syntax.js';
import { costDigits } from './cost.js';
import { exact, EvalError, Undecided, type Domain } from './exact.js';
import { approximate, type Approx, type Checked } from './approx.js';
import { decideEquation } from './identity.js';
import { checkExpected, checkedValue } from './tolerance.js';
import { approxValue, exactValue, simplifiedText } from './format.js';
import { show, variables, type Ast } from './ast.js';
import type { K } from './field.js';
import { ENGINE_NAME, ENGINE_VERSION } from './meta.js';
import { decideRelation, type RelOp } from './relations.js';
import { answerCheck } from './answer/verdict.js';
import { normalizeMathInput } from './normalize.js';

/**
 * The math engine: pure, plain JSON in and out, run in a worker thread by the route. Every path
 * ends in a DiagnosticResult built by the core constructors, so proof_ref exists only on VERIFIED.
 */
export { ENGINE_NAME, ENGINE_VERSION } from './meta.js';

export interface MathRequest {
  expression: string;
  context?: { domain?: 'real' | 'complex'; decimal_separator?: '.' | ','; [k: string]: unknown };
  /** a final answer to compare `expression` (or the answer inside it) with: answer equivalence */
  expected?: string;
  expected_value?: string | number;
  tolerance?: string | number;
  /** exact texts of JSON-number expected_value/tolerance, read from the body by the route (never on the wire) */
  exact_text?: { expected_value?: string; tolerance?: string };
}

export function verify(input: MathRequest): DiagnosticResult {
  try {
    return run(input);
  } catch (err) {
    if (err instanceof MathRefusal) {
      return blocked(err.message, err.constraintId, { is_valid: false, error: err.constraintId.replace('math_verifier.', ''), message: err.message, ...err.fields });
    }
    if (err instanceof Undecided) {
      return blocked(err.message, C.numericOnly, { is_valid: false, error: 'undecidable_at_precision', message: err.message });
    }
    if (err instanceof EvalError) {
      const id = err.kind === 'division_by_zero' ? C.divisionByZero : C.domain;
      return blocked(err.message, id, { is_valid: false, error: err.kind === 'division_by_zero' ? 'division_by_zero' : 'domain_error', message: err.message });
    }
    // fail closed without echoing internals
    return blocked('The expression could not be verified.', 'math_verifier.internal_error', { is_valid: false, error: 'internal_error', message: 'Internal engine error.' });
  }
}

/** start-up task: loads the libraries and primes the exact, decimal and complex paths */
export function warmup(): boolean {
  for (const expression of ['(x+1)^2 = x^2+2x+1', 'sin(x)^2+cos(x)^2 = 1', 'log(x*y) = log(x)+log(y)', 'sqrt(2)', 'x+x', '\\frac{1}{2} \\le \\sqrt{2}']) verify({ expression });
  // the LaTeX reader and the answer path: their first call loads as much again
  verify({ expression: 'so the answer is \\boxed{[\\frac{1}{2}, 2)}', expected: 'x \\ge 0.5' });
  return verify({ expression: 'pi', expected_value: '3.14159', tolerance: '0.00001' }).status === 'VERIFIED';
}

function mentionsI(a: Ast): boolean {
  switch (a.k) {
    case 'const':
      return a.name === 'i';
    case 'num':
    case 'var':
      return false;
    case 'neg':
      return mentionsI(a.a);
    case 'fn':
      return a.args.some(mentionsI);
    default:
      return mentionsI(a.a) || mentionsI(a.b);
  }
}

function evidence(input: string, parameters: Record<string, unknown>, result: Record<string, unknown>): Evidence {
  return { engine: ENGINE_NAME, engine_version: ENGINE_VERSION, input, parameters, result };
}

function run(input: MathRequest): DiagnosticResult {
  if (!input || typeof input.expression !== 'string') throw new MathRefusal(C.invalidRequest, 'expression must be a string.');
  const ctxDomain = input.context?.domain;
  if (ctxDomain !== undefined && ctxDomain !== 'real' && ctxDomain !== 'complex') {
    throw new MathRefusal(C.invalidRequest, "context.domain must be 'real' or 'complex'.");
  }
  const domain: Domain = ctxDomain ?? 'complex';
  const dec = input.context?.decimal_separator ?? '.';
  if (dec !== '.' && dec !== ',') throw new MathRefusal(C.invalidRequest, "context.decimal_separator must be '.' or ','.");
  const hasExpected = input.expected_value !== undefined && input.expected_value !== null;
  if (input.expected !== undefined && input.expected !== null) {
    if (typeof input.expected !== 'string') throw new MathRefusal(C.invalidRequest, 'expected must be a string.');
    if (hasExpected) throw new MathRefusal(C.invalidRequest, 'expected and expected_value cannot be combined.');
    const tol = input.exact_text?.tolerance;
    return answerCheck({ expression: input.expression, expected: input.expected, tolerance: input.tolerance, domain, decimalSeparator: dec, ...(tol !== undefined ? { exactTolerance: tol } : {}) }, normalizeMathInput(input.expression));
  }
  const parsed = parseInput(input.expression, { decimalSeparator: dec });
  parsed.sides.forEach(costDigits);
  if (domain === 'real' && parsed.sides.some(mentionsI)) throw new EvalError('domain', 'The imaginary unit i is not a real number.');
  const readAs = parsed.readAs !== undefined ? { read_as: parsed.readAs } : {};
  if (parsed.relation) {
    if (hasExpected) throw new MathRefusal(C.invalidRequest, 'expected_value applies to an expression, not to a relation.');
    return relation(parsed.normalized, parsed.readAs!, parsed.sides[0], parsed.sides[1], parsed.relation, domain);
  }
  if (parsed.sides.length === 2) {
    if (hasExpected) throw new MathRefusal(C.invalidRequest, 'expected_value applies to an expression, not to an equation.');
    return equation(parsed.normalized, parsed.sides[0], parsed.sides[1], domain, readAs);
  }
  const expr = parsed.sides[0];
  if (variables(expr).size > 0) {
    const simplified = simplifiedText(expr);
    return unverifiable('Symbolic expression: it has no numeric value to verify.', {
      is_valid: true,
      value: null,
      simplified,
      original: parsed.normalized,
      ...readAs,
      is_symbolic: true,
      is_complex: false,
      ...(hasExpected ? { is_correct: false, error: 'symbolic expression has no numeric value' } : {}),
    });
  }
  const ex = exact(expr, null, domain);
  if (ex && domain === 'real' && !ex.isReal()) throw new EvalError('domain', 'The value is not a real number.');
  const ap: Approx | null = ex ? null : approximate(expr, null, domain);
  if (hasExpected) return expectedCheck(parsed.normalized, domain, ex, ap, checkedValue(expr, ex, ap), input, readAs);
  return bareValue(parsed.normalized, expr, ex, ap, readAs);
}

function relation(normalized: string, readAs: string, l: Ast, r: Ast, op: RelOp, domain: Domain): DiagnosticResult {
  const { holds, method } = decideRelation(l, r, op, domain);
  const fields = { is_valid: holds, result: holds, left_side: show(l), right_side: show(r), relation: op, method, read_as: readAs, message: holds ? 'Relation is true' : 'Relation is false' };
  const params = { context: { domain }, read_as: readAs };
  return verified(holds ? 'The relation holds' : 'The relation is false', fields, evidence(normalized, params, { is_valid: holds, relation: op, method }));
}

/**
 * `readAs` is a LaTeX input's plain reading: shown beside the verdict and bound into its evidence,
 * so a proof_ref names what was proven and two readings of one text never share one.
 */
type Reading = { read_as?: string };

function equation(normalized: string, l: Ast, r: Ast, domain: Domain, readAs: Reading): DiagnosticResult {
  const left_side = show(l);
  const right_side = show(r);
  const outcome = decideEquation(l, r, domain);
  const params = { context: { domain }, ...readAs };
  switch (outcome.kind) {
    case 'holds': {
      const fields = {
        is_valid: true,
        result: true,
        left_side,
        right_side,
        ...readAs,
        simplified_difference: '0',
        message: 'Identity is true',
        method: outcome.method,
        ...(outcome.atoms.length ? { atoms: outcome.atoms, degree_bounds: outcome.degree_bounds, grid_points: outcome.grid_points } : {}),
      };
      return verified('Identity is true', fields, evidence(normalized, params, { is_valid: true, method: outcome.method }));
    }
    case 'refuted': {
      const ce = outcome.counterexample;
      // mathjs simplify costs milliseconds and proves nothing here: the refuted difference is shown as written
      const simplified_difference = outcome.method === 'exact_evaluation' ? String(ce.difference) : show({ k: 'sub', a: l, b: r });
      const fields = {
        is_valid: false,
        result: false,
        left_side,
        right_side,
        ...readAs,
        simplified_difference,
        message: 'Identity is false',
        method: outcome.method,
        counterexample: ce,
      };
      return verified('The equation is false', fields, evidence(normalized, params, { is_valid: false, method: outcome.method, counterexample: ce }));
    }
    case 'numeric_only':
      return blocked('The identity is only supported by numerical sampling, which is not a proof.', C.numericOnly, {
        is_valid: false,
        result: false,
        is_equivalent: false,
        left_side,
        right_side,
        message: outcome.reason,
        sample_points: outcome.points,
      });
    case 'unknown':
      return unverifiable('The equation could be neither proven nor refuted.', {
        is_valid: false,
        result: false,
        left_side,
        right_side,
        message: outcome.reason,
      });
  }
}

function bareValue(normalized: string, expr: Ast, ex: K | null, ap: Approx | null, readAs: Reading): DiagnosticResult {
  const v = ex ? exactValue(ex) : approxValue(ap!);
  return unverifiable('Computed value (a computation is not a verification).', {
    is_valid: true,
    value: v.value,
    ...(ex ? { value_exact: exactValue(ex).exact } : {}),
    ...(v.approx !== null && Number.isFinite(v.approx) ? { value_float: v.approx } : {}),
    is_exact: ex !== null,
    simplified: ex ? exactValue(ex).exact : String(v.value),
    original: normalized,
    ...readAs,
    expression: show(expr),
    is_symbolic: false,
    is_complex: v.complex,
    precision_mode: ex || ap?.kind === 'real' ? 'decimal' : 'float',
  });
}

function expectedCheck(normalized: string, domain: Domain, ex: K | null, ap: Approx | null, checked: Checked | null, input: MathRequest, readAs: Reading): DiagnosticResult {
  const out = checkExpected({ exact: ex, approx: ap, checked }, input.expected_value, input.tolerance, input.exact_text);
  const params = { context: { domain }, expected_value: out.expected_value, tolerance: out.tolerance, ...readAs };
  const fields = {
    is_valid: out.is_correct,
    is_correct: out.is_correct,
    calculated_value: out.calculated_value,
    expected_value: out.expected_value,
    difference: out.difference,
    tolerance: out.tolerance,
    max_allowed_tolerance: out.max_allowed_tolerance,
    precision_mode: out.precision_mode,
    ...readAs,
    message: out.is_correct ? 'Expected value is within tolerance' : 'Expected value is outside tolerance',
  };
  const msg = out.is_correct ? 'The expected value matches within tolerance.' : 'The expected value does not match within tolerance.';
  return verified(msg, fields, evidence(normalized, params, { is_correct: out.is_correct, calculated_value: out.calculated_value, difference: out.difference }));
}
