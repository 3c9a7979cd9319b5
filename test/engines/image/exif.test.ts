import t from 'tap';
import imagePlugin from '../../../plugins/engines/image/index.js';
import { judge } from '../../../plugins/engines/image/verifier.js';
import { readImageHeader } from '../../../plugins/engines/image/header.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { jpeg, jpegWithExif, png, pngWithExif, tiffWithOrientation, webpWithExif } from './fixtures.js';

// A phone photo is stored landscape with an EXIF orientation that turns it upright when shown: "a
// portrait photo" about it was REFUTED (VERIFIED, is_valid false), though it is what everyone sees.
const verdictOf = (claim: string, file: Buffer) => {
  const o = judge(claim, readImageHeader(file), file, 'image/jpeg', '0'.repeat(64));
  return { verdict: o.fields.verdict, status: o.diagnostic.status, reasoning: o.fields.reasoning };
};

t.test('a quarter-turn EXIF orientation leaves size and orientation claims unjudged, in every container', async (t) => {
  const files: Array<[string, Buffer]> = [
    ['jpeg, little-endian EXIF', jpegWithExif(4032, 3024, tiffWithOrientation(6))],
    ['jpeg, big-endian EXIF', jpegWithExif(4032, 3024, tiffWithOrientation(8, 'MM'))],
    ['jpeg, EXIF after the frame header', jpegWithExif(4032, 3024, tiffWithOrientation(5), true)],
    ['jpeg, EXIF block broken', jpegWithExif(4032, 3024, Buffer.from('II*\0\xff\xff\xff\xff', 'latin1'))],
    ['png eXIf', pngWithExif(4032, 3024, tiffWithOrientation(7))],
    ['webp EXIF', webpWithExif(4032, 3024, tiffWithOrientation(6))],
  ];
  for (const [name, file] of files) {
    for (const claim of ['a portrait photo', 'a landscape photo', 'a 3024x4032 image', 'a 4032x3024 image', 'the image is 3024 pixels wide']) {
      const r = verdictOf(claim, file);
      t.same([r.verdict, r.status], ['INCONCLUSIVE', 'UNVERIFIABLE'], `${name}: ${claim}`);
    }
    // what the turn does not touch is still proven
    const format = name.split(/[ ,]/)[0];
    t.same(verdictOf(`a ${format} image`, file).verdict, 'SUPPORTED', `${name}: the format`);
  }
});

t.test('no turn: orientations 1–4, no EXIF, or an EXIF block without the tag are judged as before', async (t) => {
  for (const file of [jpegWithExif(4032, 3024, tiffWithOrientation(1)), jpegWithExif(4032, 3024, tiffWithOrientation(3)), jpeg(4032, 3024), png(4032, 3024)]) {
    t.equal(verdictOf('a landscape photo', file).verdict, 'SUPPORTED');
    t.equal(verdictOf('a portrait photo', file).verdict, 'REFUTED');
  }
  const noTag = tiffWithOrientation(6);
  noTag.writeUInt16LE(0x0110, 10); // the camera model tag instead
  t.equal(verdictOf('a portrait photo', jpegWithExif(4032, 3024, noTag)).verdict, 'REFUTED');
});

t.test('over HTTP: the turned photo is not refuted, and the answer names the orientation', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), imagePlugin] });
  t.teardown(() => s.close());
  const form = new FormData();
  form.append('claim', 'a portrait photo');
  form.append('image', new Blob([jpegWithExif(4032, 3024, tiffWithOrientation(6))], { type: 'image/jpeg' }), 'phone.jpg');
  const res = await fetch(s.url + '/verify/image', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
  const body = (await res.json()) as { developer_fields: { exif_orientation?: unknown } };
  t.equal(res.status, 200);
  t.match(body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null, confidence: 0 });
  t.equal(body.developer_fields.exif_orientation, 6, 'the answer names the orientation it read');
});
