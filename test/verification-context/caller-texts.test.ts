import t, { type Test } from 'tap';
import vc from '../../plugins/verification-context/index.js';
import { startHarness } from '../helpers/attestation/harness.js';
import { P256_PEM } from '../helpers/attestation/fixtures.js';

/**
 * The diagnostic sent to from-diagnostic is the caller's, and neither its agent_message nor its
 * developer_fields are bound by the attestation token. Whatever texts it carries, the document the
 * service builds must be one its own /validate accepts (and, when VERIFIED, /resolve resolves).
 */
t.test('documents built from long caller texts stay within the schema', async (t) => {
  const h = await startHarness({ plugins: [vc], config: { attestation: { key_continuity_policy: 'persistent', signing_key_pem: P256_PEM } } });
  t.teardown(() => h.close());
  const Q = '(x+1)^2=x^2+2x+1';
  const src = await h.request('POST', '/test/attestable', { body: { expression: Q } });
  t.equal(src.body.status, 'VERIFIED');
  const diagnostic = { status: src.body.status, agent_message: src.body.agent_message, developer_fields: src.body.developer_fields, proof_ref: src.body.proof_ref };
  const convert = (d: unknown, token?: string) => h.request('POST', '/verification-context/from-diagnostic', { body: { diagnostic: d, query: Q, ...(token ? { attestation_token: token } : {}) } });
  const check = async (t: Test, doc: unknown, verdict: string) => {
    t.same((await h.request('POST', '/verification-context/validate', { body: { document: doc } })).body, { valid: true }, 'its own /validate accepts it');
    if (verdict === 'VERIFIED') t.same((await h.request('POST', '/verification-context/resolve', { body: { document: doc } })).body, { resolved: true });
  };

  // 4,096 UTF-16 units end inside the 2,048th emoji: a plain slice left half of it (a lone surrogate)
  const emoji = 'x' + '😀'.repeat(3000);
  const cases = [
    ['attested', diagnostic, src.body.attestation, 'VERIFIED'],
    ['unverifiable', { status: 'UNVERIFIABLE', agent_message: '', developer_fields: {}, proof_ref: null }, undefined, 'UNVERIFIABLE'],
  ] as const;
  for (const [name, d, token, verdict] of cases) {
    t.test(`a summary cut inside an emoji, ${name}`, async (t) => {
      const r = await convert({ ...d, agent_message: emoji }, token);
      t.equal(r.status, 200);
      t.equal(r.body.verdict, verdict);
      const summary: string = r.body.context.interpretation.summary;
      t.notOk(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(summary), 'no lone surrogate');
      t.ok(summary.length <= 4096 && emoji.startsWith(summary) && summary.length >= 4095, 'the longest well-formed prefix that fits');
      await check(t, r.body, verdict);
    });
  }

  t.test('a constraint_id longer than a document holds', async (t) => {
    const long = { ...diagnostic.developer_fields, constraint_id: 'c'.repeat(1000) };
    const attested = await convert({ ...diagnostic, developer_fields: long }, src.body.attestation);
    const plain = await convert({ status: 'UNVERIFIABLE', agent_message: 'maybe', developer_fields: long, proof_ref: null });
    for (const [r, verdict] of [[attested, 'VERIFIED'], [plain, 'UNVERIFIABLE']] as const) {
      t.equal(r.status, 200);
      t.equal(r.body.verdict, verdict);
      t.equal(r.body.context.interpretation.constraint_id, 'c'.repeat(256));
      await check(t, r.body, verdict);
    }
  });
});
