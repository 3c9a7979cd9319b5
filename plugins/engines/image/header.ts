import { crc32 } from 'node:zlib';
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
  /** why the header's size may not be the size decoders show (a JPEG height left to a DNL marker, a GIF frame past its screen) */
  size_unsettled?: string;
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

/**
 * Chunks, segments, blocks and fill bytes walked per file. Each step is a few bytes, so a 10 MiB file
 * of empty chunks was ~870,000 steps on the request thread (0.1–0.25 s); real files need a few hundred.
 * Past the budget what the rest of the file holds is not known: an EXIF block there may turn the picture.
 */
export const MAX_WALK_STEPS = 65_536;

/** `info` with the orientation of the first EXIF block found, if any */
const withExif = (info: ImageInfo, o: ExifOrientation | undefined): ImageInfo => (o === undefined ? info : { ...info, exif_orientation: o });

const IHDR = 0x49484452;
const IEND = 0x49454e44;
const EXIF_PNG = 0x65584966; // eXIf
/** PNG colour type → allowed bit depths */
const PNG_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const PNG_MAX = 0x7fffffff;

function png(b: Buffer): ImageInfo {
  need(b, 33, 'PNG header');
  if (b.readUInt32BE(12) !== IHDR || b.readUInt32BE(8) !== 13) throw new HeaderError('corrupt', 'PNG does not start with an IHDR chunk');
  // every decoder refuses a critical chunk whose CRC fails: such a file is no picture of any size
  if (crc32(b.subarray(12, 29)) !== b.readUInt32BE(29)) throw new HeaderError('corrupt', 'PNG IHDR chunk fails its CRC');
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  if (width < 1 || height < 1 || width > PNG_MAX || height > PNG_MAX) throw new HeaderError('corrupt', `PNG IHDR size ${width}x${height} is outside 1..2^31-1`);
  if (!PNG_DEPTHS[b[25]]?.includes(b[24]) || b[26] !== 0 || b[27] !== 0 || b[28] > 1) throw new HeaderError('corrupt', 'PNG IHDR fields are not a valid combination');
  const info: ImageInfo = { format: 'png', width, height, source: 'png_ihdr' };
  // chunks are walked by their lengths (no data is decoded) for an eXIf chunk
  let steps = 0;
  for (let at = 8; at + 8 <= b.length; ) {
    if (++steps > MAX_WALK_STEPS) return withExif(info, 'unreadable');
    const len = b.readUInt32BE(at);
    const type = b.readUInt32BE(at + 4);
    if (type === EXIF_PNG) return withExif(info, at + 8 + len <= b.length ? chunkOrientation(b.subarray(at + 8, at + 8 + len)) : 'unreadable');
    if (type === IEND) break;
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
  let steps = 0;
  const tooLong = () => {
    if (!frame) throw new HeaderError('corrupt', `JPEG has more than ${MAX_WALK_STEPS} segments or fill bytes before its frame header`);
    return withExif(frame, orientation ?? 'unreadable');
  };
  while (at < b.length) {
    if (b[at] !== 0xff) throw new HeaderError('corrupt', `JPEG marker expected at byte ${at}`);
    // fill bytes: any number of 0xFF before the marker code
    while (at < b.length && b[at] === 0xff) {
      at++;
      if (++steps > MAX_WALK_STEPS) return tooLong();
    }
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
      if (frame.width === 0) throw new HeaderError('corrupt', 'JPEG frame header gives a width of 0');
      // a height of 0 is legal: the real one comes in a DNL marker after the first scan, which is not read
      if (frame.height === 0) frame.size_unsettled = 'the JPEG frame header leaves the height to a DNL marker after the first scan';
    }
    // the walk goes on to the scan: readers apply an EXIF block wherever it sits before it
    if (marker === 0xe1 && orientation === undefined) orientation = at + len <= b.length ? app1Orientation(b.subarray(at + 2, at + len)) : 'unreadable';
    at += len;
  }
  if (!frame) throw new HeaderError('corrupt', 'JPEG has no frame header before its image data');
  return withExif(frame, orientation);
}

/**
 * The logical screen is the GIF's size, but browsers grow it to fit the first frame (a screen of 0x0
 * is common in broken files) while other decoders crop: when the first frame reaches past the screen,
 * which size is shown depends on the reader. So the walk goes on, past the colour table and the
 * extension blocks, to the first image descriptor.
 */
