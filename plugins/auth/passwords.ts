import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with node:crypto scrypt (decisions §5). crypto.scrypt runs on libuv's thread
 * pool, so the ~44 ms of work never blocks the event loop. Parameters are stored with each hash so
 * they can be raised later without invalidating existing accounts.
 */
export interface PasswordHash {
  alg: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEYLEN = 64;

function scrypt(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFKC'), salt, KEYLEN, { N, r, p, maxmem: 256 * N * r }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, PARAMS.N, PARAMS.r, PARAMS.p);
  return { alg: 'scrypt', ...PARAMS, salt: salt.toString('base64'), hash: hash.toString('base64') };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await scrypt(password, Buffer.from(stored.salt, 'base64'), stored.N, stored.r, stored.p);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash no password matches, computed once: sign-in for an unknown email verifies against it so
 * the response takes as long as for a known email (no account enumeration by timing).
 */
let dummy: Promise<PasswordHash> | undefined;
export function dummyHash(): Promise<PasswordHash> {
  dummy ??= hashPassword(randomBytes(32).toString('base64'));
  return dummy;
}
