import { readFileSync } from 'node:fs';

/** The service version is the package version: one number, set in one place. */
export const SERVICE_NAME = 'proofgate';
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
