import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';

/**
 * Egress to URLs the service did not get from its operator: an A2A peer's card naming an endpoint,
 * later push-notification URLs and MCP upstreams. Such a URL may point at the metadata service, the
 * database, or the sidecar itself (SSRF), by an address literal, by an IPv4-mapped IPv6 spelling, or
 * by a name that resolves to one — and resolves to another address on the next connection (DNS
 * rebinding). So the check is on the address actually connected to, at every connection: the
 * lookup handed to net/tls refuses addresses, literals (which skip the lookup) are refused before
 * connecting, and the connected socket's remote address is checked again before it is used.
 */

export class EgressRefused extends Error {
  readonly code = 'EGRESS_REFUSED';
}

export class EgressConfigError extends Error {}

interface Ip {
  v: 4 | 6;
  n: bigint;
}

function parseV4(text: string): bigint | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  let n = 0n;
  for (const o of m.slice(1)) {
    const x = Number(o);
    if (x > 255 || (o.length > 1 && o.startsWith('0'))) return null;
    n = (n << 8n) | BigInt(x);
  }
  return n;
}

function parseV6(text: string): bigint | null {
  if (isIP(text) !== 6) return null;
  let s = text;
  // a dotted tail (::ffff:127.0.0.1) is two 16-bit words
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const v4 = parseV4(dotted[1]);
    if (v4 === null) return null;
    s = `${s.slice(0, -dotted[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const words = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  if (words.length !== 8) return null;
  return words.reduce((n, w) => (n << 16n) | BigInt(parseInt(w, 16)), 0n);
}

/** an address literal (brackets and an IPv6 zone allowed), or null */
export function parseIp(text: string): Ip | null {
  const s = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '').toLowerCase();
  const v4 = parseV4(s);
  if (v4 !== null) return { v: 4, n: v4 };
  const v6 = parseV6(s);
  return v6 === null ? null : { v: 6, n: v6 };
}

interface Cidr {
  ip: Ip;
  bits: number;
}

function cidr(text: string): Cidr | null {
  const [addr, len, ...rest] = text.split('/');
  const ip = parseIp(addr);
  if (!ip || rest.length || (len !== undefined && !/^\d{1,3}$/.test(len))) return null;
  const max = ip.v === 4 ? 32 : 128;
  const bits = len === undefined ? max : Number(len);
  return bits > max ? null : { ip, bits };
}

function contains(c: Cidr, ip: Ip): boolean {
  if (c.ip.v !== ip.v) return false;
  const shift = BigInt((ip.v === 4 ? 32 : 128) - c.bits);
  return c.ip.n >> shift === ip.n >> shift;
}

const ranges = (list: Array<[string, string]>) => list.map(([name, c]) => ({ name, cidr: cidr(c)! }));

/** named single addresses first, so a refusal says "cloud metadata", not only "link-local" */
const METADATA = ranges([
  ['cloud metadata', '169.254.169.254'],
  ['cloud metadata', '169.254.170.2'],
  ['cloud metadata', '100.100.100.200'],
  ['cloud metadata', '192.0.0.192'],
  ['cloud metadata', 'fd00:ec2::254'],
]);

/** every range that is not the public internet (IANA special-purpose registries) */
const SPECIAL = ranges([
  ['"this network"', '0.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  ['shared address space (CGNAT)', '100.64.0.0/10'],
  ['loopback', '127.0.0.0/8'],
  ['link-local', '169.254.0.0/16'],
  ['private', '172.16.0.0/12'],
  ['IETF protocol assignments', '192.0.0.0/24'],
  ['documentation', '192.0.2.0/24'],
  ['6to4 relay anycast', '192.88.99.0/24'],
  ['private', '192.168.0.0/16'],
  ['benchmarking', '198.18.0.0/15'],
  ['documentation', '198.51.100.0/24'],
  ['documentation', '203.0.113.0/24'],
  ['multicast', '224.0.0.0/4'],
  ['reserved', '240.0.0.0/4'],
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  ['discard-only', '100::/64'],
  ['documentation', '2001:db8::/32'],
  ['unique-local', 'fc00::/7'],
  ['link-local', 'fe80::/10'],
  ['site-local', 'fec0::/10'],
  ['multicast', 'ff00::/8'],
  ['Teredo', '2001::/32'],
]);

/** IPv6 forms that carry an IPv4 address the packet ends up at: mapped, compatible, NAT64, 6to4 */
function embeddedV4(ip: Ip): Ip | null {
  if (ip.v !== 6) return null;
  const low32 = { v: 4 as const, n: ip.n & 0xffffffffn };
  if (ip.n >> 32n === 0xffffn) return low32; // ::ffff:0:0/96
  if (ip.n >> 32n === 0n && ip.n > 1n) return low32; // ::a.b.c.d (deprecated compatible form)
  if (ip.n >> 32n === 0x0064ff9b0000000000000000n) return low32; // 64:ff9b::/96
  if (ip.n >> 80n === 0x0064ff9b0001n) return low32; // 64:ff9b:1::/48
  if (ip.n >> 112n === 0x2002n) return { v: 4, n: (ip.n >> 80n) & 0xffffffffn }; // 2002::/16
  return null;
}

/**
 * Why `address` is not a public internet address (e.g. "loopback", "cloud metadata"), or null when
 * it is. Anything that is not an address literal is refused too: fail closed.
 */
export function specialAddress(address: string): string | null {
  const ip = parseIp(address);
  if (!ip) return 'not an IP address';
  const inner = embeddedV4(ip);
  for (const [candidate, suffix] of [[ip, ''], ...(inner ? [[inner, ' (IPv4 inside IPv6)']] : [])] as Array<[Ip, string]>) {
    const hit = METADATA.find((r) => contains(r.cidr, candidate)) ?? SPECIAL.find((r) => contains(r.cidr, candidate));
    if (hit) return hit.name + suffix;
  }
  return null;
}

/**
 * Which destinations a learned URL may reach. Entries: `public` (any address of the public
 * internet, whatever the name), a CIDR or single address (`10.1.0.0/16`, `127.0.0.1`: admitted even
 * if private — the only way to reach a special range), a host name (`partner.example`) or a
 * subdomain pattern (`*.partner.example`), which admit that name's public addresses only, so a
 * listed name that resolves into a private range is still refused.
 */
export class EgressPolicy {
  private constructor(
    private readonly anyPublic: boolean,
    private readonly cidrs: Cidr[],
    private readonly hosts: string[],
    private readonly suffixes: string[],
  ) {}

  static parse(entries: readonly string[], where: string): EgressPolicy {
    let anyPublic = false;
    const cidrs: Cidr[] = [];
    const hosts: string[] = [];
    const suffixes: string[] = [];
    for (const raw of entries) {
      const e = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      const range = cidr(e.replace(/^\[([^\]]*)\]/, '$1'));
      if (e === 'public') anyPublic = true;
      else if (range) cidrs.push(range);
      else if (/[/:[\]]/.test(e) || /^[\d.]+$/.test(e)) {
        throw new EgressConfigError(`${where}: ${JSON.stringify(raw)} is not a valid address or CIDR`);
      } else {
        const name = e.replace(/^\*\./, '').replace(/\.$/, '');
        if (!/^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(name)) {
          throw new EgressConfigError(`${where}: ${JSON.stringify(raw)} is not "public", an address, a CIDR, a host name or *.domain`);
        }
        (e.startsWith('*.') ? suffixes : hosts).push(name);
      }
    }
    return new EgressPolicy(anyPublic, cidrs, hosts, suffixes);
  }

  private nameListed(hostname: string): boolean {
    const h = hostname.toLowerCase().replace(/\.$/, '');
    return this.hosts.includes(h) || this.suffixes.some((s) => h.endsWith(`.${s}`));
  }

  /** why connecting to `address` (what `hostname` resolved to, or the literal itself) is refused, or null */
  refusal(hostname: string, address: string): string | null {
    const ip = parseIp(address);
    if (!ip) return `${JSON.stringify(address)} is not an IP address`;
    const inner = embeddedV4(ip);
    if (this.cidrs.some((c) => contains(c, ip) || (inner !== null && contains(c, inner)))) return null;
    const special = specialAddress(address);
    if (special) return `${hostname === address ? address : `${hostname} (${address})`} is ${special}, outside the egress allowlist`;
    if (this.anyPublic || this.nameListed(hostname)) return null;
    return `${hostname} is not in the egress allowlist`;
  }

  /** throws EgressRefused when `address` may not be connected to */
  check(hostname: string, address: string): void {
    const why = this.refusal(hostname, address);
    if (why) throw new EgressRefused(why);
  }
}

type BaseLookup = (hostname: string, options: { all: true; family?: number; hints?: number }, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A `lookup` for net.connect/tls.connect that resolves with `base` and passes on only the
 * addresses the policy admits; none admitted is an EgressRefused error. It runs on every
 * connection, so an answer that changes between connections is checked each time.
 */
export function egressLookup(policy: EgressPolicy, base: BaseLookup = dnsLookup as unknown as BaseLookup): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number; hints?: number }, callback: (...a: unknown[]) => void) => {
    base(hostname, { family: options?.family, hints: options?.hints, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const admitted = addresses.filter((a) => policy.refusal(hostname, a.address) === null);
      if (admitted.length === 0) {
        const first = addresses[0];
        return callback(new EgressRefused(first ? policy.refusal(hostname, first.address)! : `${hostname} resolved to no address`));
      }
      if (options?.all) callback(null, admitted);
      else callback(null, admitted[0].address, admitted[0].family);
    });
  }) as unknown as LookupFunction;
}

/**
 * An undici `connect` function that only ever hands out sockets to admitted addresses: literals
 * are checked before connecting (net skips the lookup for them), names through egressLookup, and
 * every connected socket's remote address once more. `buildConnector` is passed in so that undici
 * loads only where it is used.
 */
export function egressConnector(
  policy: EgressPolicy,
  buildConnector: typeof BuildConnector,
  options: BuildConnector.BuildOptions = {},
  base?: BaseLookup,
): BuildConnector.connector {
  const inner = buildConnector({ ...options, lookup: egressLookup(policy, base) } as BuildConnector.BuildOptions);
  return (o, callback) => {
    const host = o.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const why = policy.refusal(host, host);
      if (why) return queueMicrotask(() => callback(new EgressRefused(why), null));
    }
    inner(o, (err, socket) => {
      if (err) return callback(err, null);
      const why = policy.refusal(host, socket!.remoteAddress ?? '');
      if (why) {
        socket!.destroy();
        return callback(new EgressRefused(why), null);
      }
      callback(null, socket!);
    });
  };
}
