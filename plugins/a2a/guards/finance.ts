import { Decimal } from 'decimal.js';
import { exactAt, exactOf, exactSourceOf, isExactNumber, numbersFitDoubles, parseExactJson } from '../../../core/json/exact.js';
import { unverifiable, type Guard, type GuardOutcome } from './types.js';

/**
 * finance_guard: recomputes an invoice total with exact decimals. Sum of amount × quantity over
 * payload.data.line_items (quantity defaults to 1 and must be finite and ≥ 0), both the sum and
 * payload.data.claimed_total rounded half-up to 0.01, blocked when they differ by more than 0.01.
 * Numbers are read exactly as written (issue 12, item 3): JSON numbers from the body's text through
 * core/json/exact.ts (never through a double), numeric strings as they are. A plain JS number
 * that may already have lost digits (a payload that did not come from a bound request body) is
 * unverifiable rather than trusted.
 */
export const FINANCE_TOLERANCE = '0.01';

// Inputs are capped (NUMBER_TEXT_MAX characters, decimal exponents within ±EXPONENT_MAX), so every
// product has at most 2·NUMBER_TEXT_MAX digits between 10^±(2·EXPONENT_MAX + 2·NUMBER_TEXT_MAX) and
// any sum spans fewer than PRECISION digits: no operation below ever rounds. 1e999, -1e-999 and
// 400-digit integers — all outside the double range or precision — are compared exactly.
const NUMBER_TEXT_MAX = 1000;
const EXPONENT_MAX = 10_000;
const PRECISION = 4 * EXPONENT_MAX + 4 * NUMBER_TEXT_MAX + 100;
const Dec = Decimal.clone({ precision: PRECISION, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -9e15, toExpPos: 9e15 });
type Dec = InstanceType<typeof Dec>;

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TOLERANCE = new Dec(FINANCE_TOLERANCE);
// decimal.js values are immutable (every operation returns a new one), so constants are shared
const ZERO = new Dec(0);
const ONE = new Dec(1);
/** at most this many line items are summed inline on the event loop; larger invoices go to a worker */
export const FINANCE_INLINE_ITEMS = 1000;
/** a bound body larger than this is re-read exactly in a worker, not on the event loop */
export const FINANCE_INLINE_BYTES = 64 * 1024;
/** doubles hold every integer up to 2^53 and 15 significant digits exactly */
const DOUBLE_EXACT_DIGITS = 15;

/**
 * An exact number (core ExactNumber), a numeric string, or a JS number that is certainly what was
 * written (≤ 15 significant digits) → exact Decimal; null when it is not a usable number.
 */
export function toDecimal(v: unknown): Dec | null {
  let text: string;
  if (isExactNumber(v)) text = v.text;
  else if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    text = String(v);
    // an integer below 10^15 has at most 15 digits: the digit count below can only agree
    if (!(Number.isInteger(v) && Math.abs(v) < 1e15) && text.replace(/^-|e.*$|\./gi, '').replace(/^0+/, '').replace(/0+$/, '').length > DOUBLE_EXACT_DIGITS) return null;
  } else if (typeof v === 'string') text = v;
  else return null;
  if (text.length > NUMBER_TEXT_MAX || !NUMERIC.test(text)) return null;
  const d = new Dec(text);
  if (!d.isFinite() || (!d.isZero() && Math.abs(d.e) > EXPONENT_MAX)) return null;
  return d;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The one currency an invoice is in, or why it has none. Amounts in different currencies cannot be
 * added without a rate, so an invoice whose `currency` fields (on `data` and on each item; an item
 * without one is in the invoice's) disagree is unverifiable rather than summed as one. Codes are
 * compared case-insensitively ("usd" is USD); no `currency` anywhere is one implied currency.
 */
function invoiceCurrency(data: Record<string, unknown>, items: unknown[]): { problem: string; line_item?: number } | null {
  const code = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim().toUpperCase() : null);
  let currency: string | null = null;
  if ('currency' in data) {
    currency = code(data.currency);
    if (!currency) return { problem: 'payload.data.currency is not a currency code' };
  }
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isRecord(item) || !('currency' in item)) continue;
    const own = code(item.currency);
    if (!own) return { problem: `line_items[${i}].currency is not a currency code`, line_item: i };
    if (currency === null) currency = own;
    else if (own !== currency) return { problem: `line_items[${i}] is in ${own}, not ${currency}: amounts in different currencies cannot be summed`, line_item: i };
  }
  return null;
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
  const mixed = invoiceCurrency(data, items);
  if (mixed) return unverifiable(mixed.problem, mixed.line_item === undefined ? undefined : { line_item: mixed.line_item });

  // the first compared JSON number a double does not hold as written (see `rfc8785Reads`)
  let unsigned: string | null = rfc8785Reads(data.claimed_total, claimed) ? null : 'claimed_total';
  let sum: Dec = ZERO;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (!isRecord(item)) return unverifiable(`line_items[${i}] is not an object`, { line_item: i });
    if ('description' in item && typeof item.description !== 'string') {
      return unverifiable(`line_items[${i}].description is not a string`, { line_item: i });
    }
    const amount = toDecimal(item.amount);
    if (!amount) return unverifiable(`line_items[${i}].amount is missing or not a number`, { line_item: i });
    const quantity = item.quantity === undefined ? ONE : toDecimal(item.quantity);
    if (!quantity) return unverifiable(`line_items[${i}].quantity is not a number`, { line_item: i });
    if (quantity.isNegative() && !quantity.isZero()) return unverifiable(`line_items[${i}].quantity is negative`, { line_item: i });
    if (!unsigned && !rfc8785Reads(item.amount, amount)) unsigned = `line_items[${i}].amount`;
    if (!unsigned && item.quantity !== undefined && !rfc8785Reads(item.quantity, quantity)) unsigned = `line_items[${i}].quantity`;
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
  if (unsigned) {
    return unverifiable(`${unsigned} is a JSON number a double cannot hold as written: the verdict's RFC 8785 sub could not commit to it; send it as a string`, details);
  }
  return { status: 'forwarded', reason: 'Claimed total matches the line items', details };
}

