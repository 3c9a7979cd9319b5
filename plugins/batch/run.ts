import type { App, Principal } from '../../core/types.js';
import { blocked, unverifiable, type DiagnosticResult } from '../../core/verdict.js';
import type { BatchItemResult } from '../../schemas/gen/index.js';
import { BatchConstraints } from './errors.js';
import { normalizeMathInput } from '../engines/math/index.js';
import { engineInput, verifierFor, type BatchItem } from './items.js';

/**
 * What the batch needs from the attestation plugin for math items (spec: math items pass the trust
 * gate with attestation required). Provided as the `attestation.batch` service; absent means no
 * signer, which fails closed exactly like a signing failure.
 */
export interface BatchAttestor {
  gate(
    diagnostic: DiagnosticResult,
    subject: { engine: string; query: string; org_id?: string | null },
  ): Promise<{ result: DiagnosticResult; attestation?: string; attestation_id?: string }>;
}

/**
 * One item's answer: schemas/batch/item-result.json, generated (schemas/gen/batch.gen.ts), holding
 * the kernel's DiagnosticResult (frozen, built only by core/verdict.ts) where the wire has its JSON
 * form (BatchDiagnostic, whose developer_fields json-schema-to-typescript spells `{}`).
 */
export type ItemResult = Omit<BatchItemResult, 'result'> & { result: DiagnosticResult };

/** Items run concurrently, a bounded number at a time so one batch cannot monopolise the engine pools. */
const CONCURRENCY = 8;

export async function runBatch(app: App, items: BatchItem[], principal: Principal | null, signal: AbortSignal): Promise<ItemResult[]> {
  const out: ItemResult[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await runItem(app, items[index], index, principal, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return out;
}

async function runItem(app: App, item: BatchItem, index: number, principal: Principal | null, signal: AbortSignal): Promise<ItemResult> {
  const type = item.type ?? 'natural_language';
  const base = { index, type, query: item.query };
  const verifier = verifierFor((n) => app.service(n), type);
  if (!verifier) {
    return { ...base, result: blocked(`No ${type} engine is available on this server.`, BatchConstraints.engineUnavailable, { is_valid: false }) };
  }
  let result: DiagnosticResult;
  try {
    result = await verifier.verify(engineInput(type, item), { signal, principal });
  } catch (err) {
    app.log.warn({ err, type, index }, 'batch item failed');
    return { ...base, result: blocked('This item could not be verified.', BatchConstraints.itemFailed, { is_valid: false }) };
  }
  if (type !== 'math' || result.status !== 'VERIFIED') return { ...base, result };
  const attestor = app.service('attestation.batch');
  if (!attestor) return { ...base, result: signingFailed() };
  try {
    // the attestation binds the evaluated input, as POST /verify/math's does: the engine proves the
    // normalised, trimmed expression, so `２+２=4` and ` 2+2=4` share the query_hash of `2+2=4`
    const query = normalizeMathInput(item.query);
    const gated = await attestor.gate(result, { engine: 'math', query, org_id: principal?.orgId ?? null });
    return {
      ...base,
      result: gated.result,
      ...(gated.attestation ? { attestation: gated.attestation } : {}),
      ...(gated.attestation_id ? { attestation_id: gated.attestation_id } : {}),
    };
  } catch (err) {
    app.log.error({ err, index }, 'batch attestation failed');
    return { ...base, result: signingFailed() };
  }
}

/** Spec: a math item whose attestation cannot be signed is UNVERIFIABLE; is_valid never stays true. */
function signingFailed(): DiagnosticResult {
  return unverifiable('No attestation could be issued for this result.', { is_valid: false, constraint_id: BatchConstraints.signingError });
}
