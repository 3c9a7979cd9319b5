import { app1Orientation, chunkOrientation, type ExifOrientation } from './exif.js';

/**
 * Format and dimensions read from the file's own header bytes, never from the declared MIME type or
 * file name: PNG IHDR, JPEG start-of-frame, GIF logical screen descriptor, WebP VP8/VP8L/VP8X; and
 * the EXIF orientation, which turns the stored size when the picture is shown (exif.ts).
 * Every read is bounds-checked; a recognised signature with a broken header is an error, not a guess.
 */

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
  /** which header structure gave the dimensions */
  source: string;
  /** the EXIF orientation tag, when the file carries one */
  exif_orientation?: ExifOrientation;
}

export class HeaderError extends Error {
  constructor(
    readonly kind: 'unsupported' | 'corrupt',
    message: string,
  ) {
    super(message);
  }
}

const PNG_SIG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const ascii = (b: Buffer, at: number, len: number) => (at + len <= b.length ? b.toString('latin1', at, at + len) : '');

function need(b: Buffer, end: number, what: string): void {
  if (end > b.length) throw new HeaderError('corrupt', `truncated ${what}`);
}

/** `info` with the orientation of the first EXIF block found, if any */
const withExif = (info: ImageInfo, o: ExifOrientation | undefined): ImageInfo => (o === undefined ? info : { ...info, exif_orientation: o });

function png(b: Buffer): ImageInfo {
  need(b, 24, 'PNG header');
  if (ascii(b, 12, 4) !== 'IHDR' || b.readUInt32BE(8) !== 13) throw new HeaderError('corrupt', 'PNG does not start with an IHDR chunk');
  const info: ImageInfo = { format: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20), source: 'png_ihdr' };
  // chunks are walked by their lengths (no data is decoded) for an eXIf chunk
  for (let at = 8; at + 8 <= b.length; ) {
    const len = b.readUInt32BE(at);
    const type = ascii(b, at + 4, 4);
    if (type === 'eXIf') return withExif(info, at + 8 + len <= b.length ? chunkOrientation(b.subarray(at + 8, at + 8 + len)) : 'unreadable');
    if (type === 'IEND') break;
    at += 12 + len;
  }
  return info;
}

/** SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size */
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function jpeg(b: Buffer): ImageInfo {
  let at = 2;
  let frame: ImageInfo | undefined;
  let orientation: ExifOrientation | undefined;
  while (at < b.length) {
    if (b[at] !== 0xff) throw new HeaderError('corrupt', `JPEG marker expected at byte ${at}`);
    // fill bytes: any number of 0xFF before the marker code
    while (at < b.length && b[at] === 0xff) at++;
    need(b, at + 1, 'JPEG marker');
    const marker = b[at++];
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue; // no length
    if (marker === 0xd9 || marker === 0xda) break; // end of image / start of scan
    need(b, at + 2, 'JPEG segment length');
    const len = b.readUInt16BE(at);
    if (len < 2) throw new HeaderError('corrupt', 'JPEG segment length below 2');
    if (isSof(marker) && !frame) {
      need(b, at + 7, 'JPEG frame header');
      frame = { format: 'jpeg', height: b.readUInt16BE(at + 3), width: b.readUInt16BE(at + 5), source: `jpeg_sof${marker - 0xc0}` };
    }
    // the walk goes on to the scan: readers apply an EXIF block wherever it sits before it
    if (marker === 0xe1 && orientation === undefined) orientation = at + len <= b.length ? app1Orientation(b.subarray(at + 2, at + len)) : 'unreadable';
    at += len;
  }
  if (!frame) throw new HeaderError('corrupt', 'JPEG has no frame header before its image data');
  return withExif(frame, orientation);
}

function gif(b: Buffer): ImageInfo {
  need(b, 10, 'GIF logical screen descriptor');
  return { format: 'gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8), source: 'gif_lsd' };
}

function webp(b: Buffer): ImageInfo {
  need(b, 30, 'WebP header');
  const chunk = ascii(b, 12, 4);
  const data = 20;
  if (chunk === 'VP8 ') {
    // frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height
    if (b[data + 3] !== 0x9d || b[data + 4] !== 0x01 || b[data + 5] !== 0x2a) throw new HeaderError('corrupt', 'WebP VP8 start code missing');
    return { format: 'webp', width: b.readUInt16LE(data + 6) & 0x3fff, height: b.readUInt16LE(data + 8) & 0x3fff, source: 'webp_vp8' };
  }
  if (chunk === 'VP8L') {
    if (b[data] !== 0x2f) throw new HeaderError('corrupt', 'WebP VP8L signature missing');
    const bits = b.readUInt32LE(data + 1);
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, source: 'webp_vp8l' };
  }
  if (chunk === 'VP8X') {
    // flags (1) + reserved (3), then canvas width-1 and height-1 as 24-bit little-endian
    const info: ImageInfo = { format: 'webp', width: b.readUIntLE(data + 4, 3) + 1, height: b.readUIntLE(data + 7, 3) + 1, source: 'webp_vp8x' };
    // only the extended format carries metadata: its chunks are walked by length for EXIF
    for (let at = 12; at + 8 <= b.length; ) {
      const len = b.readUInt32LE(at + 4);
      if (ascii(b, at, 4) === 'EXIF') return withExif(info, at + 8 + len <= b.length ? chunkOrientation(b.subarray(at + 8, at + 8 + len)) : 'unreadable');
      at += 8 + len + (len & 1);
    }
    return info;
  }
  throw new HeaderError('corrupt', `WebP first chunk ${JSON.stringify(chunk)} is not VP8, VP8L or VP8X`);
}

export function readImageHeader(b: Buffer): ImageInfo {
  if (b.length >= 8 && PNG_SIG.every((v, i) => b[i] === v)) return png(b);
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpeg(b);
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return gif(b);
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webp(b);
  throw new HeaderError('unsupported', 'not a PNG, JPEG, GIF or WebP file (by its signature bytes)');
}
