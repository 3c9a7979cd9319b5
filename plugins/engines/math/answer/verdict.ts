import { blocked, unverifiable, verified, type DiagnosticResult } from '../../../../core/verdict.js';
import { C, MathRefusal } from '../errors.js';
import { ENGINE_NAME, ENGINE_VERSION } from '../meta.js';
import { normalizeMathInput } from '../normalize.js';
import { exact, type Domain } from '../exact.js';
import { approximate } from '../approx.js';
import { checkExpected, checkedValue } from '../tolerance.js';
import { costDigits } from '../cost.js';
import type { DecimalSeparator } from '../latex/index.js';
import { extractAnswer, lastBoxed } from './extract.js';
import { readAnswer, showShape, type Answer, type Shape } from './shape.js';

import { compareShapes, type Outcome } from './compare.js';

export interface AnswerRequest {
  expression: string;
  expected: string;
  tolerance?: string | number;
  domain: Domain;
  decimalSeparator: DecimalSeparator;
  exactTolerance?: string;
}

function costs(s: Shape): void {
  if (s.kind === 'union') return s.parts.forEach(costs);
  if (s.kind === 'equation') return [s.l, s.r].forEach((v) => 'ast' in v && costDigits(v.ast));
  const vs = s.kind === 'value' ? [s.v] : s.kind === 'set' || s.kind === 'tuple' ? s.items : s.kind === 'interval' ? [s.lo, s.hi] : s.kind === 'matrix' ? s.rows.flat() : [];
  for (const v of vs) if ('ast' in v) costDigits(v.ast);
}

/**
 * The degree rule: `45^\circ` against a bare value is compared as the number 45, then as the angle
 * 45·π/180 (`\frac{\pi}{4}`); unequal only when both readings are refuted.
 */
function withDegrees(pred: Answer, gold: Answer, domain: Domain): { outcome: Outcome; degrees?: 'as_number' | 'as_radians' } {
  const asNumber = compareShapes(pred.shape, gold.shape, domain);
  const one = (pred.radians !== undefined) !== (gold.radians !== undefined) && (pred.unit === null || gold.unit === null);
  if (!one || asNumber.equal === true) return { outcome: asNumber, ...(one ? { degrees: 'as_number' as const } : {}) };
  const asRadians = compareShapes(pred.radians ?? pred.shape, gold.radians ?? gold.shape, domain);
  if (asRadians.equal === true) return { outcome: asRadians, degrees: 'as_radians' };
  if (asNumber.equal === false && asRadians.equal === false) return { outcome: asNumber };
  return { outcome: asNumber.equal === 'undecided' ? asNumber : asRadians };
}

/** the percent rule: `50\%` against 0.5 is compared as 50/100; against 50, as 50 with a unit */
function withPercent(pred: Answer, gold: Answer, domain: Domain): { outcome: Outcome; percent?: 'as_fraction' | 'as_unit'; degrees?: 'as_number' | 'as_radians' } {
  if (pred.percent === gold.percent) return withDegrees(pred, gold, domain);
  const asFraction = compareShapes(pred.fraction ?? pred.shape, gold.fraction ?? gold.shape, domain);
  if (asFraction.equal === true) return { outcome: asFraction, percent: 'as_fraction' };
  const asUnit = compareShapes(pred.shape, gold.shape, domain);
  if (asUnit.equal === true) return { outcome: asUnit, percent: 'as_unit' };
  // both readings must fail to call the pair unequal
  if (asFraction.equal === false && asUnit.equal === false) return { outcome: asUnit };
  return { outcome: asFraction.equal === 'undecided' ? asFraction : asUnit };
}

/**
 * Answer equivalence (`expected`): the final answer taken from `expression` by the extraction
 * rules, compared with `expected` as numbers, sets, intervals, tuples, expressions or text.
 */
