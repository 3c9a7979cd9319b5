import { BlockList, isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The client address for anonymous rate limits (spec: Authentication rule 4). By default it is the
 * direct peer and X-Forwarded-For is ignored, because any client can write that header. Only when
 * the peer is one of the configured proxies is the rightmost X-Forwarded-For hop used: it is the
 * address our own proxy saw, whereas hops to its left were supplied by the client.
 */
export function trustedProxyList(entries: readonly string[]): BlockList | null {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const raw of entries) {
    const e = raw.trim();
    const [addr, bits] = e.split('/');
    const family = isIP(addr);
    if (!family) throw new Error(`trusted proxy ${JSON.stringify(raw)} is not an IP address or CIDR`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(addr, type);
    else {
      const prefix = Number(bits);
      if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`trusted proxy ${JSON.stringify(raw)} has a bad prefix length`);
      list.addSubnet(addr, prefix, type);
    }
  }
  return list;
}

/** Strips a port suffix (`1.2.3.4:5678`, `[::1]:80`), brackets and the IPv4-mapped prefix; null if not an IP. */
export function normalizeAddress(raw: string): string | null {
  let a = raw.trim();
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracket) a = bracket[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  if (a.toLowerCase().startsWith('::ffff:') && isIP(a.slice(7)) === 4) a = a.slice(7);
  return isIP(a) ? a : null;
}

function contains(list: BlockList, addr: string): boolean {
  const family = isIP(addr);
  if (!family) return false;
  return list.check(addr, family === 4 ? 'ipv4' : 'ipv6');
}

export function clientIp(peer: string, headers: IncomingHttpHeaders, trusted: BlockList | null): string {
  const direct = normalizeAddress(peer) ?? peer;
  if (!trusted || !contains(trusted, direct)) return direct;
  const xff = headers['x-forwarded-for'];
  const joined = Array.isArray(xff) ? xff.join(',') : xff;
  if (!joined) return direct;
  const hops = joined.split(',').map((h) => h.trim()).filter(Boolean);
  const last = hops.length ? normalizeAddress(hops[hops.length - 1]) : null;
  return last ?? direct;
}