function gif(b: Buffer): ImageInfo {
  need(b, 13, 'GIF logical screen descriptor');
  const info: ImageInfo = { format: 'gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8), source: 'gif_lsd' };
  let at = 13 + (b[10] & 0x80 ? 3 << ((b[10] & 7) + 1) : 0);
  for (let steps = 0; ; ) {
    need(b, at + 1, 'GIF before its first image');
    const intro = b[at];
    if (intro === 0x2c) break;
    if (intro !== 0x21) throw new HeaderError('corrupt', intro === 0x3b ? 'GIF has no image' : `GIF block expected at byte ${at}`);
    // extension: label, then data sub-blocks (size byte, data) up to an empty one
    at += 2;
    for (;;) {
      if (++steps > MAX_WALK_STEPS) throw new HeaderError('corrupt', `GIF has more than ${MAX_WALK_STEPS} blocks before its first image`);
      need(b, at + 1, 'GIF extension block');
      const size = b[at];
      at += 1 + size;
      if (size === 0) break;
    }
  }
  need(b, at + 10, 'GIF image descriptor');
  const left = b.readUInt16LE(at + 1);
  const top = b.readUInt16LE(at + 3);
  const w = b.readUInt16LE(at + 5);
  const h = b.readUInt16LE(at + 7);
  if (info.width === 0 || info.height === 0 || left + w > info.width || top + h > info.height) {
    info.size_unsettled = `the GIF's first frame (${w}x${h} at ${left},${top}) reaches past its ${info.width}x${info.height} logical screen, which some readers grow to fit it`;
  }
  return info;
}

/** a VP8 (lossy) bitstream at `data`: frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height */
function vp8Size(b: Buffer, data: number): [number, number] {
  need(b, data + 10, 'WebP VP8 frame header');
  if (b[data + 3] !== 0x9d || b[data + 4] !== 0x01 || b[data + 5] !== 0x2a) throw new HeaderError('corrupt', 'WebP VP8 start code missing');
  const size: [number, number] = [b.readUInt16LE(data + 6) & 0x3fff, b.readUInt16LE(data + 8) & 0x3fff];
  if (size[0] === 0 || size[1] === 0) throw new HeaderError('corrupt', `WebP VP8 size ${size[0]}x${size[1]} has a zero side`);
  return size;
}

/** a VP8L (lossless) bitstream at `data`: signature 2F, then 14-bit width-1 and height-1 */
function vp8lSize(b: Buffer, data: number): [number, number] {
  need(b, data + 5, 'WebP VP8L header');
  if (b[data] !== 0x2f) throw new HeaderError('corrupt', 'WebP VP8L signature missing');
  const bits = b.readUInt32LE(data + 1);
  return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
}

const VP8 = 0x56503820; // "VP8 "
const VP8L = 0x5650384c;
const EXIF_WEBP = 0x45584946; // "EXIF"

function webp(b: Buffer): ImageInfo {
  need(b, 30, 'WebP header');
  const chunk = b.readUInt32BE(12);
  const data = 20;
  if (chunk === VP8) {
    const [width, height] = vp8Size(b, data);
    return { format: 'webp', width, height, source: 'webp_vp8' };
  }
  if (chunk === VP8L) {
    const [width, height] = vp8lSize(b, data);
    return { format: 'webp', width, height, source: 'webp_vp8l' };
  }
  if (ascii(b, 12, 4) === 'VP8X') {
    // flags (1) + reserved (3), then canvas width-1 and height-1 as 24-bit little-endian
    const info: ImageInfo = { format: 'webp', width: b.readUIntLE(data + 4, 3) + 1, height: b.readUIntLE(data + 7, 3) + 1, source: 'webp_vp8x' };
    const animated = (b[data] & 0x02) !== 0;
    // only the extended format carries metadata: its chunks are walked by length for EXIF, and a
    // still picture's own bitstream must have the canvas size (libwebp refuses the file otherwise)
    let orientation: ExifOrientation | undefined;
    let exifSeen = false;
    let steps = 0;
    for (let at = 12; at + 8 <= b.length; ) {
      if (++steps > MAX_WALK_STEPS) return withExif(info, exifSeen ? orientation : 'unreadable');
      const id = b.readUInt32BE(at);
      const len = b.readUInt32LE(at + 4);
      if (id === EXIF_WEBP && !exifSeen) {
        exifSeen = true;
        orientation = at + 8 + len <= b.length ? chunkOrientation(b.subarray(at + 8, at + 8 + len)) : 'unreadable';
      }
      if (!animated && (id === VP8 || id === VP8L)) {
        const [w, h] = id === VP8 ? vp8Size(b, at + 8) : vp8lSize(b, at + 8);
        if (w !== info.width || h !== info.height) throw new HeaderError('corrupt', `WebP VP8X canvas ${info.width}x${info.height} differs from its picture's ${w}x${h}`);
      }
      at += 8 + len + (len & 1);
    }
    return withExif(info, orientation);
  }
  throw new HeaderError('corrupt', `WebP first chunk ${JSON.stringify(ascii(b, 12, 4))} is not VP8, VP8L or VP8X`);
}

export function readImageHeader(b: Buffer): ImageInfo {
  if (b.length >= 8 && PNG_SIG.every((v, i) => b[i] === v)) return png(b);
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpeg(b);
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return gif(b);
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webp(b);
  throw new HeaderError('unsupported', 'not a PNG, JPEG, GIF or WebP file (by its signature bytes)');
}
