import { randomFillSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { b64urlJson, es256Sign, es256SignAsync, signJwsAsync } from '../../core/keys/es256.js';
import type { Logger } from 'pino';
import { sha256Ref, SHA256_REF } from '../../core/json/canonical.js';
import type { Collection } from '../../core/store/store.js';
import type { DiagnosticResult } from '../../core/verdict.js';
import type { SigningKey } from './keys.js';
import { markSubject, subjectOf } from './subject.js';
import type { AttestationClaims, AttestationErrorCode, AttestationRecord, AttestationResult, IssueOptions } from './types.js';

import { SVC_VERSION, TOKEN_TYPE } from './token.js';

export { SVC_VERSION, TOKEN_TYPE } from './token.js';

export { subjectOf } from './subject.js';

let lastMs = -1;
let lastSeq = 0;

/**
 * CSPRNG bytes drawn 4 KiB at a time: a synchronous randomBytes(16) per token goes through a crypto
 * job of its own (several µs on the event loop for every VERIFIED verdict); each slice is used once.
 */
const RANDOM_POOL = Buffer.alloc(4096);
let randomAt = RANDOM_POOL.length;
function randomSlice(): Buffer {
  if (randomAt + 16 > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    randomAt = 0;
  }
  randomAt += 16;
  return RANDOM_POOL.subarray(randomAt - 16, randomAt);
}

/**
 * RFC 9562 UUIDv7: 48 bits of Unix milliseconds, a 12-bit sequence (rand_a, §6.2 method 1), then
 * 62 random bits. Record keys (the jti) therefore sort by issue time, so expired records are pruned
 * by reading the collection from its start. Ids of one millisecond count up from a random start
 * below 1024, so a process's ids sort in issue order: records are appended at the end of the
 * collection and its pages fill up instead of splitting in half (random ids inside a millisecond
 * left them two-thirds full). Past 4095 ids in one millisecond the sequence is random again.
 */
export function uuidv7(ms = Date.now()): string {
  const b = Buffer.from(randomSlice());
  const seq = ms === lastMs && lastSeq < 0xfff ? lastSeq + 1 : ms === lastMs ? b.readUInt16BE(6) & 0xfff : b.readUInt16BE(6) & 0x3ff;
  lastMs = ms;
  lastSeq = seq;
  b.writeUIntBE(ms, 0, 6);
  b.writeUInt16BE(0x7000 | seq, 6);
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** the id's milliseconds: the clock's inside the second `iat` names (an injected clock's second as it is) */
function idMillis(iat: number): number {
  const ms = Date.now();
  return ms >= iat * 1000 && ms < iat * 1000 + 1000 ? ms : iat * 1000;
}

/**
 * The kernel's ES256 signer (core/keys/es256.ts), on libuv's thread pool by default: an ECDSA signature
 * is ~45 µs of CPU that would otherwise be the event loop's, for every VERIFIED verdict. Injectable
 * (synchronous or not) so a test can make signing fail.
 */
export type Signer = (data: Buffer, key: KeyObject) => Buffer | Promise<Buffer>;
export { es256Sign };

export interface IssuerDeps {
  /** null when crypto could not provide a key: issuance answers UNVERIFIABLE / CRYPTO_UNAVAILABLE */
  key: SigningKey | null;
  lifetimeSeconds: number;
  records: Collection<AttestationRecord>;
  log: Logger;
  now?: () => number;
  sign?: Signer;
}

function outcome(status: AttestationResult['status'], code: AttestationErrorCode, error: string): AttestationResult {
  return { status, token: null, error_code: code, error, is_issued: false, attestation_id: null };
}

/**
 * `svc.result.verified`: whether the attested result says its claim holds (decisions §1: a claim
 * proven false is VERIFIED with developer_fields.is_valid false, proven-unsafe code likewise). The
 * status says a proof was done; this says what it proved, under the signature, so a token for
 * `2+2=5` can never stand for an admitted claim once a caller drops is_valid from the diagnostic.
 */
export function claimHolds(d: Pick<DiagnosticResult, 'developer_fields'>): boolean {
  return d.developer_fields.is_valid !== false;
}

function confidenceOf(d: DiagnosticResult): number {
  const c = d.developer_fields.confidence;
  // a deterministic proof is certain; an engine may report less (never more than 1)
  return typeof c === 'number' && Number.isFinite(c) && c >= 0 && c <= 1 ? c : 1;
}

/**
 * Builds `issue(diagnostic, opts)`: every path returns an AttestationResult, never throws.
 * Only a VERIFIED result with a well-formed proof_ref can be attested; anything else is
 * BLOCKED / VERIFIED_WITHOUT_PROOF (there is no proof to attest). The record is stored before the
 * token is handed out, so every token in circulation can be looked up and revoked; a failed store
 * write is a signing failure.
 */
export function createIssuer(deps: IssuerDeps) {
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  const given = deps.sign;
  const sign = given ? async (data: Buffer, key: KeyObject) => given(data, key) : es256SignAsync;
  // the protected header only changes with the key: encoded once per kid, not per token
  let header = { kid: '', segment: '' };
  const headerSegment = (kid: string) => {
    if (header.kid !== kid) header = { kid, segment: b64urlJson({ alg: 'ES256', typ: TOKEN_TYPE, kid }) };
    return header.segment;
  };
  return async function issue(diagnostic: DiagnosticResult, opts: IssueOptions): Promise<AttestationResult> {
    if (!diagnostic || diagnostic.status !== 'VERIFIED' || typeof diagnostic.proof_ref !== 'string' || !SHA256_REF.test(diagnostic.proof_ref)) {
      return outcome('BLOCKED', 'VERIFIED_WITHOUT_PROOF', 'only a VERIFIED result with a proof_ref can be attested');
    }
    const key = deps.key;
    if (!key) return outcome('UNVERIFIABLE', 'CRYPTO_UNAVAILABLE', 'no attestation signing key is available');
    try {
      const iat = now();
      const jti = `att_${uuidv7(idMillis(iat))}`;
      const query_hash = sha256Ref(opts.query);
      const proof_hash = diagnostic.proof_ref;
      const result = { status: diagnostic.status, verified: claimHolds(diagnostic), engine: String(opts.engine), confidence: confidenceOf(diagnostic) };
      const claims: AttestationClaims = {
        iss: key.issuer,
        sub: subjectOf(query_hash, proof_hash),
        iat,
        exp: iat + deps.lifetimeSeconds,
        jti,
        svc: { version: SVC_VERSION, result, query_hash, proof_hash },
      };
      // the signature covers exactly these claims; the record below is written before the reply leaves
      const token = await signJwsAsync(headerSegment(key.kid), claims, key.privateKey, sign);
      const record: AttestationRecord = {
        id: jti,
        org_id: opts.org_id ?? null,
        iss: claims.iss,
        kid: key.kid,
        sub: claims.sub,
        iat,
        exp: claims.exp,
        result,
        query_hash,
        proof_hash,
        revoked_at: null,
        revoked_by: null,
        jkt: key.thumbprint,
      };
      markSubject(record);
      const issued: AttestationResult = { status: 'ISSUED', token, error_code: null, error: null, is_issued: true, attestation_id: jti };
      if (opts.deferWrite) return { ...issued, record };
      if (!(await deps.records.insert(jti, record))) throw new Error('attestation id collision');
      return issued;
    } catch (err) {
      deps.log.error({ event: 'attestation.signing_failed', err_name: (err as Error)?.name, err_message: (err as Error)?.message }, 'attestation signing failed');
      return outcome('BLOCKED', 'SIGNING_FAILURE', 'the attestation could not be signed');
    }
  };
}
