import t from 'tap';
import { sha256Ref } from '../../../core/json/canonical.js';
import { blocked, unverifiable, verified, type DiagnosticResult } from '../../../core/verdict.js';
import { BATCH_SIGNING_ERROR, gateBatchMathItem, trustGate, TRUST_GATE } from '../../../plugins/attestation/index.js';
import { kit, proven } from '../../helpers/attestation/fixtures.js';
import { claimsFor, es256, HEADER, otherKey } from '../../helpers/attestation/forge.js';

const Q = '2+2=4';

async function setup() {
  const k = await kit();
  const d = proven(Q);
  const issued = await k.issue(d, { engine: 'math', query: Q, org_id: 'org-a' });
  const expected: { query_hash: string | null; proof_ref: string | null; status: 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED' } = {
    query_hash: sha256Ref(Q),
    proof_ref: d.proof_ref,
    status: 'VERIFIED',
  };
  const gate = (diag: DiagnosticResult, o: { token?: string | null; required: boolean; expected?: typeof expected }) =>
    trustGate(diag, { token: o.token, required: o.required, expected: o.expected ?? expected, verify: k.verify, log: k.log });
  return { k, d, token: issued.token!, id: issued.attestation_id!, expected, gate };
}

function assertBlocked(t: { equal(a: unknown, b: unknown, ...m: [string] | []): unknown }, r: DiagnosticResult, cid: string) {
  t.equal(r.status, 'BLOCKED', cid);
  t.equal(r.developer_fields.constraint_id, cid);
  t.equal(r.developer_fields.is_valid, false, 'legacy flag cannot read as valid');
  t.equal(r.proof_ref, null);
}

t.test('VERIFIED, token valid and claims match: VERIFIED as a detached copy', async (t) => {
  const s = await setup();
  for (const required of [true, false]) {
    const r = await s.gate(s.d, { token: s.token, required });
    t.equal(r.status, 'VERIFIED');
    t.not(r, s.d, 'a new object');
    t.not(r.developer_fields, s.d.developer_fields, 'developer_fields detached too');
    t.same(r, s.d);
    t.ok(Object.isFrozen(r));
  }
});

t.test('VERIFIED, attestation required, token missing: BLOCKED mandatory_attestation_missing', async (t) => {
  const s = await setup();
  for (const token of [undefined, null, '']) {
    assertBlocked(t, await s.gate(s.d, { token, required: true }), TRUST_GATE.mandatoryMissing);
  }
  const ev = s.k.logs.events('trust_gate.blocked');
  t.equal(ev.length, 3);
  t.equal(ev[0].level, 40, 'warn');
  t.same({ c: ev[0].constraint_id, p: ev[0].policy }, { c: TRUST_GATE.mandatoryMissing, p: 'required' });
  t.type(ev[0].reason, 'string');
});

t.test('VERIFIED, attestation not required, token missing: VERIFIED (advisory)', async (t) => {
  const s = await setup();
  const r = await s.gate(s.d, { required: false });
  t.equal(r.status, 'VERIFIED');
  t.not(r, s.d);
  t.equal(s.k.logs.events('trust_gate.blocked').length, 0);
});

t.test('VERIFIED, token invalid: BLOCKED invalid_attestation_token under either policy', async (t) => {
  const s = await setup();
  const now = s.k.clock.t;
  const revoked = await s.k.issue(s.d, { engine: 'math', query: Q });
  await s.k.records.update(revoked.attestation_id!, (r) => r && { ...r, revoked_at: now });
  const untrusted = claimsFor({ proof_ref: s.d.proof_ref!, iss: 'did:svc:node:rogue' });
  const bad: Record<string, { token: string; reason: string }> = {
    'bad signature': { token: es256(otherKey(), HEADER, claimsFor({ proof_ref: s.d.proof_ref! })), reason: 'bad_signature' },
    revoked: { token: revoked.token!, reason: 'revoked' },
    'untrusted issuer': { token: es256(s.k.key.privateKey, HEADER, untrusted), reason: 'untrusted_issuer' },
    malformed: { token: 'garbage', reason: 'malformed' },
    expired: { token: s.token, reason: 'expired' },
  };
  for (const [name, c] of Object.entries(bad)) {
    for (const required of [true, false]) {
      if (name === 'expired') s.k.clock.t = now + 3600;
      const r = await s.gate(s.d, { token: c.token, required });
      s.k.clock.t = now;
      assertBlocked(t, r, TRUST_GATE.invalidToken);
      t.equal(r.agent_message, 'Invalid token', `${name}: generic surface`);
      const ev = s.k.logs.events('trust_gate.blocked').at(-1)!;
      t.equal(ev.reason, c.reason, `${name}: reason logged`);
      t.equal(ev.policy, required ? 'required' : 'advisory');
    }
  }
});

