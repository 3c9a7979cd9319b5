/**
 * The EXIF orientation tag (0x0112) of a TIFF structure, as JPEG APP1 "Exif", PNG eXIf and WebP EXIF
 * chunks carry it. Values 5–8 turn the picture a quarter turn when shown: a phone photo stored
 * 4032x3024 is shown 3024x4032, so whether "portrait" or "3024x4032" is true depends on which size
 * the claim means. `unreadable`: an EXIF block is there but broken, so the turn is not known either.
 */
export type ExifOrientation = number | 'unreadable';

const ORIENTATION_TAG = 0x0112;

/** `tiff` starts at the TIFF header ("II*\0" or "MM\0*"); undefined when the block has no orientation tag */
export function tiffOrientation(tiff: Buffer): ExifOrientation | undefined {
  if (tiff.length < 8) return 'unreadable';
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return 'unreadable';
  const le = order === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  if (u16(2) !== 42) return 'unreadable';
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return 'unreadable';
  const count = u16(ifd);
  if (ifd + 2 + count * 12 > tiff.length) return 'unreadable';
  for (let i = 0; i < count; i++) {
    const e = ifd + 2 + i * 12;
    if (u16(e) !== ORIENTATION_TAG) continue;
    // SHORT, one value, stored in the first two bytes of the value field
    if (u16(e + 2) !== 3 || u32(e + 4) !== 1) return 'unreadable';
    const v = u16(e + 8);
    return v >= 1 && v <= 8 ? v : 'unreadable';
  }
  return undefined;
}

/** A PNG eXIf or WebP EXIF chunk: the TIFF structure, which some writers prefix with "Exif\0\0" as in JPEG */
export function chunkOrientation(data: Buffer): ExifOrientation | undefined {
  return tiffOrientation(data.toString('latin1', 0, 6) === 'Exif\0\0' ? data.subarray(6) : data);
}

/** JPEG APP1 payload: "Exif\0\0" then TIFF; other APP1 payloads (XMP) hold no EXIF */
export function app1Orientation(payload: Buffer): ExifOrientation | undefined {
  if (payload.toString('latin1', 0, 6) !== 'Exif\0\0') return undefined;
  return tiffOrientation(payload.subarray(6));
}

/** Orientations 5–8 swap width and height when shown; an unreadable block may do so too. */
export const turnsQuarter = (o: ExifOrientation | undefined): boolean => o === 'unreadable' || (o !== undefined && o >= 5);
