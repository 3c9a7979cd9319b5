import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 (and 127/8 mapped into IPv6) or the name localhost: traffic that never leaves the machine */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  // the URL parser writes IPv6 in its shortest form: ::1, and ::ffff:7f00:1 for ::ffff:127.0.0.1
  if (isIP(h) === 6) return h === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
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
