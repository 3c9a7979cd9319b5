import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where `npm run build` (console/build.mjs, run by `prepare`) writes the bundle: dist/console/. */
export const ASSET_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface Asset {
  body: Buffer;
  type: string;
}

/**
 * The built files, read once at start-up into a fixed table: a request names a key of the table,
 * never a path, so no URL reaches the file system. Null when the bundle was never built.
 */
export function loadAssets(dir = ASSET_DIR): Map<string, Asset> | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const out = new Map<string, Asset>();
  for (const name of names) {
    const ext = name.slice(name.lastIndexOf('.'));
    if (!Object.hasOwn(TYPES, ext)) continue;
    out.set(name, { body: readFileSync(dir + name), type: TYPES[ext] });
  }
  return out.has('index.html') ? out : null;
}

/**
 * The page runs only the bundle served beside it: no inline script or style, no other origin, and
 * requests only to this server (the same HTTP API the CLI uses). It cannot be framed (clickjacking
 * an approve button) and sends no Referer.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