/**
 * Whether the verdict's `sub` (RFC 8785, which reads JSON numbers as doubles) commits to the value
 * compared. A JSON number such as 9007199254740993 hashes as 9007199254740992, so a verdict that
 * the total matches would equally cover a variant claiming one unit less. Numeric strings are
 * hashed as written; a JSON number passes when its double is its exact value.
 */
function rfc8785Reads(raw: unknown, value: Dec): boolean {
  if (!isExactNumber(raw)) return true;
  const n = Number(raw.text);
  return Number.isFinite(n) && new Dec(String(n)).equals(value);
}

/** What a worker is handed: the plain payload, or the body's text and the payload's path in it. */
export type FinanceTask = { payload: Record<string, unknown> } | { raw: string; path: ReadonlyArray<string | number> };

/** Worker side: re-reads a bound body exactly, then checks. */
export function checkFinanceTask(task: FinanceTask): GuardOutcome {
  if ('payload' in task) return checkFinancialPayload(task.payload);
  const exact = exactAt(parseExactJson(task.raw), task.path);
  return isRecord(exact) ? checkFinancialPayload(exact) : unverifiable('payload is not an object');
}

/**
 * The payload with its numbers as written: re-read from the bound body, unless every number of that
 * body fits a double (then the kernel's JSON.parse was already lossless and a second parse is waste).
 */
function exactPayload(payload: unknown): unknown {
  const src = exactSourceOf(payload);
  if (src) return numbersFitDoubles(src.raw) ? payload : exactOf(payload);
  // the proxy wraps a bound data part as {data}: the part itself carries the exact source
  if (!isRecord(payload)) return payload;
  const dataSrc = exactSourceOf(payload.data);
  if (!dataSrc || numbersFitDoubles(dataSrc.raw)) return payload;
  const data = exactOf(payload.data);
  return data !== undefined ? { ...payload, data } : payload;
}

/**
 * Small invoices are checked inline (microseconds); a large one — many items, or a bound body past
 * FINANCE_INLINE_BYTES whose exact re-read would take milliseconds — goes to `offload` (the worker pool).
 * A payload bound to its request body (core bindExact) is read with exact numbers.
 */
export function createFinanceGuard(offload?: (task: FinanceTask) => Promise<GuardOutcome>): Guard {
  return {
    name: 'finance_guard',
    check(payload) {
      const src = exactSourceOf(payload);
      if (src && offload && src.raw.length > FINANCE_INLINE_BYTES) {
        return offload({ raw: typeof src.raw === 'string' ? src.raw : src.raw.toString('utf8'), path: src.path });
      }
      const exact = exactPayload(payload);
      if (!isRecord(exact)) return unverifiable('payload is not an object');
      const items = isRecord(exact.data) ? exact.data.line_items : undefined;
      if (offload && Array.isArray(items) && items.length > FINANCE_INLINE_ITEMS) {
        return offload(src ? { raw: typeof src.raw === 'string' ? src.raw : src.raw.toString('utf8'), path: src.path } : { payload });
      }
      return checkFinancialPayload(exact);
    },
  };
}
