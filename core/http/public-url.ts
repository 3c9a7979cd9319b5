import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';

/**
 * App.publicUrl: the configured public URL, else the address the server is bound to, never a
 * request header. A wildcard bind names no one address a client could be sent to, so it gives null
 * and the caller refuses to hand out a URL rather than guess one.
 */
export function publicUrl(config: Pick<Config, 'server'>, server: Server | null): string | null {
  if (config.server.public_url) return config.server.public_url.replace(/\/+$/, '');
  const addr = server?.address() as AddressInfo | string | null | undefined;
  if (!addr || typeof addr === 'string') return null;
  if (isWildcard(addr.address)) return null;
  const host = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address;
  return `http://${host}:${addr.port}`;
}

export function isWildcard(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '[::]' || address === '::0' || address === '';
}
