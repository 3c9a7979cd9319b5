import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 (and 127/8 mapped into IPv6) or the name localhost: traffic that never leaves the machine */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    // the URL parser writes IPv6 in its shortest form (::1, ::ffff:7f00:1 for ::ffff:127.0.0.1); a
    // configured bind address may be spelled any way (0:0:0:0:0:0:0:1, ::ffff:127.0.0.1)
    const s = new URL(`http://[${h}]/`).hostname.slice(1, -1);
    return s === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(s);
  }
  return false;
}

/**
 * The CLIs' opt-in to sending a credential over plain http:// to a host that is not loopback:
 * `--allow-insecure-http`, or PROOFGATE_ALLOW_INSECURE_HTTP=1/true. Any other value of the
 * variable is a usage error (a typo must not silently mean "no").
 */
export function insecureHttpOptIn(flag: boolean | undefined, env = process.env.PROOFGATE_ALLOW_INSECURE_HTTP): { allow: boolean } | { error: string } {
  const v = (env ?? '').trim().toLowerCase();
  if (!['', '0', 'false', '1', 'true'].includes(v)) return { error: 'PROOFGATE_ALLOW_INSECURE_HTTP must be 1, true, 0 or false' };
  return { allow: !!flag || v === '1' || v === 'true' };
}

/**
 * A URL a CLI fetches something trusted from (a JWKS: whoever serves it decides which signatures
 * verify): http(s) only, and plain http only to loopback unless the operator opted in, since anyone
 * on the path could answer with keys of their own. Returns the URL or the reason it is refused.
 */
export function trustedFetchUrl(arg: string, flag: string, allowInsecureHttp: boolean): URL | { error: string } {
  let url: URL;
  try {
    url = new URL(arg);
  } catch {
    return { error: `${flag} ${arg} is not a valid URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: `${flag} ${arg}: only http(s) URLs or a file path` };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    return { error: `${flag} ${arg} is plain http to a host that is not loopback: use https, a saved copy in a file, or --allow-insecure-http` };
  }
  return url;
}
