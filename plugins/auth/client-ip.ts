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

/**
 * The subject an anonymous limit counts: an IPv4 address, or the /64 an IPv6 address lies in. An
 * IPv6 client is handed a whole /64 (SLAAC, privacy addresses rotate inside it), so counting single
 * addresses would give one client 2^64 buckets; the /64 is the smallest unit one client holds.
 * Written expanded (`2001:db8:0:1::/64`) so every spelling of one prefix is one key.
 */
export function rateSubject(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  let s = ip.toLowerCase().replace(/%.*$/, '');
  // a dotted IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) is the last two groups
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number);
    s = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill('0'), ...t];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
