import type { IncomingHttpHeaders } from 'node:http';
import { hostNameOfUrl, parseHostName, sameHost, type HostName } from '../../core/http/host-name.js';

/**
 * Host and Origin of a request to /mcp/{server} (issue 38, item 10). The MCP Streamable HTTP
 * transport asks a server to validate Origin on every connection, answering 403 to one that is
 * present and not allowed, because a page a user's browser opens can rebind its own name to the
 * loopback address and then talk to a local listener as "same origin". The proxy replaces Host
 * with the upstream's and does not forward Origin, so the upstream's own check never sees the
 * browser's values: proofgate checks them itself, before anything is forwarded.
 *
 * Every comparison goes through core/http/host-name.ts (case, trailing dot, default port, IDNA).
 */
export interface HostPolicy {
  /** `host` (any port) or `host:port` entries */
  hosts: string[];
  /** the same entries parsed once (a request's Host is compared with each of them) */
  entries: Array<{ host: HostName; hasPort: boolean }>;
  /** allowed origins; null: any http(s) origin whose host is one of `hosts` */
  origins: Array<{ scheme: string; host: HostName }> | null;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_BIND = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The policy from mcp.allowed_hosts / mcp.allowed_origins; an empty list means the default: the
 * loopback names, the bind address (on the bound port when one is configured) and the host of
 * server.public_url. An entry that is not a plain host[:port] (or origin) stops start-up.
 */
export function hostPolicy(c: { allowed_hosts: string[]; allowed_origins: string[] }, server: { host: string; port: number; public_url: string | null }): HostPolicy {
  let hosts: string[];
  if (c.allowed_hosts.length) {
    for (const h of c.allowed_hosts) {
      if (!parseHostName(h)) throw new Error(`mcp.allowed_hosts: ${JSON.stringify(h)} is not a host or host:port`);
    }
    hosts = [...c.allowed_hosts];
  } else {
    hosts = [...LOOPBACK];
    if (!WILDCARD_BIND.has(server.host)) {
      const name = server.host.includes(':') && !server.host.startsWith('[') ? `[${server.host}]` : server.host;
      hosts.push(server.port ? `${name}:${server.port}` : name);
    }
    const pub = server.public_url ? hostNameOfUrl(server.public_url) : null;
    if (pub) hosts.push(pub.port === null ? pub.hostname : `${pub.hostname}:${pub.port}`);
  }
  let origins: HostPolicy['origins'] = null;
  if (c.allowed_origins.length) {
    origins = c.allowed_origins.map((o) => {
      const parsed = parseOrigin(o);
      if (!parsed) throw new Error(`mcp.allowed_origins: ${JSON.stringify(o)} is not an origin (http(s)://host[:port])`);
      return parsed;
    });
  }
  const entries = hosts.flatMap((h) => {
    const host = parseHostName(h);
    // a bracketed IPv6 entry without a port ends in ']', so a trailing ':digits' is always a port (sameHost)
    return host ? [{ host, hasPort: /:\d+$/.test(h) }] : [];
  });
  return { hosts, entries, origins };
}

/**
 * The Host values seen lately, parsed: a client sends the same one on every request, and the
 * parse (a WHATWG URL and IDNA) cost more than the rest of this check. A pure function of the
 * text, so a cached answer is the answer; bounded, and emptied when full, so that a client sending
 * a new name each time costs one parse per request, as without it.
 */
const seenHosts = new Map<string, HostName | null>();
const SEEN_HOSTS_MAX = 256;
function hostOf(raw: string): HostName | null {
  const known = seenHosts.get(raw);
  if (known !== undefined) return known;
  const parsed = parseHostName(raw);
  if (seenHosts.size >= SEEN_HOSTS_MAX) seenHosts.clear();
  seenHosts.set(raw, parsed);
  return parsed;
}

const admitted = (p: HostPolicy, h: HostName) => p.entries.some((e) => sameHost(h, e.host, e.hasPort));

/** An Origin header value or configured origin: scheme://host[:port] and nothing else. */
function parseOrigin(value: string): { scheme: string; host: HostName } | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // a browser's Origin has no path, query or fragment; a value with one is not an origin
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(value)) return null;
  const host = hostNameOfUrl(url);
  return host ? { scheme: url.protocol, host } : null;
}

const quoted = (v: string) => JSON.stringify(v.length > 100 ? `${v.slice(0, 100)}…` : v);

/** Why the request's Host or Origin is refused, or null when both are allowed. */
export function refusal(p: HostPolicy, headers: IncomingHttpHeaders): { header: 'host' | 'origin'; detail: string } | null {
  const rawHost = headers.host ?? '';
  const host = hostOf(rawHost);
  if (!host || !admitted(p, host)) {
    return { header: 'host', detail: `Host ${quoted(rawHost)} is not one this proxy answers to (mcp.allowed_hosts, SVC_MCP_ALLOWED_HOSTS): requests for another name are refused, never forwarded` };
  }
  const rawOrigin = headers.origin;
  // a client that is not a browser sends no Origin, as the MCP transport allows
  if (rawOrigin === undefined) return null;
  const origin = typeof rawOrigin === 'string' ? parseOrigin(rawOrigin) : null;
  const ok =
    origin !== null &&
    (p.origins
      ? p.origins.some((o) => o.scheme === origin.scheme && sameHost(origin.host, o.host, true))
      : admitted(p, origin.host));
  if (ok) return null;
  return { header: 'origin', detail: `Origin ${quoted(String(rawOrigin))} is not allowed (mcp.allowed_origins, SVC_MCP_ALLOWED_ORIGINS): a page of another origin cannot use this proxy` };
}
