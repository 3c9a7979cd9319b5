import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

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
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
    remoteSets.set(url, set);
  }
  return set;
}
