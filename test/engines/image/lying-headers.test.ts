import t from 'tap';
import imagePlugin from '../../../plugins/engines/image/index.js';
import { imageVerifier, judge } from '../../../plugins/engines/image/verifier.js';
import { HeaderError, MAX_WALK_STEPS, readImageHeader } from '../../../plugins/engines/image/header.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { gif, jpeg, png, pngChunk, webp } from './fixtures.js';

/** Headers that state a size no decoder shows, or no size at all: never a VERIFIED size claim. */

const kind = (b: Buffer) => {
  try {
    readImageHeader(b);
    return null;
  } catch (e) {
    return e instanceof HeaderError ? e.kind : 'other';
  }
};
const verdictOf = (claim: string, file: Buffer) => judge(claim, readImageHeader(file), file, 'image/png', '0'.repeat(64)).fields.verdict;

/** a PNG whose IHDR (with a correct CRC) says width × height, depth and colour type as given */
function pngIhdr(width: number, height: number, depth = 8, colour = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = colour;
  const good = png(1, 1);
  return Buffer.concat([good.subarray(0, 8), pngChunk('IHDR', ihdr), good.subarray(33)]);
}

t.test('PNG: a size outside 1..2^31-1, invalid IHDR fields or a failed IHDR CRC are refused', async (t) => {
  t.equal(kind(pngIhdr(0, 0)), 'corrupt', '0x0');
  t.equal(kind(pngIhdr(800, 0)), 'corrupt', 'height 0');
  t.equal(kind(pngIhdr(0xffffffff, 1)), 'corrupt', 'width 2^32-1');
  t.equal(kind(pngIhdr(0x80000000, 1)), 'corrupt', 'width 2^31');
  t.equal(kind(pngIhdr(10, 10, 3, 0)), 'corrupt', 'bit depth 3');
  t.equal(kind(pngIhdr(10, 10, 8, 5)), 'corrupt', 'colour type 5');
  t.equal(kind(pngIhdr(0x7fffffff, 1)), null, 'width 2^31-1 is allowed');
  t.equal(kind(pngIhdr(10, 10, 16, 6)), null);
  const badCrc = Buffer.from(png(800, 600));
  badCrc[29] ^= 0xff;
  t.equal(kind(badCrc), 'corrupt', 'IHDR CRC');
  const lying = Buffer.from(png(800, 600));
  lying.writeUInt32BE(801, 16); // the size changed, the CRC not
  t.equal(kind(lying), 'corrupt');
});

t.test('JPEG: width 0 is refused; a height left to DNL judges no size claim', async (t) => {
  t.equal(kind(jpeg(0, 480)), 'corrupt');
  const dnl = jpeg(640, 0);
  t.match(readImageHeader(dnl), { width: 640, height: 0, size_unsettled: /DNL/ });
  for (const claim of ['landscape', 'a 640x0 image', 'height is 0', '640 pixels wide']) t.equal(verdictOf(claim, dnl), 'INCONCLUSIVE', claim);
  t.equal(verdictOf('a JPEG', dnl), 'SUPPORTED', 'the format is still proven');
  t.equal(verdictOf('a PNG', dnl), 'REFUTED');
});

t.test('GIF: the first frame decides whether the logical screen is the size shown', async (t) => {
  const past = gif(10, 10);
  past.writeUInt16LE(100, 18); // first frame 100x200 on a 10x10 screen
  past.writeUInt16LE(200, 20);
  for (const claim of ['10x10', 'square', 'a 100x200 GIF']) t.equal(verdictOf(claim, past), 'INCONCLUSIVE', claim);
  t.equal(verdictOf('a GIF', past), 'SUPPORTED');
  const offset = gif(10, 10);
  offset.writeUInt16LE(5, 14); // a 10x10 frame at x = 5
  t.equal(verdictOf('10x10', offset), 'INCONCLUSIVE', 'an offset frame past the screen');
  t.equal(verdictOf('square', gif(0, 0)), 'INCONCLUSIVE', 'a 0x0 screen');
  t.equal(verdictOf('10x10', gif(10, 10)), 'SUPPORTED', 'a frame inside its screen');
  // a global colour table (2 entries) and a comment extension before the frame are walked past
  const plain = gif(30, 20);
  const withBlocks = Buffer.concat([plain.subarray(0, 10), Buffer.from([0x80, 0, 0]), Buffer.alloc(6), Buffer.from([0x21, 0xfe, 3, 0x61, 0x62, 0x63, 0]), plain.subarray(13)]);
  t.equal(verdictOf('30x20', withBlocks), 'SUPPORTED');
  t.equal(kind(Buffer.concat([plain.subarray(0, 13), Buffer.from([0x3b])])), 'corrupt', 'a GIF without an image');
  t.equal(kind(plain.subarray(0, 13)), 'corrupt', 'cut before its first image');
  const endless = Buffer.concat([plain.subarray(0, 13), Buffer.from([0x21, 0xfe]), Buffer.alloc((MAX_WALK_STEPS + 1) * 2, 1)]);
  t.equal(kind(endless), 'corrupt', 'more sub-blocks than the walk budget');
});

