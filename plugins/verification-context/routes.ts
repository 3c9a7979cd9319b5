import { decodeJwt } from 'jose';
import { sha256Ref } from '../../core/json/canonical.js';
import type { App, RequestContext } from '../../core/types.js';
import { diagnosticProblem, reviveDiagnostic, type DiagnosticResult } from '../../core/verdict.js';
import { SERVICE_VERSION } from '../../core/version.js';
import { ATTESTATION_SIGNER_SERVICE, trustGate, type AttestationService, type StatementSigner, type VerifyOutcome } from '../attestation/index.js';
import { buildDocument, SEAL_TYP, statementText, STATEMENT_MAX_CHARS, validateDocument } from './document.js';
import { whyUnresolved } from './resolve.js';
import { HttpError, Problems } from '../../core/errors.js';

const S = 'https://proofgate.dev/schemas/verification-context';
export const MALFORMED_DIAGNOSTIC = 'verification_context.malformed_diagnostic';
/** A VERIFIED result the service cannot seal (no attestation key): not a document it can stand behind. */
export const SEAL_UNAVAILABLE = 'verification_context.seal_unavailable';

interface FromDiagnosticBody {
  diagnostic?: unknown;
  attestation_token?: string;
  query?: unknown;
  verifier?: string;
}

function hashOrNull(v: unknown): string | null {
  if (v === undefined) return null;
  try {
    return sha256Ref(v);
  } catch {
    return null;
  }
}

/** With no attestation plugin loaded nothing can be verified: every token is refused (fail closed). */
const refuseAll = async (): Promise<VerifyOutcome> => ({ ok: false, reason: 'unknown_key' });

async function fromDiagnostic(app: App, ctx: RequestContext) {
  const b = ctx.body as FromDiagnosticBody;
  // a statement the document cannot hold is the caller's error, not a document to build
  if ((statementText(b.query)?.length ?? 0) > STATEMENT_MAX_CHARS) {
    const field = { field: '/body/query', message: `must be at most ${STATEMENT_MAX_CHARS} characters as a statement` };
    throw new HttpError(Problems.validation, `${field.field}: ${field.message}`, { errors: [field] });
  }
  const raw = b.diagnostic as Record<string, unknown> | undefined;
  const verifier = b.verifier ?? 'proofgate';
  const base = { query: b.query, verifier, version: SERVICE_VERSION, attestationId: null };
  const problem = diagnosticProblem(raw);
  if (problem) {
    ctx.log.info({ event: 'verification_context.malformed_diagnostic', problem }, 'malformed diagnostic converted to BLOCKED');
    return buildDocument({ ...base, diagnostic: null, summary: 'The diagnostic is malformed', constraintId: MALFORMED_DIAGNOSTIC }, 'BLOCKED');
  }
  const r = raw as Record<string, unknown>;
  const diagnostic: DiagnosticResult = reviveDiagnostic({
    status: r.status,
    agent_message: r.agent_message,
    developer_fields: r.developer_fields,
    proof_ref: r.proof_ref,
    admission: r.admission,
  });
  // the spec lets the token ride inside the diagnostic payload; a top-level one wins
  const token = b.attestation_token ?? (typeof r.attestation_token === 'string' ? r.attestation_token : undefined);
  const service = app.service('attestation');
  const gated = await trustGate(diagnostic, {
    token,
    required: true,
    expected: { query_hash: hashOrNull(b.query), proof_ref: diagnostic.proof_ref, status: 'VERIFIED' },
    verify: service ? (t) => service.verify(t) : refuseAll,
    log: ctx.log,
  });
  if (diagnostic.status === 'VERIFIED' && gated.status !== 'VERIFIED') {
    // spec: a VERIFIED diagnostic without a valid attestation token is demoted, not BLOCKED
    return buildDocument(
      { ...base, diagnostic: gated, summary: 'The result is not backed by a valid attestation', constraintId: String(gated.developer_fields.constraint_id) },
      'UNVERIFIABLE',
    );
  }
  const attestationId = gated.status === 'VERIFIED' && token ? String(decodeJwt(token).jti) : null;
  const signer = app.service(ATTESTATION_SIGNER_SERVICE);
  if (gated.status === 'VERIFIED' && !signer) {
    return buildDocument({ ...base, diagnostic: gated, summary: 'The result cannot be sealed by this service', constraintId: SEAL_UNAVAILABLE }, 'UNVERIFIABLE');
  }
  const seal = signer ? (documentHash: string) => signer.sign(SEAL_TYP, { document_hash: documentHash }) : undefined;
  return buildDocument({ ...base, diagnostic: gated, attestationId, seal }, gated.status);
}

export function registerRoutes(app: App): void {
  const common = { auth: 'apiKey' as const, scope: 'verify:read' as const, method: 'POST' as const };
  app.route({
    ...common,
    path: '/verification-context/from-diagnostic',
    schema: { body: `${S}/from-diagnostic.body.json`, response: `${S}/document.json` },
    handler: async (ctx) => ({ body: await fromDiagnostic(app, ctx) }),
  });
  app.route({
    ...common,
    path: '/verification-context/validate',
    schema: { body: `${S}/document.body.json`, response: `${S}/validate.response.json` },
    handler(ctx) {
      const details = validateDocument((ctx.body as { document: unknown }).document);
      return { body: details.length ? { valid: false, error: 'validation_failed', details } : { valid: true } };
    },
  });
  app.route({
    ...common,
    path: '/verification-context/resolve',
    schema: { body: `${S}/document.body.json`, response: `${S}/resolve.response.json` },
    async handler(ctx) {
      const signer = app.service(ATTESTATION_SIGNER_SERVICE);
      const service = app.service('attestation');
      const reason = await whyUnresolved((ctx.body as { document: unknown }).document, {
        verifyStatement: signer ? (typ, jws) => signer.verify(typ, jws) : undefined,
        attestation: service ? (id) => service.lookup(id) : undefined,
      });
      if (reason) ctx.log.info({ event: 'verification_context.unresolved', reason }, 'document not resolved');
      return { body: { resolved: reason === null } };
    },
  });
}
