import { unverifiable, type Guard, type GuardOutcome } from './types.js';

/**
 * logic_guard: a claim that is both asserted and negated in one message is a contradiction.
 * Claims are compared after Unicode NFC normalisation, trimming and collapsing runs of whitespace
 * (so `"x  > 1"` and `"x > 1"` are one claim); case is significant. Contradictions are listed
 * sorted by UTF-16 code units, each once.
 */
export const MAX_ASSERTIONS = 10_000;

export function normaliseClaim(claim: string): string {
  return claim.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

export function checkLogicPayload(payload: Record<string, unknown>): GuardOutcome {
  const list = payload.assertions;
  if (list === undefined) return unverifiable('payload.assertions is missing');
  if (!Array.isArray(list)) return unverifiable('payload.assertions is not a list');
  if (list.length === 0) return unverifiable('payload.assertions is empty');
  if (list.length > MAX_ASSERTIONS) return unverifiable(`payload.assertions has more than ${MAX_ASSERTIONS} entries`);

  const asserted = new Set<string>();
  const negated = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const a: unknown = list[i];
    if (typeof a !== 'object' || a === null || Array.isArray(a)) return unverifiable(`assertions[${i}] is not an object`, { assertion: i });
    const { claim, negated: neg } = a as { claim?: unknown; negated?: unknown };
    if (typeof claim !== 'string') return unverifiable(`assertions[${i}].claim is not a string`, { assertion: i });
    if (typeof neg !== 'boolean') return unverifiable(`assertions[${i}].negated is not a boolean`, { assertion: i });
    const c = normaliseClaim(claim);
    if (c === '') return unverifiable(`assertions[${i}].claim is empty`, { assertion: i });
    (neg ? negated : asserted).add(c);
  }

  const contradictions = [...asserted].filter((c) => negated.has(c)).sort();
  const details = { assertions: list.length, contradictions };
  if (contradictions.length) {
    return { status: 'blocked', reason: `Contradictory assertions: ${contradictions.join('; ')}`, details };
  }
  return { status: 'forwarded', reason: 'No claim is both asserted and negated', details };
}

export const logicGuard: Guard = { name: 'logic_guard', check: checkLogicPayload };
