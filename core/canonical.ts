import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import canonicalizeImpl from 'canonicalize';

/**
 * RFC 8785 (JCS) canonical JSON. Every hash the service computes goes through here so that two
 * semantically equal objects never hash differently (decisions §3). The `canonicalize` package is
 * the reference implementation by the RFC's authors; we only add the fail-closed edge: values JCS
 * cannot represent (undefined at top level, NaN, Infinity, BigInt) throw instead of hashing "null".
 */
export function canonicalJson(value: unknown): string {
  assertCanonicalizable(value, '$');
  const out = (canonicalizeImpl as (v: unknown) => string | undefined)(value);
  if (out === undefined) throw new TypeError('value has no canonical JSON form');
  return out;
}

function assertCanonicalizable(value: unknown, path: string): void {
  if (value === null) return;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`non-finite number at ${path}`);
      return;
    case 'object':
      if (Array.isArray(value)) {
        value.forEach((v, i) => assertCanonicalizable(v, `${path}[${i}]`));
        return;
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v !== undefined) assertCanonicalizable(v, `${path}.${k}`);
      }
      return;
    default:
      throw new TypeError(`${typeof value} at ${path} has no JSON form`);
  }
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256:<hex>` of the canonical JSON of `value`: the one commitment format of the service. */
export function sha256Ref(value: unknown): string {
  return 'sha256:' + sha256Hex(canonicalJson(value));
}

export function hmacSha256Hex(secret: string | Buffer, data: string | Buffer): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

/** Constant-time comparison of two hex/ascii strings; unequal lengths compare false without early exit on content. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export const SHA256_REF = /^sha256:[0-9a-f]{64}$/;
