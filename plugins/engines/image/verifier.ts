import type { Verifier } from '../../../core/types.js';
import { sha256HexYielding } from '../../../core/json/canonical.js';
import { blocked, unverifiable, verified, type DiagnosticResult } from '../../../core/verdict.js';
import { analyseClaim, type CheckKind } from './claims.js';
import { C } from './errors.js';
import { HeaderError, readImageHeader, type ImageInfo } from './header.js';
import { turnsQuarter } from './exif.js';

export const ENGINE_NAME = 'image';
/**
 * 1.1.0: claims with content words are never judged; exact byte sizes; symbols are not interpreted. 1.2.0: EXIF orientation.
 * 1.3.0: invalid sizes, a failed IHDR CRC and a WebP canvas unlike its picture are refused; a JPEG height left to DNL
 * and a GIF frame past its screen judge no size.
 */
export const ENGINE_VERSION = '1.3.0';
/** the checks a quarter turn on display changes */
const SIZE_KINDS: ReadonlySet<CheckKind> = new Set<CheckKind>(['dimensions', 'width', 'height', 'orientation']);
/** spec: 10 MB per image */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export type ImageVerdict = 'SUPPORTED' | 'REFUTED' | 'INCONCLUSIVE' | 'VLM_REQUIRED';

export interface ImageOutcome {
  fields: { verdict: ImageVerdict; confidence: number; reasoning: string; methods_used: string[] };
  diagnostic: DiagnosticResult;
}

/**
 * decisions §1: what the header proves is VERIFIED, true or false (`800x600` on a 640x480 file is
 * VERIFIED with is_valid false); anything about the picture's content is UNVERIFIABLE and needs a
 * vision model, which this service does not run. A claim with content words is not judged at all,
 * not even refuted: its format or size words cannot be told apart from words about the content.
 */
/** `digest`: sha256 hex of the file, computed by the caller in slices (sha256HexYielding) */
export function judge(claim: string, info: ImageInfo, data: Buffer, declaredType: string, digest: string): ImageOutcome {
  const a = analyseClaim(claim, info, data.length);
  const methods = ['header_parse', ...new Set(a.checks.map((c) => `${c.kind}_check`))];
  const facts = {
    format: info.format, width: info.width, height: info.height, byte_size: data.length, header_source: info.source, declared_mime_type: declaredType,
    ...(info.exif_orientation !== undefined ? { exif_orientation: info.exif_orientation } : {}),
    ...(info.size_unsettled !== undefined ? { size_unsettled: info.size_unsettled } : {}),
  };
  const base = { ...facts, checks: a.checks, uncovered_terms: a.uncovered };
  const failed = a.checks.filter((c) => !c.holds);
  const summary = `${info.format.toUpperCase()} ${info.width}x${info.height}, ${data.length} bytes`;

  if (a.uninterpretable) {
    const reasoning = `The claim uses "${a.uninterpretable}", which is not interpreted; the file is ${summary}.`;
    return { fields: { verdict: 'INCONCLUSIVE', confidence: 0, reasoning, methods_used: methods }, diagnostic: unverifiable(reasoning, base) };
  }
  // the header's size is not the one every reader shows: no size claim is judged on it
  const unsettled = info.size_unsettled !== undefined ? a.checks.filter((c) => SIZE_KINDS.has(c.kind)) : [];
  if (unsettled.length) {
    const reasoning = `The header gives ${info.width}x${info.height}, but ${info.size_unsettled}; "${unsettled.map((c) => c.fragment).join('", "')}" is not judged.`;
    return { fields: { verdict: 'INCONCLUSIVE', confidence: 0, reasoning, methods_used: methods }, diagnostic: unverifiable(reasoning, base) };
  }
  // a quarter turn on display: the stored and the shown size disagree, and the claim does not say which it means
  const turned = turnsQuarter(info.exif_orientation) ? a.checks.filter((c) => SIZE_KINDS.has(c.kind)) : [];
  if (turned.length) {
    const shown = `${info.height}x${info.width}`;
    const reasoning = `The file is stored ${info.width}x${info.height} but its EXIF orientation (${info.exif_orientation}) turns it a quarter turn when shown (${shown}); "${turned.map((c) => c.fragment).join('", "')}" may mean either, so it is not judged.`;
    return { fields: { verdict: 'INCONCLUSIVE', confidence: 0, reasoning, methods_used: methods }, diagnostic: unverifiable(reasoning, base) };
  }
  // only a claim wholly about the file is judged: with content words left, a fragment may be about the
  // picture ("a portrait of Lincoln", "a 4x4 grid", "a PNG logo"), so a false one proves nothing
  if (a.checks.length > 0 && a.uncovered.length === 0) {
    const holds = failed.length === 0;
    const reasoning = holds
      ? `Read from the file header: ${summary}; every part of the claim holds.`
      : `Read from the file header: ${summary}; ${failed.map((c) => `"${c.fragment}" is false (actual ${c.actual})`).join('; ')}.`;
    const diagnostic = verified(reasoning, { ...base, is_valid: holds }, {
      engine: ENGINE_NAME,
      engine_version: ENGINE_VERSION,
      input: { image_sha256: digest, claim },
      result: { format: info.format, width: info.width, height: info.height, byte_size: data.length, is_valid: holds, checks: a.checks.map((c) => ({ kind: c.kind, expected: c.expected, holds: c.holds })) },
    });
    return { fields: { verdict: holds ? 'SUPPORTED' : 'REFUTED', confidence: 1, reasoning, methods_used: methods }, diagnostic };
  }
  const reasoning = a.checks.length
    ? `"${a.uncovered.join(' ')}" is about the picture's content, which needs a vision model; the format and size words may describe the content too (${summary}), so they decide nothing.`
    : `Nothing in the claim is about the file's format, dimensions or size (${summary}); judging the picture's content needs a vision model.`;
  return { fields: { verdict: 'VLM_REQUIRED', confidence: 0, reasoning, methods_used: methods }, diagnostic: unverifiable(reasoning, base) };
}

