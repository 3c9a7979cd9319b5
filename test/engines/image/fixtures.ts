import { crc32, deflateSync } from 'node:zlib';

/** Minimal but well-formed images of a chosen size, built byte by byte (no encoder needed). */

export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc((width + 1) * height); // filter byte + one grey byte per pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** SOI, a JFIF APP0, then a start-of-frame (SOF0 baseline or SOF2 progressive) and EOI */
export function jpeg(width: number, height: number, sof = 0xc0, fill = false): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sofSeg = Buffer.from([0xff, sof, 0x00, 0x0b, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x01, 0x01, 0x11, 0x00]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, fill ? Buffer.from([0xff, 0xff]) : Buffer.alloc(0), sofSeg, Buffer.from([0xff, 0xd9])]);
}

export function gif(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return Buffer.concat([b, Buffer.from([0x2c, 0, 0, 0, 0, width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b])]);
}

function riff(chunk: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(12 + payload.length, 4);
  head.write('WEBP', 8, 'latin1');
  head.write(chunk, 12, 'latin1');
  head.writeUInt32LE(payload.length, 16);
  return Buffer.concat([head, payload]);
}

export function webp(width: number, height: number, kind: 'VP8 ' | 'VP8L' | 'VP8X'): Buffer {
  if (kind === 'VP8 ') {
    const p = Buffer.alloc(16);
    p[3] = 0x9d;
    p[4] = 0x01;
    p[5] = 0x2a;
    p.writeUInt16LE(width, 6);
    p.writeUInt16LE(height, 8);
    return riff(kind, p);
  }
  if (kind === 'VP8L') {
    const p = Buffer.alloc(16);
    p[0] = 0x2f;
    p.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
    return riff(kind, p);
  }
  const p = Buffer.alloc(16);
  p.writeUIntLE(width - 1, 4, 3);
  p.writeUIntLE(height - 1, 7, 3);
  return riff(kind, p);
}

/** A TIFF structure whose first IFD holds only the orientation tag (little- or big-endian). */
export function tiffWithOrientation(orientation: number, order: 'II' | 'MM' = 'II'): Buffer {
  const b = Buffer.alloc(8 + 2 + 12 + 4);
  const le = order === 'II';
  const u16 = (v: number, at: number) => (le ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at));
  const u32 = (v: number, at: number) => (le ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));
  b.write(order, 0, 'latin1');
  u16(42, 2);
  u32(8, 4);
  u16(1, 8);
  u16(0x0112, 10);
  u16(3, 12);
  u32(1, 14);
  u16(orientation, 18);
  return b;
}

/** `jpeg()` with an APP1 "Exif" segment (before the frame, or after it when `afterFrame`) */
export function jpegWithExif(width: number, height: number, tiff: Buffer, afterFrame = false): Buffer {
  const plain = jpeg(width, height);
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]), payload]);
  // SOI (2) + APP0 (18) + SOF0 (13) + EOI (2)
  const at = afterFrame ? 33 : 20;
  return Buffer.concat([plain.subarray(0, at), app1, plain.subarray(at)]);
}

/** `png()` with an eXIf chunk before the image data */
export function pngWithExif(width: number, height: number, tiff: Buffer): Buffer {
  const plain = png(width, height);
  // signature (8) + IHDR chunk (25)
  return Buffer.concat([plain.subarray(0, 33), pngChunk('eXIf', tiff), plain.subarray(33)]);
}

/** an extended WebP (VP8X, EXIF flag set) followed by an EXIF chunk */
export function webpWithExif(width: number, height: number, tiff: Buffer): Buffer {
  const base = webp(width, height, 'VP8X');
  base[20] |= 0x08;
  const head = Buffer.alloc(8);
  head.write('EXIF', 0, 'latin1');
  head.writeUInt32LE(tiff.length, 4);
  const out = Buffer.concat([base, head, tiff, tiff.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}
