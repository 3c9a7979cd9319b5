import t from 'tap';
import ragPlugin from '../../../plugins/engines/rag/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import type { Verifier } from '../../../core/types.js';

const chunk = (id: string, doc: string) => ({ id, metadata: { document_id: doc, page: 1 } });
const chunks = [chunk('c1', 'doc-A'), chunk('c2', 'doc-A'), chunk('c3', 'doc-B'), chunk('c4', 'doc-A'), chunk('c5', 'doc-A')];

t.test('POST /verify/rag', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), ragPlugin] });
  t.teardown(() => s.close());
  const post = (body: unknown, apiKey: string | null = TEST_API_KEY) => s.request('POST', '/verify/rag', { apiKey, body });

  const strict = await post({ target_document_id: 'doc-A', chunks });
  t.equal(strict.status, 200);
  t.equal(strict.body.verified, false, 'default threshold 0');
  t.equal(strict.body.risk, 'DOCUMENT_RETRIEVAL_MISMATCH');
  t.equal(strict.body.drm_rate, 0.2);
  t.equal(strict.body.chunks_checked, 5);
  t.equal(strict.body.mismatched_count, 1);
  t.equal(strict.body.status, 'VERIFIED', 'counting metadata is a proof');
  t.equal(strict.body.developer_fields.is_valid, false);
  t.equal(strict.body.developer_fields.constraint_id, 'rag_verifier.document_retrieval_mismatch');
  t.match(strict.body.proof_ref, /^sha256:[0-9a-f]{64}$/);

  const loose = await s.request('POST', '/v1/verify/rag', { apiKey: TEST_API_KEY, body: { target_document_id: 'doc-A', chunks, max_drm_rate: '1/5' } });
  t.equal(loose.status, 200);
  t.equal(loose.body.verified, true);
  t.equal(loose.body.risk, 'NONE');
  t.equal(loose.body.is_valid, true);
  t.not(loose.body.proof_ref, strict.body.proof_ref, 'the threshold is bound into the proof');
  const again = await post({ target_document_id: 'doc-A', chunks, max_drm_rate: '0.2' });
  t.equal(again.body.proof_ref, loose.body.proof_ref, '0.2 and 1/5 are the same threshold');
  t.equal((await post({ target_document_id: 'doc-A', chunks, max_drm_rate: '0.19' })).body.verified, false);

  for (const body of [
    { target_document_id: '', chunks },
    { target_document_id: 'doc-A', chunks: [] },
    { chunks },
    { target_document_id: 'doc-A' },
    { target_document_id: 'doc-A', chunks, max_drm_rate: 0.1 },
    { target_document_id: 'doc-A', chunks, max_drm_rate: '1/0' },
    { target_document_id: 'doc-A', chunks, max_drm_rate: '2' },
    { target_document_id: 'doc-A', chunks, max_drm_rate: 'ten percent' },
    { target_document_id: 'doc-A', chunks: [{ id: 'x', metadata: {} }] },
    { target_document_id: 'doc-A', chunks: [{ id: 'x' }] },
    { target_document_id: 'doc-A', chunks: [{ metadata: { document_id: 'doc-A' } }] },
  ]) {
    const r = await post(body);
    t.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    t.match(r.headers.get('content-type'), /problem\+json/);
  }
  t.equal((await post({ target_document_id: 'doc-A', chunks }, null)).status, 401);

  // one chunk listed twice weighs twice in the rate: 1 mismatch in 3 listed passes 2/5, 1 in 2 chunks does not
  const twice = await post({
    target_document_id: 'doc-A',
    chunks: [
      { id: 'c1', metadata: { document_id: 'doc-B' } },
      { id: 'c2', metadata: { document_id: 'doc-A' } },
      { id: 'c2', metadata: { document_id: 'doc-A' } },
    ],
    max_drm_rate: '2/5',
  });
  t.equal(twice.status, 400, 'a chunk id listed twice is refused');
  t.equal(twice.body.code, 'rag_invalid_chunks');
  t.same(twice.body.errors, [{ field: '/body/chunks/2/id', message: 'chunk id "c2" is listed more than once' }]);
});

t.test('scope and service', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(['attestation:read']), ragPlugin] });
  t.teardown(() => s.close());
  t.equal((await s.request('POST', '/verify/rag', { apiKey: TEST_API_KEY, body: { target_document_id: 'doc-A', chunks } })).status, 403);
  const v = s.kernel.app.service('verifier.rag')!;
  const ok = await v.verify({ target_document_id: 'doc-A', chunks, max_drm_rate: '1/4' });
  t.equal(ok.status, 'VERIFIED');
  t.equal(ok.developer_fields.is_valid, true);
  const bad = await v.verify({ target_document_id: 'doc-A', chunks, max_drm_rate: 0.5 });
  t.equal(bad.status, 'BLOCKED');
  t.equal(bad.developer_fields.constraint_id, 'rag_verifier.invalid_request');
});
