import t from 'tap';
import { readImageHeader, HeaderError } from '../../../plugins/engines/image/header.js';
import { analyseClaim } from '../../../plugins/engines/image/claims.js';
import { gif, jpeg, png, webp } from '../image/fixtures.js';

t.test('format and dimensions from header bytes', async (t) => {
  t.same(readImageHeader(png(800, 600)), { format: 'png', width: 800, height: 600, source: 'png_ihdr' });
  t.same(readImageHeader(jpeg(640, 480)), { format: 'jpeg', width: 640, height: 480, source: 'jpeg_sof0' });
  t.same(readImageHeader(jpeg(1920, 1080, 0xc2, true)), { format: 'jpeg', width: 1920, height: 1080, source: 'jpeg_sof2' }, 'progressive, fill bytes');
  t.same(readImageHeader(gif(320, 200)), { format: 'gif', width: 320, height: 200, source: 'gif_lsd' });
  t.same(readImageHeader(webp(300, 150, 'VP8 ')), { format: 'webp', width: 300, height: 150, source: 'webp_vp8' });
  t.same(readImageHeader(webp(4000, 3000, 'VP8L')), { format: 'webp', width: 4000, height: 3000, source: 'webp_vp8l' });
  t.same(readImageHeader(webp(20000, 10, 'VP8X')), { format: 'webp', width: 20000, height: 10, source: 'webp_vp8x' });
  const kind = (b: Buffer) => {
    try {
      readImageHeader(b);
      return null;
    } catch (e) {
      return e instanceof HeaderError ? e.kind : 'other';
    }
  };
  t.equal(kind(Buffer.from('%PDF-1.7 hello')), 'unsupported');
  t.equal(kind(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), 'unsupported');
  t.equal(kind(Buffer.alloc(0)), 'unsupported');
  t.equal(kind(png(8, 8).subarray(0, 20)), 'corrupt', 'truncated IHDR');
  t.equal(kind(Buffer.from([0xff, 0xd8, 0xff, 0xd9])), 'corrupt', 'JPEG without a frame header');
  t.equal(kind(jpeg(8, 8).subarray(0, 25)), 'corrupt', 'JPEG cut inside the frame header');
  t.equal(kind(Buffer.from('RIFF\0\0\0\0WEBPVP9 ' + '\0'.repeat(30), 'latin1')), 'corrupt');
});

t.test('claim analysis', async (t) => {
  const info = { format: 'png' as const, width: 800, height: 600, source: 'png_ihdr' };
  const a = analyseClaim('This image is 800x600 pixels', info, 5000);
  t.same(a.checks.map((c) => [c.kind, c.holds]), [['dimensions', true]]);
  t.same(a.uncovered, []);
  t.same(analyseClaim('a PNG, 640 × 480', info, 5000).checks.map((c) => [c.kind, c.expected, c.holds]), [['dimensions', '640x480', false], ['format', 'png', true]]);
  t.same(analyseClaim('width is 800 and it is 600 px tall, landscape', info, 5000).checks.map((c) => [c.kind, c.holds]), [['width', true], ['height', true], ['orientation', true]]);
  t.same(analyseClaim('smaller than 1 KB', info, 1000).checks.map((c) => c.holds), [false], 'KB = 1000 bytes, strict');
  t.same(analyseClaim('at most 1 KB', info, 1000).checks.map((c) => c.holds), [true]);
  t.same(analyseClaim('no more than 1 KiB', info, 1000).checks.map((c) => c.holds), [true]);
  t.equal(analyseClaim('no more than 1 KiB', info, 1000).uninterpretable, null, '"no more than" is a bound, not a negation');
  t.same(analyseClaim('a JPEG photo of a cat', info, 10).uncovered, ['of', 'cat'], '"of" introduces what the picture shows');
  t.equal(analyseClaim('is not a PNG', info, 10).uninterpretable, 'not');
  t.equal(analyseClaim('a PNG or a GIF', info, 10).uninterpretable, 'or');
});
