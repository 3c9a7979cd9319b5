import type { App } from '../types.js';

declare module '../types.js' {
  interface Services {
    /** the kernel's own: every plugin may publish into it and read it without declaring it */
    'jwks.published': Array<() => PublishedJwk | null>;
  }
}

/**
 * The public keys `/.well-known/jwks.json` serves beside the route owner's own key. A plugin that
 * signs something a third party checks offline (attestation tokens) publishes its current public
 * JWK here; the list is a service the kernel provides, so plugin load order does not matter and the
 * route's owner needs no import of the publisher.
 */
export interface PublishedJwk {
  kid: string;
  kty: string;
  crv: string;
  x: string;
  y: string;
  use: 'sig';
  alg: 'ES256';
}

export const JWKS_SERVICE = 'jwks.published';

/** `jwk()`: the key to serve now, or null while none is available (it is then left out). */
export function publishJwk(app: App, jwk: () => PublishedJwk | null): void {
  app.service(JWKS_SERVICE)?.push(jwk);
}

/** Every published key available now, in publication order. */
export function publishedJwks(app: App): PublishedJwk[] {
  const list = app.service(JWKS_SERVICE) ?? [];
  return list.map((f) => f()).filter((k): k is PublishedJwk => k !== null);
}
