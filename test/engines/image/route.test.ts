import t from 'tap';
import imagePlugin from '../../../plugins/engines/image/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../../helpers/server.js';
import type { Verifier } from '../../../core/types.js';
import { gif, jpeg, png, webp } from './fixtures.js';

async function upload(s: TestServer, parts: { image?: Buffer; claim?: string; type?: string }, apiKey: string | null = TEST_API_KEY, path = '/verify/image') {
  const form = new FormData();
  if (parts.claim !== undefined) form.append('claim', parts.claim);
  if (parts.image !== undefined) form.append('image', new Blob([parts.image], { type: parts.type ?? 'image/png' }), 'upload.bin');
  const res = await fetch(s.url + path, { method: 'POST', body: form, headers: apiKey ? { 'x-api-key': apiKey } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

t.test('POST /verify/image', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), imagePlugin] });
  t.teardown(() => s.close());

  const yes = await upload(s, { image: png(800, 600), claim: 'The image is an 800x600 PNG' });
  t.equal(yes.status, 200);
  t.equal(yes.body.verdict, 'SUPPORTED');
  t.equal(yes.body.confidence, 1);
  t.equal(yes.body.status, 'VERIFIED');
  t.equal(yes.body.developer_fields.is_valid, true);
  t.match(yes.body.proof_ref, /^sha256:[0-9a-f]{64}$/);
  t.ok(yes.body.methods_used.includes('header_parse'));
  t.ok(yes.body.methods_used.includes('dimensions_check'));

  const no = await upload(s, { image: jpeg(640, 480), claim: '800x600', type: 'image/png' }, TEST_API_KEY, '/v1/verify/image');
  t.equal(no.status, 200);
  t.equal(no.body.verdict, 'REFUTED');
  t.equal(no.body.status, 'VERIFIED', 'a claim proven false is VERIFIED with is_valid false');
  t.equal(no.body.developer_fields.is_valid, false);
  t.equal(no.body.developer_fields.format, 'jpeg', 'the header decides, not the declared type');
  t.equal(no.body.developer_fields.declared_mime_type, 'image/png');
  t.match(no.body.reasoning, /640x480/);

  const fmt = await upload(s, { image: gif(10, 10), claim: 'is a PNG' });
  t.equal(fmt.body.verdict, 'REFUTED');
  t.equal((await upload(s, { image: webp(300, 200, 'VP8L'), claim: 'a landscape WebP, 300 pixels wide' })).body.verdict, 'SUPPORTED');

  const content = await upload(s, { image: png(800, 600), claim: 'a photo of a cat on a sofa' });
  t.equal(content.body.verdict, 'VLM_REQUIRED');
  t.equal(content.body.status, 'UNVERIFIABLE');
  t.equal(content.body.proof_ref, null);
  t.equal(content.body.confidence, 0);
  const mixed = await upload(s, { image: png(800, 600), claim: 'an 800x600 picture of a cat' });
  t.equal(mixed.body.verdict, 'VLM_REQUIRED', 'true size, but the content part is unchecked');
  const mixedFalse = await upload(s, { image: png(800, 600), claim: 'a 1024x768 picture of a cat' });
  t.equal(mixedFalse.body.verdict, 'VLM_REQUIRED', 'with content words, "1024x768" may be about the content: nothing is judged');
  t.equal(mixedFalse.body.proof_ref, null);
  const neg = await upload(s, { image: png(800, 600), claim: 'is not a GIF' });
  t.equal(neg.body.verdict, 'INCONCLUSIVE');
  t.equal(neg.body.status, 'UNVERIFIABLE');

  const other = await upload(s, { image: png(800, 601), claim: 'The image is an 800x600 PNG' });
  t.not(other.body.proof_ref, yes.body.proof_ref, 'different inputs, different proof_ref');
});

t.test('400 for wrong type, missing parts, corrupt header; 413 over 10 MB; 401/403', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), imagePlugin] });
  t.teardown(() => s.close());
  const pdf = await upload(s, { image: Buffer.from('%PDF-1.7\n...'), claim: 'is a PNG', type: 'image/png' });
  t.equal(pdf.status, 400);
  t.equal(pdf.body.code, 'image_unsupported_type');
  const bmp = await upload(s, { image: Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]), claim: 'x', type: 'image/bmp' });
  t.equal(bmp.status, 400);
  const corrupt = await upload(s, { image: png(8, 8).subarray(0, 18), claim: 'is a PNG' });
  t.equal(corrupt.status, 400);
  t.equal(corrupt.body.code, 'image_corrupt_header');
  t.equal((await upload(s, { claim: 'is a PNG' })).status, 400, 'no image');
  t.equal((await upload(s, { image: png(8, 8) })).status, 400, 'no claim');
  t.equal((await upload(s, { image: png(8, 8), claim: '   ' })).status, 400, 'blank claim');
  const big = await upload(s, { image: Buffer.concat([png(8, 8), Buffer.alloc(10 * 1024 * 1024)]), claim: 'is a PNG' });
  t.equal(big.status, 413);
  t.match(big.headers.get('content-type'), /problem\+json/);
  const justUnder = await upload(s, { image: Buffer.concat([png(8, 8), Buffer.alloc(10 * 1024 * 1024 - 200)]), claim: 'is a PNG' });
  t.equal(justUnder.status, 200, 'a file under 10 MiB is accepted');
  t.equal(justUnder.body.verdict, 'SUPPORTED');
  t.equal((await upload(s, { image: png(8, 8), claim: 'is a PNG' }, null)).status, 401);
  const ro = await startServer({ plugins: [testAuthPlugin(['attestation:read']), imagePlugin] });
  t.equal((await upload(ro, { image: png(8, 8), claim: 'is a PNG' })).status, 403);
  await ro.close();
});

t.test('verifier.image', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), imagePlugin] });
  t.teardown(() => s.close());
  const v = s.kernel.app.service('verifier.image')!;
  const ok = await v.verify({ image_base64: gif(2, 3).toString('base64'), claim: 'a 2x3 GIF' });
  t.equal(ok.status, 'VERIFIED');
  t.equal(ok.developer_fields.is_valid, true);
  const bad = await v.verify({ image_base64: Buffer.from('nope').toString('base64'), claim: 'a GIF' });
  t.equal(bad.status, 'BLOCKED');
  t.equal(bad.developer_fields.constraint_id, 'image_verifier.invalid_request');
});
