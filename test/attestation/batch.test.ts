import t from 'tap';
import { sha256Ref } from '../../core/json/canonical.js';
import type { Plugin, Verifier } from '../../core/types.js';
import { unverifiable, verified } from '../../core/verdict.js';
import batch from '../../plugins/batch/index.js';
import { startHarness } from '../helpers/attestation/harness.js';

/** A math verifier proving `a=a` by string equality: enough to drive real batch items. */
const math: Verifier = {
  async verify(input) {
    const e = String(input.expression);
    if (!e.includes('=')) return unverifiable('only computed', { value: e });
    const [l, r] = e.split('=');
    return verified('checked', { is_valid: l === r }, { engine: 'fake-math', engine_version: '1', input: e, result: l === r });
  },
};
const engines: Plugin = { name: 'fake-math', provides: ['verifier.math'], register: (app) => app.provide('verifier.math', math) };

t.test('batch math items are attested through the attestation.batch service', async (t) => {
  const h = await startHarness({ plugins: [engines, batch] });
  t.teardown(() => h.close());
  const r = await h.request('POST', '/verify/batch', { body: { items: [{ query: 'x=x', type: 'math' }, { query: '2+2', type: 'math' }] } });
  t.equal(r.status, 200);
  const [proved, computed] = r.body.items;
  t.equal(proved.result.status, 'VERIFIED');
  t.type(proved.attestation, 'string');
  const v = await h.request('POST', '/attestation/verify', { body: { jwt: proved.attestation } });
  t.equal(v.status, 200);
  t.equal(v.body.claims.svc.query_hash, sha256Ref('x=x'));
  t.equal(v.body.claims.svc.proof_hash, proved.result.proof_ref);
  t.equal(computed.result.status, 'UNVERIFIABLE');
  t.notOk('attestation' in computed);
});
