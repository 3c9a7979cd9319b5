import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

/** A JWKS holds a handful of public keys (a few KiB); a body past this is not one, and is not read on. */
export const MAX_JWKS_BYTES = 256 * 1024;

/**
 * The key set an offline check verifies against: a JWKS given inline, or fetched from a URL. A
 * remote set is kept per URL for the process, so jose's cache and cooldown (one fetch per 30 s
 * at most, 10 minutes of caching) hold across calls instead of refetching for every token.
 */
const remoteSets = new Map<string, JWTVerifyGetKey>();

export function jwksKeySet(o: { jwks?: JSONWebKeySet; jwksUrl?: string | URL }, caller: string): JWTVerifyGetKey {
  if (o.jwks) return createLocalJWKSet(o.jwks);
  if (!o.jwksUrl) throw new TypeError(`${caller} needs jwks or jwksUrl`);
  const url = String(o.jwksUrl);
  let set = remoteSets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000, [customFetch]: boundedFetch });
    remoteSets.set(url, set);
  }
  return set;
}

/**
 * jose reads the whole answer with `response.json()`: a hostile or mistaken URL (a log file, an
 * endless stream) would be buffered whole, in the CLI and in a server verifying against a peer's
 * JWKS. The body is read here up to MAX_JWKS_BYTES and the fetch aborted past it.
 */
async function boundedFetch(url: string, init: { headers: Headers; method: 'GET'; redirect: 'manual'; signal: AbortSignal }): Promise<Response> {
  const res = await fetch(url, init);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > MAX_JWKS_BYTES) {
    await res.body?.cancel();
    throw new Error(`the JWKS answer is ${declared} bytes, more than ${MAX_JWKS_BYTES}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_JWKS_BYTES) throw new Error(`the JWKS answer is more than ${MAX_JWKS_BYTES} bytes`);
      chunks.push(chunk);
    }
  }
  return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers: res.headers });
}
