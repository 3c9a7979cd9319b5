import { parsePolicy, type ServerPolicy } from './policy.js';

/**
 * `mcp.servers`: name → {url, headers_from_env?, policy?}. A name is a path segment of /mcp/{server}; the
 * URL is the server's Streamable HTTP endpoint; `headers_from_env` maps a header to the environment
 * variable holding its value, so a credential for the upstream server never sits in the config
 * file; `policy` is the server's tool policy (policy.ts; the admin API may replace it at run time).
 * A missing variable or a malformed entry stops start-up (fail closed: a server that would be
 * called without its credential is a misconfiguration, not a degraded mode).
 */
export interface McpServer {
  name: string;
  url: URL;
  headers: Record<string, string>;
  /** the configuration's tool policy; absent: the built-in defaults */
  policy?: ServerPolicy;
}

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/**
 * headers the proxy owns: a configured value must not replace them. keep-alive, upgrade and expect
 * are refused by the HTTP client (undici) on every request, so they stop start-up instead
 */
const RESERVED = new Set(['host', 'content-length', 'content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

export function parseServers(raw: unknown, env: NodeJS.ProcessEnv): Map<string, McpServer> {
  let value = raw;
  if (typeof raw === 'string') {
    if (!raw.trim()) return new Map();
    try {
      value = JSON.parse(raw);
    } catch {
      throw new Error('mcp.servers (SVC_MCP_SERVERS) is not valid JSON');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('mcp.servers must be an object of name → {url, headers_from_env?, policy?}');
  const out = new Map<string, McpServer>();
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    const where = `mcp.servers.${name}`;
    if (!SERVER_NAME.test(name)) throw new Error(`${where}: a server name is 1–64 of A-Z a-z 0-9 _ -`);
    const e = (typeof entry === 'string' ? { url: entry } : entry) as { url?: unknown; headers_from_env?: unknown; policy?: unknown } | null;
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw new Error(`${where}: expected a URL or {url, headers_from_env?, policy?}`);
    for (const k of Object.keys(e)) if (k !== 'url' && k !== 'headers_from_env' && k !== 'policy') throw new Error(`${where}: unknown member ${k}`);
    let url: URL;
    try {
      url = new URL(String(e.url));
    } catch {
      throw new Error(`${where}.url: not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${where}.url: must be http or https`);
    const headers: Record<string, string> = {};
    const hfe = e.headers_from_env ?? {};
    if (!hfe || typeof hfe !== 'object' || Array.isArray(hfe)) throw new Error(`${where}.headers_from_env: expected an object header → variable`);
    for (const [h, variable] of Object.entries(hfe as Record<string, unknown>)) {
      if (!HEADER_NAME.test(h) || RESERVED.has(h.toLowerCase())) throw new Error(`${where}.headers_from_env: ${h} cannot be set`);
      if (typeof variable !== 'string' || !variable) throw new Error(`${where}.headers_from_env.${h}: expected a variable name`);
      const v = env[variable];
      if (v === undefined || v === '') throw new Error(`${where}.headers_from_env.${h}: environment variable ${variable} is not set`);
      headers[h.toLowerCase()] = v;
    }
    out.set(name, { name, url, headers, ...(e.policy === undefined ? {} : { policy: parsePolicy(e.policy, `${where}.policy`) }) });
  }
  return out;
}
