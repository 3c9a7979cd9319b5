import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { canonicalJson, clipText, sha256Hex, sha256Ref } from '../../core/json/canonical.js';
import { compileSchema } from '../../core/json/validate.js';
import type { DiagnosticResult, Status } from '../../core/verdict.js';
import type { VerificationContextDocument } from '../../schemas/gen/index.js';

/**
 * Verification Context v1.0 documents: built from a (gated) DiagnosticResult, validated against
 * schemas/verification-context/document.json plus the same invariants in code, carrying a proof_ref
 * that commits to every other byte of the document and, when VERIFIED, a seal: an ES256 JWS by the
 * service's attestation key over the rest of the document. proof_ref alone is a plain hash anyone
 * can recompute after editing; the seal is what says this service issued the document. The type is
 * the one generated from that schema (schemas/gen/verification-context.gen.ts).
 */
export type VcDocument = VerificationContextDocument;

export const SCHEMA_URL = new URL('../../../schemas/verification-context/document.json', import.meta.url);
// compiled on first use: importing the plugin (server start-up) should not pay for it. The offline
// CLI (`proofgate verify --format vc`) checks documents with no app, hence the kernel's factory.
let compiledCheck: ValidateFunction | undefined;
function schemaCheck(): ValidateFunction {
  compiledCheck ??= compileSchema(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as object);
  return compiledCheck;
}

/** JWS `typ` of a document seal. */
export const SEAL_TYP = 'svc-vc-seal+jws';

/** The document with the named members of context.proof.evidence removed (the members, not set to null). */
function without(doc: unknown, members: readonly string[]): unknown {
  const copy = structuredClone(doc) as { context?: { proof?: { evidence?: Record<string, unknown> } } };
  const ev = copy?.context?.proof?.evidence;
  if (ev && typeof ev === 'object') for (const m of members) delete ev[m];
  return copy;
}

/** proof_ref of a document: sha256 over the RFC 8785 form of the document without proof_ref (the seal included). */
export function documentProofRef(doc: unknown): string {
  return sha256Ref(without(doc, ['proof_ref']));
}

/**
 * What a seal signs: sha256 over the RFC 8785 form of the document without proof_ref and seal.
 * The seal cannot cover itself, and proof_ref is derived from everything else (seal included), so
 * the spec's proof_ref rule ("the document with proof_ref removed") holds unchanged.
 */
export function sealedHash(doc: unknown): string {
  return sha256Ref(without(doc, ['proof_ref', 'seal']));
}

export interface BuildInput {
  /** the diagnostic after the trust gate (its status is the verdict) */
  diagnostic: DiagnosticResult | null;
  /** the evaluated input, if the caller supplied it */
  query: unknown;
  verifier: string;
  version: string;
  attestationId: string | null;
  /** overrides the summary/constraint (malformed input, demotion) */
  summary?: string;
  constraintId?: string | null;
  /** signs a VERIFIED document's sealedHash (compact JWS); without it nothing is VERIFIED (fail closed) */
  seal?: (documentHash: string) => string;
}

/** The schema's bound on object.statement (schemas/verification-context/document.json). */
export const STATEMENT_MAX_CHARS = 65536;

/** The formal statement a query becomes: the string itself, or the canonical JSON of anything else. */
export function statementText(query: unknown): string | null {
  if (query === undefined || query === null) return null;
  try {
    return typeof query === 'string' ? query : canonicalJson(query);
  } catch {
    return null;
  }
}

function statementOf(query: unknown): { statement: string | null; statement_hash: string | null } {
  if (query === undefined || query === null) return { statement: null, statement_hash: null };
  try {
    return { statement: typeof query === 'string' ? query : canonicalJson(query), statement_hash: sha256Ref(query) };
  } catch {
    return { statement: null, statement_hash: null };
  }
}

/** The schema's bounds on the caller-supplied texts a document carries. */
export const SUMMARY_MAX_CHARS = 4096;
export const CONSTRAINT_ID_MAX_CHARS = 256;

