import type { AttestationRecord, StoredStatus } from '../attestation/index.js';
import { commitmentHolds, SEAL_TYP, sealedHash, type VcDocument } from './document.js';

/** What resolving needs from the attestation plugin; both absent without it (nothing resolves). */
export interface ResolveDeps {
  /** the payload of a statement of type `typ` signed by a key the service accepts now, or null */
  verifyStatement?: (typ: string, jws: unknown) => Promise<Record<string, unknown> | null>;
  /** any organisation's attestation with its current status, or null */
  attestation?: (id: string) => Promise<{ status: StoredStatus; record: AttestationRecord } | null>;
}

export type UnresolvedReason =
  | 'commitment'
  | 'no_seal'
  | 'bad_seal'
  | 'seal_mismatch'
  | 'unknown_attestation'
  | 'attestation_not_valid'
  | 'attestation_mismatch';

/**
 * Why a document does not resolve, or null when it does. In order: the proof_ref commitment (the
 * spec's check); the seal, signed by a key this service accepts now over this very document (so a
 * forged or edited document with a recomputed proof_ref fails, as does one of a previous ephemeral
 * key); then the attestation the document rests on: it must exist, be VALID now (not revoked, not
 * expired, its key still accepted), and say what the document says — same statement, same proof,
 * and no ADMIT for a claim the attestation records as not holding. The seal is checked before the
 * store is read, so an unsealed document cannot probe for attestation ids.
 */
export async function whyUnresolved(doc: unknown, deps: ResolveDeps): Promise<UnresolvedReason | null> {
  if (!commitmentHolds(doc)) return 'commitment';
  const d = doc as VcDocument;
  const ev = d.context.proof.evidence;
  if (typeof ev.seal !== 'string') return 'no_seal';
  const payload = deps.verifyStatement ? await deps.verifyStatement(SEAL_TYP, ev.seal) : null;
  if (!payload) return 'bad_seal';
  if (payload.document_hash !== sealedHash(d)) return 'seal_mismatch';
  const att = ev.attestation_id && deps.attestation ? await deps.attestation(ev.attestation_id) : null;
  if (!att) return 'unknown_attestation';
  if (att.status !== 'VALID') return 'attestation_not_valid';
  const r = att.record;
  const admitted = d.context.decision.admission === 'ADMIT';
  if (r.query_hash !== d.object.statement_hash || r.proof_hash !== ev.diagnostic_proof_ref || r.result.status !== 'VERIFIED' || (admitted && r.result.verified !== true)) {
    return 'attestation_mismatch';
  }
  return null;
}

/** `POST /verification-context/resolve`: true only for a document this service issued whose attestation still stands. */
export async function resolveDocument(doc: unknown, deps: ResolveDeps): Promise<boolean> {
  return (await whyUnresolved(doc, deps)) === null;
}