/**
 * Strict base64: Buffer.from(…, 'base64') skips characters it does not know and stops at the first
 * padding, so "<png>==<more>" or "<png>AAAA" after padding was judged as bytes the caller never
 * meant (its size, its hash). White space (line-wrapped base64) is the only thing left out.
 */
export function decodeBase64(text: string): Buffer | null {
  const s = text.replace(/[\t\n\r ]+/g, '');
  if (/[^A-Za-z0-9+/=]/.test(s)) return null;
  const pad = s.indexOf('=');
  if (pad >= 0 ? s.length % 4 !== 0 || pad < s.length - 2 || (pad === s.length - 2 && s[s.length - 1] !== '=') : s.length % 4 === 1) return null;
  return Buffer.from(s, 'base64');
}

/** `verifier.image` for composite routes: input {image_base64, claim}; an unusable image is a BLOCKED verdict */
export const imageVerifier: Verifier = {
  async verify(input) {
    const { image_base64, claim } = input;
    if (typeof image_base64 !== 'string' || typeof claim !== 'string' || !claim.trim()) {
      return blocked('An image request needs image_base64 and claim strings.', C.invalidRequest);
    }
    const data = decodeBase64(image_base64);
    if (!data) return blocked('image_base64 is not base64 (RFC 4648 alphabet, padding only at the end; white space is allowed).', C.invalidRequest);
    if (data.length > MAX_IMAGE_BYTES) return blocked(`The image exceeds ${MAX_IMAGE_BYTES} bytes.`, C.invalidRequest);
    try {
      const info = readImageHeader(data);
      return judge(claim, info, data, 'application/octet-stream', await sha256HexYielding(data)).diagnostic;
    } catch (err) {
      if (!(err instanceof HeaderError)) throw err;
      return blocked(`The image was refused: ${err.message}.`, C.invalidRequest);
    }
  },
};
