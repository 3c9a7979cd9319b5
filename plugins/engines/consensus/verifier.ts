import { Decimal } from 'decimal.js';
import type { Principal, Verifier } from '../../../core/types.js';
import { blocked, reviveDiagnostic, verified, unverifiable, type DiagnosticResult } from '../../../core/verdict.js';
import { HttpError } from '../../../core/errors.js';
import { C, ConsensusProblems } from './errors.js';
import type { Candidate } from './select.js';

export const CONSENSUS_VERSION = '1.0.0';

export interface ChainEntry {
  engine: string;
  method: string;
  result: string;
  confidence: number;
  latency_ms: number;
  success: boolean;
  status: DiagnosticResult['status'];
  proof_ref: string | null;
  constraint_id?: string;
}

export interface ConsensusResult {
  final_answer: string;
  confidence: number;
  engines_used: number;
  agreement_status: 'unanimous' | 'majority' | 'split' | 'no_verified_result';
  verification_chain: ChainEntry[];
  total_latency_ms: number;
  meets_requirement: boolean;
  diagnostic: DiagnosticResult;
}

/** What an engine's verdict answers, as text: the proven truth value, a computed value, or the refusal. */
function answerOf(d: DiagnosticResult): string {
  const f = d.developer_fields;
  if (d.status === 'VERIFIED') return typeof f.is_valid === 'boolean' ? String(f.is_valid) : 'verified';
  if (d.status === 'BLOCKED') return `BLOCKED: ${String(f.constraint_id ?? 'unknown')}`;
  const v = f.value_exact ?? f.value;
  return v === undefined || v === null ? 'UNVERIFIABLE' : String(v);
}

/** 503: a chosen engine cannot run now (its pool or sandbox is down); a retry may land elsewhere */
export function unavailable(engines: string[]): HttpError {
  return new HttpError(ConsensusProblems.engineUnavailable, `engine unavailable: ${engines.join(', ')}.`, {
    constraintId: C.engineUnavailable,
    headers: { 'retry-after': '5' },
  });
}

const ms = (start: bigint) => new Decimal((process.hrtime.bigint() - start).toString()).div(1e6).toDecimalPlaces(3).toNumber();

/**
 * Runs every chosen engine concurrently under ONE deadline for the whole consensus: an engine that
 * has not answered when it passes is recorded as BLOCKED (`consensus.deadline_exceeded`) and its
 * work is aborted through the signal. An engine that throws is BLOCKED too (fail closed), except a
 * 503 HttpError, which the caller turns into the endpoint's 503.
 */
export async function runEngines(
  chosen: Array<Candidate & { verifier: Verifier }>,
  opts: { deadlineMs: number; signal?: AbortSignal; principal?: Principal | null },
): Promise<ChainEntry[]> {
  const ac = new AbortController();
  const onOuter = () => ac.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onOuter, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), opts.deadlineMs);
  });
  try {
    return await Promise.all(
      chosen.map(async (c): Promise<ChainEntry> => {
        const start = process.hrtime.bigint();
        const entry = (d: DiagnosticResult): ChainEntry => {
          const e: ChainEntry = {
            engine: c.engine,
            method: c.method,
            result: answerOf(d),
            confidence: d.status === 'VERIFIED' ? 100 : 0,
            latency_ms: ms(start),
            success: d.status === 'VERIFIED',
            status: d.status,
            proof_ref: d.proof_ref,
          };
          if (typeof d.developer_fields.constraint_id === 'string') e.constraint_id = d.developer_fields.constraint_id;
          return e;
        };
        let outcome: DiagnosticResult | 'deadline';
        try {
          outcome = await Promise.race([c.verifier.verify(c.input, { signal: ac.signal, principal: opts.principal }).then(reviveDiagnostic), deadline]);
        } catch (err) {
          if ((err as { status?: number })?.status === 503) throw unavailable([c.engine]);
          outcome = blocked(`The ${c.engine} engine failed.`, C.engineError);
        }
        if (outcome === 'deadline') return entry(blocked(`The ${c.engine} engine missed the consensus deadline.`, C.deadline));
        return entry(outcome);
      }),
    );
  } finally {
    clearTimeout(timer);
    ac.abort(new Error('consensus finished'));
    opts.signal?.removeEventListener('abort', onOuter);
  }
}

/**
 * Aggregation. Confidence counts only engines whose VERIFIED verdict gives the winning answer:
 * confidence = 100 · agreeing / engines_used, in exact decimals (2 places). Only a unanimous set
 * of VERIFIED outcomes yields a VERIFIED consensus; a computed value or a refusal never adds
 * confidence, so advisory engines alone can never meet a requirement.
 */
export function aggregate(
  query: string,
  mode: string,
  chain: ChainEntry[],
  /** as written: the body's text of min_confidence when the route has it (core/json/exact.ts) */
  minConfidence: number | string,
  totalMs: number,
): ConsensusResult {
  const n = chain.length;
  const votes = new Map<string, ChainEntry[]>();
  for (const e of chain) if (e.status === 'VERIFIED') votes.set(e.result, [...(votes.get(e.result) ?? []), e]);
  const ranked = [...votes.entries()].sort((a, b) => b[1].length - a[1].length);
  const top = ranked[0];
  const tie = ranked.length > 1 && ranked[1][1].length === top[1].length;
  const agreeing = top && !tie ? top[1].length : 0;
  const confidence = n === 0 ? 0 : new Decimal(agreeing).times(100).div(n).toDecimalPlaces(2).toNumber();
  const unanimous = agreeing === n && n > 0;
  const agreement_status: ConsensusResult['agreement_status'] =
    votes.size === 0 ? 'no_verified_result' : unanimous ? 'unanimous' : agreeing * 2 > n ? 'majority' : 'split';
  const final_answer = top && !tie ? top[0] : votes.size === 0 ? (chain[0]?.result ?? 'UNVERIFIABLE') : 'NO_CONSENSUS';
  // exact: agreeing / n ≥ min_confidence, never the 2-place rounded percentage against a double
  const Exact = Decimal.clone({ precision: String(minConfidence).length + 20 });
  const meets = agreeing > 0 && new Exact(agreeing).gte(new Exact(minConfidence).times(n));
  const fields: Record<string, unknown> = {
    mode,
    engines: chain.map((e) => e.engine),
    agreement_status,
    confidence_exact: new Decimal(agreeing).times(100).div(n || 1).toString(),
  };
  let diagnostic: DiagnosticResult;
  if (unanimous) {
    if (final_answer === 'true' || final_answer === 'false') fields.is_valid = final_answer === 'true';
    diagnostic = verified(`All ${n} engines proved the same answer: ${final_answer}.`, fields, {
      engine: 'consensus',
      engine_version: CONSENSUS_VERSION,
      input: { query },
      parameters: { mode, engines: chain.map((e) => e.engine) },
      result: { final_answer, proofs: chain.map((e) => e.proof_ref) },
    });
  } else if (chain.some((e) => e.constraint_id === C.deadline) && votes.size === 0) {
    diagnostic = blocked('No engine reached a verdict within the consensus deadline.', C.deadline, fields);
  } else {
    diagnostic = unverifiable(
      votes.size === 0 ? 'No engine proved an answer.' : `Engines did not unanimously prove one answer (${agreement_status}).`,
      fields,
    );
  }
  return { final_answer, confidence, engines_used: n, agreement_status, verification_chain: chain, total_latency_ms: totalMs, meets_requirement: meets, diagnostic };
}
