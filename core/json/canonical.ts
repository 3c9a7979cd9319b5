import { createHash, createHmac, hash, timingSafeEqual } from 'node:crypto';
import canonicalizeImpl from 'canonicalize';

/**
 * RFC 8785 (JCS) canonical JSON. Every hash the service computes goes through here so that two
 * semantically equal objects never hash differently (decisions §3). The `canonicalize` package is
 * the reference implementation by the RFC's authors; we only add the fail-closed edge: values JCS
 * cannot represent (undefined at top level, NaN, Infinity, BigInt) throw instead of hashing "null".
 */
export function canonicalJson(value: unknown): string {
  // small plain values (a message payload, a verdict's claims) are written directly: no key set,
  // no replacer list; anything else, refusals included, takes the general path below
  const small = writeSmall(value, { nodes: SMALL_NODES }, 0);
  if (small !== undefined) return small;
  const keys = collectKeys(value);
  // Fast path: JSON.stringify with the sorted list of every key the value holds writes each
  // object's members in RFC 8785 order at native speed (the reference implementation took ~120 ms
  // for a 1 MB body on the event loop). The list is consulted per object, so a value with very many
  // distinct keys takes the reference implementation instead of a quadratic walk.
  // the list is read with [[Get]], so a "__proto__" member name would pull Object.prototype into
  // every other object: such values take the reference implementation as well
  if (keys.objects * keys.names.size <= FAST_PATH_BUDGET && !keys.names.has('__proto__')) {
    const out = JSON.stringify(value, [...keys.names].sort());
    if (out === undefined) throw new TypeError('value has no canonical JSON form');
    return out;
  }
  const out = (canonicalizeImpl as (v: unknown) => string | undefined)(value);
  if (out === undefined) throw new TypeError('value has no canonical JSON form');
  return out;
}

/** objects × distinct keys below which the property-list fast path is linear enough */
const FAST_PATH_BUDGET = 4_000_000;

/** values and nesting the direct writer takes; beyond, native JSON.stringify with a key list is faster */
const SMALL_NODES = 200;
const SMALL_DEPTH = 16;

/**
 * RFC 8785 text of a small value made only of plain objects, arrays, well-formed strings, finite
 * numbers, booleans and null — members sorted by UTF-16 code units (Array.prototype.sort's order),
 * strings and numbers as JSON.stringify writes them (which is what RFC 8785 prescribes). Undefined
 * for anything else (toJSON, class instances, undefined members, lone surrogates, non-finite
 * numbers, `__proto__`, too many nodes or too deep): the general path then answers or refuses.
 */
function writeSmall(v: unknown, budget: { nodes: number }, depth: number): string | undefined {
  if (--budget.nodes < 0) return undefined;
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return (v as unknown as { isWellFormed(): boolean }).isWellFormed() ? JSON.stringify(v) : undefined;
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : undefined;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (depth >= SMALL_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === 'function') return undefined;
      const proto = Object.getPrototypeOf(v);
      if (Array.isArray(v)) {
        if (proto !== Array.prototype) return undefined;
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          const item = writeSmall(v[i], budget, depth + 1);
          if (item === undefined) return undefined;
          out += i === 0 ? item : ',' + item;
        }
        return out + ']';
      }
      if (proto !== Object.prototype && proto !== null) return undefined;
      const names = Object.keys(v).sort();
      let out = '{';
      for (let i = 0; i < names.length; i++) {
        const k = names[i];
        if (k === '__proto__' || !(k as unknown as { isWellFormed(): boolean }).isWellFormed()) return undefined;
        const member = writeSmall((v as Record<string, unknown>)[k], budget, depth + 1);
        if (member === undefined) return undefined;
        out += (i === 0 ? '' : ',') + JSON.stringify(k) + ':' + member;
      }
      return out + '}';
    }
    default:
      return undefined;
  }
}

/**
 * One iterative walk: refuses what JCS cannot represent (undefined at top level or in an array,
 * NaN, ±Infinity, BigInt, functions, symbols) and collects every member name. An object with
 * toJSON is walked through what toJSON returns, as JSON.stringify will serialise that.
 */
function collectKeys(root: unknown): { names: Set<string>; objects: number } {
  const names = new Set<string>();
  let objects = 0;
  const stack: unknown[] = [root];
  while (stack.length) {
    let value = stack.pop();
    if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      value = (value as { toJSON(): unknown }).toJSON();
    }
    if (value === null) continue;
    switch (typeof value) {
      case 'string':
        // RFC 8785 is defined over I-JSON: a lone surrogate has no canonical form (fail closed, as the reference does)
        if (!(value as unknown as { isWellFormed(): boolean }).isWellFormed()) throw new TypeError('a string with a lone surrogate has no canonical JSON form');
        continue;
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(value)) throw new TypeError('non-finite number in the value');
        continue;
      case 'object':
        objects++;
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) stack.push(value[i]);
          continue;
        }
        for (const k of Object.keys(value as Record<string, unknown>)) {
          const v = (value as Record<string, unknown>)[k];
          if (!(k as unknown as { isWellFormed(): boolean }).isWellFormed()) throw new TypeError('a member name with a lone surrogate has no canonical JSON form');
          names.add(k);
          if (v !== undefined) stack.push(v);
        }
        continue;
      default:
        throw new TypeError(`a ${typeof value} has no JSON form`);
    }
  }
  return { names, objects };
}

/** one-shot `crypto.hash`: no Hash object per call (about half the cost of createHash for a short input) */
export function sha256Hex(data: string | Buffer): string {
  return hash('sha256', data, 'hex');
}

/** `sha256:<hex>` of the canonical JSON of `value`: the one commitment format of the service. */
export function sha256Ref(value: unknown): string {
  return 'sha256:' + sha256Hex(canonicalJson(value));
}

/** bytes hashed between two turns of the event loop by sha256HexYielding */
const HASH_SLICE = 1024 * 1024;

/**
 * sha256Hex of a large buffer in 1 MiB slices with a turn of the event loop between them: hashing
 * 10 MB takes tens of milliseconds, which would otherwise hold every other request (issue 12, item 8).
 */
export async function sha256HexYielding(data: Buffer): Promise<string> {
  const h = createHash('sha256');
  for (let at = 0; at < data.length; at += HASH_SLICE) {
    h.update(data.subarray(at, at + HASH_SLICE));
    if (at + HASH_SLICE < data.length) await new Promise<void>((r) => setImmediate(r));
  }
  return h.digest('hex');
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

/**
 * At most `max` UTF-16 units of `s`, one fewer where the cut would split a surrogate pair. Half an
 * emoji is a lone surrogate, which canonical JSON cannot hold (a hash over it throws) and a JSON
 * client cannot send back; every caller-supplied text a service shortens goes through here.
 */
export function clipText(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
