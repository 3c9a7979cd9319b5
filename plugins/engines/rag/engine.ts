/**
 * Document retrieval mismatch (DRM): the share of retrieved chunks whose metadata names a document
 * other than the target. Counting is exact, and so is the comparison with the allowed rate: both
 * sides are rationals compared by cross-multiplication in BigInt, so "1/3" never meets 0.333….
 */

export const ENGINE_NAME = 'rag';
export const ENGINE_VERSION = '1.1.0';
export const RISK_MISMATCH = 'DOCUMENT_RETRIEVAL_MISMATCH';
export const RISK_NONE = 'NONE';
export const MAX_RATE_CHARS = 64;

export interface Rational {
  num: bigint;
  den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduce(num: bigint, den: bigint): Rational {
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g };
}

export function formatRational(r: Rational): string {
  return r.den === 1n ? `${r.num}` : `${r.num}/${r.den}`;
}

/**
 * A rate written as `p/q` (non-negative integers, q > 0) or a plain decimal (`0.1`, `.25`, `1`),
 * between 0 and 1 inclusive. Exponents, signs, spaces inside numbers, NaN and Infinity are refused:
 * a threshold must mean one exact number. Returns null when the text is not such a rate.
 */
export function parseRate(text: string): Rational | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_RATE_CHARS) return null;
  const s = text.trim();
  let r: Rational | null = null;
  const frac = /^(\d+)\s*\/\s*(\d+)$/.exec(s);
  if (frac) {
    const den = BigInt(frac[2]);
    if (den === 0n) return null;
    r = reduce(BigInt(frac[1]), den);
  } else {
    const dec = /^(\d*)(?:\.(\d+))?$/.exec(s);
    if (!dec || (dec[1] === '' && dec[2] === undefined)) return null;
    const fracDigits = dec[2] ?? '';
    r = reduce(BigInt((dec[1] || '0') + fracDigits), 10n ** BigInt(fracDigits.length));
  }
  return r.num <= r.den ? r : null;
}

export interface Chunk {
  id: string;
  metadata: { document_id: string } & Record<string, unknown>;
}

export interface DrmResult {
  verified: boolean;
  risk: string;
  drm_rate: number;
  chunks_checked: number;
  mismatched_count: number;
  drm_rate_exact: string;
  max_drm_rate_exact: string;
  mismatched_chunk_ids: string[];
}

/** verified ⇔ mismatched / checked ≤ max, decided exactly: mismatched·max.den ≤ max.num·checked. */
export function checkDrm(target: string, chunks: readonly Chunk[], max: Rational): DrmResult {
  const mismatched = chunks.filter((c) => c.metadata.document_id !== target).map((c) => c.id);
  const m = BigInt(mismatched.length);
  const n = BigInt(chunks.length);
  const verified = m * max.den <= max.num * n;
  return {
    verified,
    risk: verified ? RISK_NONE : RISK_MISMATCH,
    drm_rate: mismatched.length / chunks.length,
    chunks_checked: chunks.length,
    mismatched_count: mismatched.length,
    drm_rate_exact: formatRational(reduce(m, n)),
    max_drm_rate_exact: formatRational(max),
    mismatched_chunk_ids: mismatched,
  };
}
