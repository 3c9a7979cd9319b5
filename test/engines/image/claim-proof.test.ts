import t from 'tap';
import imagePlugin from '../../../plugins/engines/image/index.js';
import { judge } from '../../../plugins/engines/image/verifier.js';
import { readImageHeader } from '../../../plugins/engines/image/header.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { gif, jpeg, png } from './fixtures.js';

/** the verdict judge() gives a claim about a file (what the route answers, without HTTP) */
function verdictOf(claim: string, file: Buffer): { verdict: string; status: string } {
  const o = judge(claim, readImageHeader(file), file, 'image/png', '0'.repeat(64));
  return { verdict: o.fields.verdict, status: o.diagnostic.status };
}

/** a PNG padded to exactly `bytes` bytes (the header decides the format; trailing bytes are ignored) */
const pngOfSize = (w: number, h: number, bytes: number) => {
  const b = png(w, h);
  return Buffer.concat([b, Buffer.alloc(bytes - b.length)]);
};

t.test('format, size and orientation words about the picture do not refute the claim', async (t) => {
  // each of these was REFUTED (VERIFIED, is_valid false) though it may well be true
  const cases: Array<[string, Buffer]> = [
    ['A portrait of Abraham Lincoln', png(800, 600)],
    ['A landscape painting hanging in a portrait gallery', png(600, 800)],
    ['a 4x4 chessboard seen from above', png(800, 600)],
    ['a screen with a 16x9 aspect ratio', png(1600, 900)],
    ['a photo of a PNG logo on a wall', jpeg(640, 480)],
    ['a picture of a square', png(800, 600)],
  ];
  for (const [claim, file] of cases) {
    const r = verdictOf(claim, file);
    t.equal(r.status, 'UNVERIFIABLE', claim);
    t.not(r.verdict, 'REFUTED', claim);
  }
});

t.test('a symbol left beside a fragment is not read away', async (t) => {
  // "≠ 800x600" on a 640x480 file is true; it was REFUTED as if it said "800x600"
  for (const claim of ['The image is ≠ 800x600', 'The image is != 800x600', 'image < 800x600', 'a ~800x600 PNG', 'width is 640+']) {
    const r = verdictOf(claim, png(640, 480));
    t.match(r, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE' }, claim);
  }
  t.match(verdictOf('dimensions = 640x480', png(640, 480)), { verdict: 'SUPPORTED', status: 'VERIFIED' }, '"=" states what the fragment states');
});

t.test('byte sizes are compared exactly, not as doubles', async (t) => {
  // 1.005 * 1000 is 1004.9999999999999 as a double, so a 1005-byte file was "more than 1.005 KB" (SUPPORTED)
  const f = pngOfSize(4, 4, 1005);
  t.match(verdictOf('more than 1.005 KB', f), { verdict: 'REFUTED', status: 'VERIFIED' });
  t.match(verdictOf('at least 1.005 KB', f), { verdict: 'SUPPORTED' });
  t.match(verdictOf('at most 1.005 KB', f), { verdict: 'SUPPORTED' });
  t.match(verdictOf('less than 1.005 KB', f), { verdict: 'REFUTED' });
  t.match(verdictOf('less than 1.0051 KB', f), { verdict: 'SUPPORTED' }, '1005.1 bytes');
  const g = pngOfSize(4, 4, 2411725);
  t.match(verdictOf('more than 2.3 MiB', g), { verdict: 'SUPPORTED' }, '2.3 MiB is 2411724.8 bytes');
  t.match(verdictOf('at most 2.3 MiB', g), { verdict: 'REFUTED' });
});

t.test('a claim wholly about the file is still proven either way', async (t) => {
  t.match(verdictOf('a landscape 800x600 PNG', png(800, 600)), { verdict: 'SUPPORTED', status: 'VERIFIED' });
  t.match(verdictOf('The image is a portrait', png(800, 600)), { verdict: 'REFUTED', status: 'VERIFIED' });
  t.match(verdictOf('a 1024x768 GIF', gif(800, 600)), { verdict: 'REFUTED', status: 'VERIFIED' });
});

t.test('over HTTP: a portrait of someone is not refuted by the frame', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), imagePlugin] });
  t.teardown(() => s.close());
  const form = new FormData();
  form.append('claim', 'A portrait of Abraham Lincoln');
  form.append('image', new Blob([png(800, 600)], { type: 'image/png' }), 'lincoln.png');
  const res = await fetch(s.url + '/verify/image', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
  const body = await res.json();
  t.equal(res.status, 200);
  t.match(body, { verdict: 'VLM_REQUIRED', status: 'UNVERIFIABLE', proof_ref: null, confidence: 0 });
});
