import { Decimal } from 'decimal.js';
import { unverifiable, type Guard, type GuardOutcome } from './types.js';

/**
 * finance_guard: recomputes an invoice total with exact decimals. Sum of amount × quantity over
 * payload.data.line_items (quantity defaults to 1 and must be finite and ≥ 0), both the sum and
 * payload.data.claimed_total rounded half-up to 0.01, blocked when they differ by more than 0.01.
 * Numbers may be JSON numbers or numeric strings; strings are exact, JSON numbers carry whatever
 * precision JSON.parse kept (a double), so money past 15 significant digits should be sent as strings.
 */
export const FINANCE_TOLERANCE = '0.01';

// Inputs are capped (NUMBER_TEXT_MAX characters, exponents within ±EXPONENT_MAX), so every product and
// sum fits in PRECISION significant digits: no operation below ever rounds.
const NUMBER_TEXT_MAX = 100;
const EXPONENT_MAX = 100;
const Dec = Decimal.clone({ precision: 1000, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -1100, toExpPos: 1100 });
type Dec = InstanceType<typeof Dec>;

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TOLERANCE = new Dec(FINANCE_TOLERANCE);
/** at most this many line items are summed inline on the event loop; larger invoices go to a worker */
export const FINANCE_INLINE_ITEMS = 1000;

/** A JSON number or a numeric string → exact Decimal, or null when it is not a usable number. */
export function toDecimal(v: unknown): Dec | null {
  let d: Dec;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    d = new Dec(v);
  } else if (typeof v === 'string') {
    if (v.length > NUMBER_TEXT_MAX || !NUMERIC.test(v)) return null;
    d = new Dec(v);
  } else {
    return null;
  }
  if (!d.isFinite() || (!d.isZero() && Math.abs(d.e) > EXPONENT_MAX)) return null;
  return d;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The pure check: plain JSON in, outcome out (also runs in a worker for large invoices). */
export function checkFinancialPayload(payload: Record<string, unknown>): GuardOutcome {
  const data = payload.data;
  if (!isRecord(data)) return unverifiable('payload.data is missing or not an object');
  if (!('claimed_total' in data)) return unverifiable('payload.data.claimed_total is missing');
  const claimed = toDecimal(data.claimed_total);
  if (!claimed) return unverifiable('payload.data.claimed_total is not a number');
  const items = data.line_items;
  if (!Array.isArray(items)) return unverifiable('payload.data.line_items is missing or not a list');
  if (items.length === 0) return unverifiable('payload.data.line_items is empty');

  let sum = new Dec(0);
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (!isRecord(item)) return unverifiable(`line_items[${i}] is not an object`, { line_item: i });
    if ('description' in item && typeof item.description !== 'string') {
      return unverifiable(`line_items[${i}].description is not a string`, { line_item: i });
    }
    const amount = toDecimal(item.amount);
    if (!amount) return unverifiable(`line_items[${i}].amount is missing or not a number`, { line_item: i });
    const quantity = item.quantity === undefined ? new Dec(1) : toDecimal(item.quantity);
    if (!quantity) return unverifiable(`line_items[${i}].quantity is not a number`, { line_item: i });
    if (quantity.isNegative() && !quantity.isZero()) return unverifiable(`line_items[${i}].quantity is negative`, { line_item: i });
    sum = sum.plus(amount.times(quantity));
  }

  const computed = sum.toDecimalPlaces(2, Dec.ROUND_HALF_UP);
  const claimedRounded = claimed.toDecimalPlaces(2, Dec.ROUND_HALF_UP);
  const difference = computed.minus(claimedRounded).abs();
  const details = {
    claimed_total: claimedRounded.toFixed(2),
    computed_total: computed.toFixed(2),
    difference: difference.toFixed(2),
    tolerance: FINANCE_TOLERANCE,
    line_items: items.length,
  };
  if (difference.greaterThan(TOLERANCE)) {
    return { status: 'blocked', reason: `Claimed total ${details.claimed_total} does not match the computed total ${details.computed_total}`, details };
  }
  return { status: 'forwarded', reason: 'Claimed total matches the line items', details };
}

/** Small invoices are checked inline (microseconds); a large one is handed to `offload` (the worker pool). */
export function createFinanceGuard(offload?: (payload: Record<string, unknown>) => Promise<GuardOutcome>): Guard {
  return {
    name: 'finance_guard',
    check(payload) {
      const items = isRecord(payload.data) ? payload.data.line_items : undefined;
      if (offload && Array.isArray(items) && items.length > FINANCE_INLINE_ITEMS) return offload(payload);
      return checkFinancialPayload(payload);
    },
  };
}
