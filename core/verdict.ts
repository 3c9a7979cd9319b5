import { sha256Ref, SHA256_REF } from './json/canonical.js';

/**
 * The unified verdict (spec: DiagnosticResult). The proof_ref invariant lives only here:
 * a VERIFIED result can only be built from the evidence of what was proven, and its proof_ref is
 * derived from that evidence; every other status carries proof_ref null. Results are frozen so no
 * later step can flip a status without going through these constructors again.
 */
export type Status = 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
export type Admission = 'ADMIT' | 'BLOCKED' | 'DENY';

declare const diagnosticBrand: unique symbol;

export interface DiagnosticResult {
  readonly status: Status;
  readonly agent_message: string;
  readonly developer_fields: Readonly<Record<string, unknown>>;
  readonly proof_ref: string | null;
  readonly admission?: Admission;
  /** compile-time brand: only the constructors below produce this type */
  readonly [diagnosticBrand]?: true;
}

/** What was proven. Binds engine, version, input, the parameters that changed the outcome, and the result. */
export interface Evidence {
  engine: string;
  engine_version: string;
  input: unknown;
  parameters?: unknown;
  result: unknown;
}

export function proofRefOf(evidence: Evidence): string {
  if (!evidence || typeof evidence.engine !== 'string' || !evidence.engine || typeof evidence.engine_version !== 'string') {
    throw new TypeError('evidence must name its engine and engine_version');
  }
  if (evidence.input === undefined || evidence.result === undefined) {
    throw new TypeError('evidence must bind an input and a result');
  }
  return sha256Ref({
    engine: evidence.engine,
    engine_version: evidence.engine_version,
    input: evidence.input,
    parameters: evidence.parameters ?? null,
    result: evidence.result,
  });
}

function make(
  status: Status,
  agent_message: string,
  developer_fields: Record<string, unknown>,
  proof_ref: string | null,
  admission?: Admission,
): DiagnosticResult {
  const d: Record<string, unknown> = {
    status,
    agent_message,
    developer_fields: Object.freeze({ ...developer_fields }),
    proof_ref,
  };
  if (admission !== undefined) d.admission = admission;
  return Object.freeze(d) as unknown as DiagnosticResult;
}

export function verified(
  agentMessage: string,
  fields: Record<string, unknown>,
  evidence: Evidence,
  admission?: Admission,
): DiagnosticResult {
  return make('VERIFIED', agentMessage, fields, proofRefOf(evidence), admission);
}

export function unverifiable(agentMessage: string, fields: Record<string, unknown> = {}, admission?: Admission): DiagnosticResult {
  return make('UNVERIFIABLE', agentMessage, fields, null, admission);
}

export function blocked(
  agentMessage: string,
  constraintId: string,
  fields: Record<string, unknown> = {},
  admission?: Admission,
): DiagnosticResult {
  return make('BLOCKED', agentMessage, { ...fields, constraint_id: constraintId }, null, admission);
}

/**
 * Runtime check for a DiagnosticResult that arrived from outside the constructors (a worker's
 * structured clone, a client's payload): returns the reason it is malformed, or null when sound.
 */
export function diagnosticProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const v = value as Record<string, unknown>;
  if (v.status !== 'VERIFIED' && v.status !== 'UNVERIFIABLE' && v.status !== 'BLOCKED') return 'status is not a DiagnosticResult status';
  if (typeof v.agent_message !== 'string') return 'agent_message must be a string';
  if (!v.developer_fields || typeof v.developer_fields !== 'object' || Array.isArray(v.developer_fields)) {
    return 'developer_fields must be an object';
  }
  if (v.status === 'VERIFIED') {
    if (typeof v.proof_ref !== 'string' || !SHA256_REF.test(v.proof_ref)) return 'VERIFIED requires a sha256 proof_ref';
  } else if (v.proof_ref !== null && v.proof_ref !== undefined) {
    return 'proof_ref must be null unless VERIFIED';
  }
  if (v.admission !== undefined && v.admission !== 'ADMIT' && v.admission !== 'BLOCKED' && v.admission !== 'DENY') {
    return 'admission is not ADMIT, BLOCKED or DENY';
  }
  return null;
}

/** Re-brands a DiagnosticResult received across a worker boundary, after checking its invariant. */
export function reviveDiagnostic(value: unknown): DiagnosticResult {
  const problem = diagnosticProblem(value);
  if (problem) throw new TypeError(`malformed DiagnosticResult: ${problem}`);
  const v = value as DiagnosticResult;
  // make() copies developer_fields before freezing them: the received object is never the one kept
  return make(v.status, v.agent_message, v.developer_fields as Record<string, unknown>, v.status === 'VERIFIED' ? v.proof_ref : null, v.admission);
}

const RESERVED = new Set(['status', 'agent_message', 'developer_fields', 'proof_ref', 'admission']);

/**
 * Wire layout (decisions §2): the DiagnosticResult at the top level, and the legacy flat fields of
 * developer_fields copied beside it for older clients. `extra` adds endpoint fields (e.g. attestation).
 */
export function diagnosticBody(d: DiagnosticResult, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d.developer_fields)) if (!RESERVED.has(k)) body[k] = v;
  Object.assign(body, extra);
  body.status = d.status;
  body.agent_message = d.agent_message;
  body.developer_fields = d.developer_fields;
  body.proof_ref = d.proof_ref;
  if (d.admission !== undefined) body.admission = d.admission;
  return body;
}

/**
 * The wire body of a reply that carries a verdict (decisions §2): `flat` is diagnosticBody with the
 * reply's body as the endpoint fields; `nested` keeps the endpoint's body and puts the verdict under
 * `diagnostic`. A reply without a verdict is returned as it is.
 */
export function renderVerdict<R extends { body?: unknown; verdict?: DiagnosticResult; layout?: 'flat' | 'nested' }>(reply: R): R {
  if (!reply.verdict) return reply;
  const fields = reply.body && typeof reply.body === 'object' && !Array.isArray(reply.body) ? (reply.body as Record<string, unknown>) : {};
  const body = reply.layout === 'nested' ? { ...fields, diagnostic: reply.verdict } : diagnosticBody(reply.verdict, fields);
  return { ...reply, body };
}