export function answerCheck(req: AnswerRequest, normalized: string): DiagnosticResult {
  const found = extractAnswer(req.expression, req.decimalSeparator);
  const goldText = lastBoxed(req.expected) ?? req.expected;
  const read = readAnswer(found.text, req.decimalSeparator, 'answer');
  const gold = readAnswer(goldText, req.decimalSeparator, 'expected');
  const pred = gold.shape.kind === 'equation' && read.asEquation ? read.asEquation : read;
  costs(pred.shape);
  costs(gold.shape);
  const base = {
    answer: found.text.trim().slice(0, 500),
    answer_source: found.source,
    answer_read_as: showShape(pred.shape) + (pred.percent ? '%' : ''),
    expected_read_as: showShape(gold.shape) + (gold.percent ? '%' : ''),
  };
  if (pred.unit !== null && gold.unit !== null && pred.unit !== gold.unit) {
    const msg = `The answers carry different units ('${pred.unit.slice(0, 40)}' and '${gold.unit.slice(0, 40)}'): units are not converted.`;
    return unverifiable(msg, { is_valid: false, is_correct: false, ...base, message: msg });
  }
  // a percentage against a unit (`\$5` and `5\%`): percent is itself a unit there
  const other = pred.percent && !gold.percent ? gold : gold.percent && !pred.percent ? pred : null;
  if (other && other.unit !== null) {
    const msg = `The answers carry different units ('%' and '${other.unit.slice(0, 40)}'): units are not converted.`;
    return unverifiable(msg, { is_valid: false, is_correct: false, ...base, message: msg });
  }
  const unit = pred.unit ?? gold.unit;
  if (req.tolerance !== undefined && req.tolerance !== null) return toleranceCheck(req, normalized, pred, gold, base);
  const { outcome, percent, degrees } = withPercent(pred, gold, req.domain);
  const params = { context: { domain: req.domain, decimal_separator: req.decimalSeparator }, expected: normalizeMathInput(req.expected) };
  const extra = { ...(percent ? { percent } : {}), ...(degrees ? { degrees } : {}), ...(unit !== null ? { unit } : {}) };
  if (outcome.equal === 'undecided') {
    return blocked('The answers agree only numerically, which is not a proof of equality.', C.numericOnly, {
      is_valid: false, is_correct: false, is_equivalent: false, ...base, message: outcome.reason,
    });
  }
  const evidence = (result: Record<string, unknown>) => ({ engine: ENGINE_NAME, engine_version: ENGINE_VERSION, input: normalized, parameters: params, result });
  if (outcome.equal) {
    const msg = `The answer equals the expected answer (as ${outcome.form === 'number' ? 'numbers' : outcome.form === 'symbolic' ? 'expressions' : `${outcome.form}s`}).`;
    const fields = { is_valid: true, is_correct: true, equivalence: outcome.form, methods: outcome.methods, ...base, ...extra, message: msg };
    return verified(msg, fields, evidence({ is_correct: true, equivalence: outcome.form, ...extra }));
  }
  const msg = `The answer differs from the expected answer: ${outcome.reason}.`;
  const fields = { is_valid: false, is_correct: false, equivalence: null, compared_as: outcome.form, ...base, ...extra, message: msg };
  return verified(msg, fields, evidence({ is_correct: false, compared_as: outcome.form, reason: outcome.reason }));
}

/** `tolerance` with `expected`: both answers numbers, the expected one a decimal, the rules of expected_value */
function toleranceCheck(req: AnswerRequest, normalized: string, pred: Answer, gold: Answer, base: Record<string, unknown>): DiagnosticResult {
  const decimal = gold.shape.kind === 'value' && /^-?\d+(\.\d+)?$/.test(gold.shape.v.plain.replace(/^-\((.*)\)$/, '-$1'));
  if (pred.shape.kind !== 'value' || !('ast' in pred.shape.v) || !decimal || pred.percent || gold.percent) {
    throw new MathRefusal(C.invalidTolerance, 'tolerance with expected applies only to a numeric answer and a decimal expected answer.', { is_correct: false, error: 'invalid_tolerance' });
  }
  const ast = pred.shape.v.ast;
  const ex = exact(ast, null, req.domain);
  const ap = ex ? null : approximate(ast, null, req.domain);
  const goldPlain = (gold.shape as { v: { plain: string } }).v.plain.replace(/^-\((.*)\)$/, '-$1');
  const out = checkExpected({ exact: ex, approx: ap, checked: checkedValue(ast, ex, ap) }, goldPlain, req.tolerance, req.exactTolerance !== undefined ? { tolerance: req.exactTolerance } : {});
  const msg = out.is_correct ? 'The answer matches the expected answer within tolerance.' : 'The answer does not match the expected answer within tolerance.';
  const fields = { ...base, ...out, is_valid: out.is_correct, equivalence: out.is_correct ? 'number' : null, message: msg };
  const params = { context: { domain: req.domain, decimal_separator: req.decimalSeparator }, expected: normalizeMathInput(req.expected), tolerance: out.tolerance };
  return verified(msg, fields, { engine: ENGINE_NAME, engine_version: ENGINE_VERSION, input: normalized, parameters: params, result: { is_correct: out.is_correct, calculated_value: out.calculated_value, difference: out.difference } });
}