t.test('WebP: a VP8 frame with a zero side is refused', async (t) => {
  t.equal(kind(webp(0, 10, 'VP8 ')), 'corrupt');
  t.equal(kind(webp(10, 0, 'VP8 ')), 'corrupt');
});

t.test('WebP: a still VP8X canvas must be its picture\'s size', async (t) => {
  // libwebp refuses a still picture whose bitstream is not the canvas size: no reader shows the canvas
  const extended = (canvas: [number, number], picture: Buffer, flags = 0) => {
    const head = webp(canvas[0], canvas[1], 'VP8X');
    head[20] = flags;
    const out = Buffer.concat([head, picture.subarray(12)]);
    out.writeUInt32LE(out.length - 8, 4);
    return out;
  };
  t.equal(kind(extended([800, 600], webp(10, 10, 'VP8L'))), 'corrupt', 'lossless 10x10 in an 800x600 canvas');
  t.equal(kind(extended([800, 600], webp(10, 10, 'VP8 '))), 'corrupt', 'lossy 10x10 in an 800x600 canvas');
  t.equal(kind(extended([800, 600], webp(0, 10, 'VP8 '))), 'corrupt', 'a zero side inside');
  t.equal(verdictOf('800x600', extended([800, 600], webp(800, 600, 'VP8L'))), 'SUPPORTED', 'the sizes agree');
  t.equal(kind(extended([800, 600], webp(10, 10, 'VP8L'), 0x02)), null, 'an animation\'s canvas is not its frames\' size');
});

t.test('the walk is bounded: past the budget an EXIF turn is not ruled out', async (t) => {
  const plain = png(800, 600);
  const many = Buffer.concat([plain.subarray(0, 33), Buffer.alloc(12 * MAX_WALK_STEPS), plain.subarray(33)]);
  t.equal(readImageHeader(many).exif_orientation, 'unreadable', 'empty chunks up to the budget');
  t.equal(verdictOf('800x600', many), 'INCONCLUSIVE');
  t.equal(verdictOf('a PNG', many), 'SUPPORTED');
  const j = jpeg(640, 480);
  const fill = Buffer.concat([j.subarray(0, 20), Buffer.alloc(MAX_WALK_STEPS + 1, 0xff), j.subarray(20)]);
  t.equal(kind(fill), 'corrupt', 'more fill bytes than the budget before the frame');
  const segs = Buffer.alloc(4 * MAX_WALK_STEPS);
  for (let at = 0; at < segs.length; at += 4) segs.set([0xff, 0xfe, 0, 2], at);
  const after = Buffer.concat([j.subarray(0, 33), segs, j.subarray(33)]);
  t.match(readImageHeader(after), { width: 640, height: 480, exif_orientation: 'unreadable' }, 'frame read, segments past the budget');
});

t.test('a "!" before a fragment negates it and is not interpreted; a closing "!" is only emphasis', async (t) => {
  t.equal(verdictOf('!800x600', png(800, 600)), 'INCONCLUSIVE');
  t.equal(verdictOf('! png', png(800, 600)), 'INCONCLUSIVE');
  t.equal(verdictOf('800x600!', png(800, 600)), 'SUPPORTED');
});

t.test('verifier.image: image_base64 is strict base64, white space aside', async (t) => {
  const b64 = png(800, 600).toString('base64');
  const run = (image_base64: string) => imageVerifier.verify({ image_base64, claim: 'less than 100 bytes' });
  t.match(await run(b64), { status: 'VERIFIED', developer_fields: { is_valid: false, byte_size: png(800, 600).length } });
  t.match(await run(b64.replace(/(.{60})/g, '$1\r\n')), { status: 'VERIFIED' }, 'line-wrapped');
  t.match(await run(b64.replace(/=+$/, '')), { status: 'VERIFIED' }, 'padding left out');
  t.ok(b64.endsWith('='), 'the fixture needs padding for the next cases');
  for (const bad of [b64 + 'AAAA', b64 + Buffer.alloc(5000).toString('base64'), '!!' + b64, `data:image/png;base64,${b64}`, b64.replace(/\+|\//g, '-'), b64 + '=', b64.slice(0, -4) + 'A=AA']) {
    t.match(await run(bad), { status: 'BLOCKED', developer_fields: { constraint_id: 'image_verifier.invalid_request' } }, bad.slice(-12));
  }
});

t.test('over HTTP: lying headers are a 400 or INCONCLUSIVE, never VERIFIED', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), imagePlugin] });
  t.teardown(() => s.close());
  const upload = async (image: Buffer, claim: string) => {
    const form = new FormData();
    form.append('claim', claim);
    form.append('image', new Blob([image], { type: 'image/png' }), 'x.bin');
    const res = await fetch(s.url + '/verify/image', { method: 'POST', body: form, headers: { 'x-api-key': TEST_API_KEY } });
    return { status: res.status, body: JSON.parse(await res.text()) };
  };
  const zero = await upload(pngIhdr(0, 0), 'square');
  t.equal(zero.status, 400);
  t.equal(zero.body.code, 'image_corrupt_header');
  const dnl = await upload(jpeg(640, 0), 'landscape');
  t.equal(dnl.status, 200);
  t.match(dnl.body, { verdict: 'INCONCLUSIVE', status: 'UNVERIFIABLE', proof_ref: null, developer_fields: { size_unsettled: /DNL/ } });
});
