import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { EgressPolicy } from '../../../core/http/egress.js';

/**
 * A push-notification URL is handed to the proxy by a caller and then connected to by the peer,
 * which will POST task updates (and the caller's token) to it. Left unchecked, an agent could make
 * the peer call the metadata service, the peer's own admin port or a neighbour in its network. So a
 * URL reaches the peer only when it is https, carries no credentials, and every address its name
 * resolves to now is one the egress policy (a2a.proxy.egress_allow, core/http/egress.ts) admits — every
 * address, not one, since the peer's resolver may pick any of them.
 *
 * What this cannot do is hold the peer to these addresses later: the peer resolves the name itself
 * when it notifies, so a name that rebinds after this check is the peer's to refuse
 * (docs/security/threat-model.md).
 */
export type Resolve = (host: string) => Promise<Array<{ address: string }>>;

const defaultResolve: Resolve = (host) => dnsLookup(host, { all: true, verbatim: true });

export async function pushUrlRefusal(text: unknown, policy: EgressPolicy, resolve: Resolve = defaultResolve): Promise<string | null> {
  if (typeof text !== 'string' || text === '') return 'the push-notification config names no url';
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return 'the push-notification url is not a URL';
  }
  if (u.protocol !== 'https:') return 'the push-notification url must be https';
  if (u.username || u.password) return 'the push-notification url carries credentials';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return policy.refusal(host, host);
  let addresses: Array<{ address: string }>;
  try {
    addresses = await resolve(host);
  } catch {
    return `${host} does not resolve`;
  }
  if (!addresses.length) return `${host} resolved to no address`;
  for (const a of addresses) {
    const why = policy.refusal(host, a.address);
    if (why) return why;
  }
  return null;
}

/**
 * Every URL a push config may be read for, in any shape a peer might read: v1.0 `{url}` (the params
 * are the config), v0.3 `{pushNotificationConfig: {url}}`, and its snake_case spelling. All are
 * checked, so a body cannot show one URL to the proxy and another to the peer's reader.
 */
export function pushUrlsOf(params: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  if (Object.hasOwn(params, 'url')) out.push(params.url);
  for (const k of ['pushNotificationConfig', 'push_notification_config']) {
    const c = params[k];
    if (c && typeof c === 'object' && !Array.isArray(c) && Object.hasOwn(c, 'url')) out.push((c as Record<string, unknown>).url);
  }
  return out;
}