export function buildDocument(b: BuildInput, verdict: Status): VcDocument {
  const d = b.diagnostic;
  const isVerified = verdict === 'VERIFIED' && d?.status === 'VERIFIED' && b.seal !== undefined;
  const st = statementOf(b.query);
  const raw = b.constraintId !== undefined ? b.constraintId : typeof d?.developer_fields.constraint_id === 'string' ? d.developer_fields.constraint_id : null;
  // the diagnostic is the caller's: its texts are clipped to what a document may hold, or the
  // service would hand out documents its own schema (and /validate, /resolve) refuses
  const cid = raw === null ? null : clipText(raw, CONSTRAINT_ID_MAX_CHARS);
  const doc: VcDocument = {
    spec_version: '1.0',
    object: { ...st, formalization: { source: st.statement === null ? 'none' : 'caller_supplied', verified: false } },
    context: {
      interpretation: { scope: 'formal_statement_only', summary: clipText(b.summary ?? d?.agent_message ?? '', SUMMARY_MAX_CHARS), constraint_id: cid },
      proof: {
        verifier: b.verifier,
        version: b.version,
        evidence: { proof_ref: null, diagnostic_proof_ref: isVerified ? d.proof_ref : null, attestation_id: isVerified ? b.attestationId : null, seal: null },
      },
      // truth is not admission: a claim proven false, or code proven unsafe, is VERIFIED and still
      // DENY (is_valid false; the trust gate has checked it against the attestation's signed `verified`)
      decision: { admission: isVerified && d.developer_fields.is_valid !== false && d.admission !== 'BLOCKED' && d.admission !== 'DENY' ? 'ADMIT' : 'DENY' },
    },
    verdict: isVerified ? 'VERIFIED' : verdict === 'VERIFIED' ? 'UNVERIFIABLE' : verdict,
  };
  if (doc.verdict === 'VERIFIED' && b.seal) {
    doc.context.proof.evidence.seal = b.seal(sealedHash(doc));
    doc.context.proof.evidence.proof_ref = documentProofRef(doc);
  }
  return doc;
}

export interface ValidationDetail {
  path: string;
  message: string;
}

/**
 * statement_hash is sha256Ref(query) and the statement is the query as text (a string as it is,
 * anything else as its canonical JSON), so the hash is one of two forms of the statement. It is the
 * only link from the attestation (svc.query_hash) to the statement: a document whose statement
 * does not hash to it says a statement was verified that the attestation never covered.
 */
function statementHashMatches(statement: string | null, hash: string | null): boolean {
  if (statement === null || hash === null) return statement === hash;
  try {
    if (hash === sha256Ref(statement)) return true;
    return canonicalJson(JSON.parse(statement)) === statement && hash === 'sha256:' + sha256Hex(statement);
  } catch {
    return false;
  }
}

/** Schema plus the invariants re-checked in code (the schema is one line of defence, not the only one). */
export function validateDocument(doc: unknown): ValidationDetail[] {
  const check = schemaCheck();
  if (!check(doc)) {
    return (check.errors ?? []).map((e) => ({
      path: e.instancePath || '/',
      message: `${e.message ?? 'invalid'}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
    }));
  }
  const d = doc as VcDocument;
  const out: ValidationDetail[] = [];
  const ev = d.context.proof.evidence;
  if (d.verdict === 'VERIFIED' && ev.proof_ref === null) out.push({ path: '/context/proof/evidence/proof_ref', message: 'VERIFIED requires a proof_ref' });
  if (d.verdict !== 'VERIFIED' && ev.proof_ref !== null) out.push({ path: '/context/proof/evidence/proof_ref', message: 'proof_ref is only allowed with VERIFIED' });
  if (d.verdict !== 'VERIFIED' && ev.seal !== undefined && ev.seal !== null) out.push({ path: '/context/proof/evidence/seal', message: 'a seal is only allowed with VERIFIED' });
  if (d.verdict !== 'VERIFIED' && d.context.decision.admission !== 'DENY') out.push({ path: '/context/decision/admission', message: 'a non-VERIFIED verdict must DENY' });
  if (!statementHashMatches(d.object.statement, d.object.statement_hash)) out.push({ path: '/object/statement_hash', message: 'is not the hash of the statement' });
  return out;
}

/**
 * true for a valid VERIFIED document whose proof_ref re-derives to the stored value: integrity only
 * (anyone can re-derive it after an edit). `resolve` also needs the seal and the attestation (resolve.ts).
 */
export function commitmentHolds(doc: unknown): boolean {
  if (validateDocument(doc).length) return false;
  const d = doc as VcDocument;
  if (d.verdict !== 'VERIFIED') return false;
  try {
    return d.context.proof.evidence.proof_ref === documentProofRef(d);
  } catch {
    return false;
  }
}
