import { domainToASCII, domainToUnicode } from 'node:url';

/**
 * One spelling per host, so that a comparison of names cannot be slipped past by case, a trailing
 * dot, an explicit default port or a Unicode form of the name (`BANK.MESH:80`, `bank.mesh.`,
 * `bánk.mesh` → `xn--bnk-…`). Every comparison of a host name against configuration (blocklists,
 * peer mappings, allowed Host/Origin values) goes through here; comparing raw header values is how
 * such checks are bypassed.
 */
export interface HostName {
  /** Lower-case ASCII (IDNA) name without a trailing dot; an IPv6 address keeps its brackets. */
  readonly hostname: string;
  /** The explicit port, or the scheme's default when none was given; null when neither is known. */
  readonly port: number | null;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/**
 * Parses a Host header value or a configured `host[:port]` entry. Returns null for anything that is
 * not a plain authority (user info, a path, an empty or invalid name), so callers fail closed.
 * `scheme` null: the scheme is not known (a Host header seen by ext_authz), so a missing port stays
 * null instead of being guessed as 80; an explicit one is kept even when it is a default port.
 */
export function parseHostName(authority: string, scheme: 'http:' | 'https:' | null = 'http:'): HostName | null {
  if (typeof authority !== 'string' || authority.length === 0 || authority.length > 300) return null;
  if (/[\s/\\?#@]/.test(authority)) return null;
  let url: URL;
  try {
    url = new URL(`${scheme ?? 'http:'}//${authority}`);
  } catch {
    return null;
  }
  const h = fromUrl(url);
  if (!h || scheme !== null) return h;
  // URL drops a port equal to the scheme's default: read the explicit one from the text itself
  const m = /^(?:\[[^\]]*\]|[^:]*):(\d+)$/.exec(authority);
  return { hostname: h.hostname, port: m ? Number(m[1]) : null };
}

/** The normalised host of an absolute http(s) URL, or null when it has none. */
export function hostNameOfUrl(raw: string | URL): HostName | null {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  return fromUrl(url);
}

function fromUrl(url: URL): HostName | null {
  let hostname = url.hostname;
  if (hostname.startsWith('[')) {
    return { hostname: hostname.toLowerCase(), port: portOf(url) };
  }
  hostname = hostname.replace(/\.$/, '');
  // URL already applies IDNA to special schemes; domainToASCII again is a no-op for ASCII and
  // refuses (returns '') names that IDNA rejects.
  const ascii = domainToASCII(hostname);
  if (!ascii || ascii.endsWith('.') || ascii.includes('..') || !validALabels(ascii.toLowerCase())) return null;
  return { hostname: ascii.toLowerCase(), port: portOf(url) };
}

/**
 * Every A-label (`xn--…`) must be the IDNA encoding of the Unicode label it decodes to. Node 22's URL
 * refuses invalid punycode (`xn--zz.mesh`); Node 24's passes it through unchanged. Without this check
 * one Host would be a name on one runtime and no name on the other, and another parser in the path
 * (Envoy, the peer) may read it either way: such a name is refused on both.
 */
function validALabels(ascii: string): boolean {
  for (const label of ascii.split('.')) {
    if (!label.startsWith('xn--')) continue;
    const unicode = domainToUnicode(label);
    if (!unicode || unicode === label || domainToASCII(unicode) !== label) return false;
  }
  return true;
}

function portOf(url: URL): number | null {
  if (url.port) return Number(url.port);
  return DEFAULT_PORTS[url.protocol] ?? null;
}

/**
 * Whether `candidate` names the host a configured entry names. An entry without a port matches the
 * name on any port (a blocklist of `bank.mesh` covers `bank.mesh:8080`); an entry with one matches
 * that port only, the default port being explicit on both sides.
 */
export function sameHost(candidate: HostName, entry: string | HostName, entryHasPort?: boolean): boolean {
  const e = typeof entry === 'string' ? parseHostName(entry) : entry;
  if (!e) return false;
  if (e.hostname !== candidate.hostname) return false;
  // a bracketed IPv6 entry without a port ends in ']', so a trailing ':digits' is always a port
  const portGiven = typeof entry === 'string' ? /:\d+$/.test(entry) : entryHasPort ?? true;
  return !portGiven || e.port === candidate.port;
}

/** `host:port` in one spelling, for keys and logs. */
export function formatHostName(h: HostName): string {
  return h.port === null ? h.hostname : `${h.hostname}:${h.port}`;
}