t.test('VERIFIED, token valid but a claim disagrees: the matching mismatch id', async (t) => {
  const s = await setup();
  assertBlocked(t, await s.gate(s.d, { token: s.token, required: true, expected: { ...s.expected, status: 'UNVERIFIABLE' } }), TRUST_GATE.statusMismatch);
  assertBlocked(t, await s.gate(s.d, { token: s.token, required: true, expected: { ...s.expected, query_hash: sha256Ref('2+2=5') } }), TRUST_GATE.queryMismatch);
  assertBlocked(t, await s.gate(s.d, { token: s.token, required: false, expected: { ...s.expected, query_hash: null } }), TRUST_GATE.queryMismatch);
  const other = proven('3+3=6');
  assertBlocked(t, await s.gate(s.d, { token: s.token, required: true, expected: { ...s.expected, proof_ref: other.proof_ref } }), TRUST_GATE.proofMismatch);
  // the token of one proof presented with another diagnostic
  assertBlocked(t, await s.gate(other, { token: s.token, required: true, expected: { ...s.expected } }), TRUST_GATE.proofMismatch);
});

t.test('any status: developer_fields that cannot be snapshotted: BLOCKED diagnostic_snapshot_failed', async (t) => {
  const s = await setup();
  const withFn = verified('ok', { is_valid: true, cb: () => 1 }, { engine: 'math', engine_version: '1', input: Q, result: true });
  assertBlocked(t, await s.gate(withFn, { token: s.token, required: true }), TRUST_GATE.snapshotFailed);
  assertBlocked(t, await s.gate(unverifiable('x', { sym: Symbol('s') }), { required: false }), TRUST_GATE.snapshotFailed);
  assertBlocked(t, await s.gate(blocked('x', 'a.b', { fn: () => 0 }), { required: false }), TRUST_GATE.snapshotFailed);
  t.equal(s.k.logs.events('trust_gate.blocked').at(-1)?.constraint_id, TRUST_GATE.snapshotFailed);
});

t.test('UNVERIFIABLE and BLOCKED pass unchanged whatever the token', async (t) => {
  const s = await setup();
  for (const d of [unverifiable('computed', { value: 4 }), blocked('parse error', 'math.parse_error', { error: 'x' }, 'DENY')]) {
    for (const token of [undefined, 'garbage', s.token]) {
      for (const required of [true, false]) {
        const r = await s.gate(d, { token, required });
        t.same(r, d);
        t.not(r, d);
      }
    }
  }
  t.equal(s.k.logs.events('trust_gate.blocked').length, 0);
});

t.test('batch math items: attested and gated; signing failure is UNVERIFIABLE api.attestation.signing_error', async (t) => {
  const s = await setup();
  const ok = await gateBatchMathItem(s.k, s.d, { query: Q, org_id: 'org-a', log: s.k.log });
  t.equal(ok.diagnostic.status, 'VERIFIED');
  t.type(ok.attestation, 'string');
  t.match(ok.attestation_id, /^att_/);

  const failing = await kit({
    sign: () => {
      throw new Error('boom');
    },
  });
  const f = await gateBatchMathItem(failing, s.d, { query: Q });
  t.equal(f.diagnostic.status, 'UNVERIFIABLE');
  t.equal(f.diagnostic.developer_fields.constraint_id, BATCH_SIGNING_ERROR);
  t.equal(f.diagnostic.proof_ref, null);
  t.equal(f.attestation, null);

  const keyless = await kit({ keyless: true });
  const c = await gateBatchMathItem(keyless, s.d, { query: Q });
  t.equal(c.diagnostic.status, 'UNVERIFIABLE');
  t.equal(c.diagnostic.developer_fields.constraint_id, BATCH_SIGNING_ERROR);

  const u = unverifiable('simplified only', { simplified: 'x+1' });
  const passed = await gateBatchMathItem(s.k, u, { query: 'x+1' });
  t.same(passed.diagnostic, u);
  t.equal(passed.attestation, null);
});
