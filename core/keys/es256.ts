import { sign, type KeyObject } from 'node:crypto';

/**
 * The one ES256 signer (attestation tokens and statements, A2A verdicts and AgentCards, the MCP
 * gate through the A2A signer service). node:crypto's `sign` with the KeyObject imported once, in
 * IEEE P1363 form (the JWS encoding of an ECDSA signature): about half the cost of an async
 * WebCrypto path (docs/performance.md). Two forms of the same signature: synchronous, and on
 * libuv's thread pool for a hot path whose event loop must not spend ~45 µs per signature.
 */
export type Es256Sign = (data: Buffer, key: KeyObject) => Buffer;
export type Es256SignAsync = (data: Buffer, key: KeyObject) => Promise<Buffer>;

export const es256Sign: Es256Sign = (data, key) => sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });

/**
 * The callback form of the same call: OpenSSL signs on a libuv pool thread and the event loop pays
 * only the hand-off. The hand-offs of one event-loop turn are posted together, from a setImmediate:
 * a post to a sleeping pool thread costs a futex wake, and requests handled one by one found the
 * pool asleep every time (~24 µs of event loop per signature on a VM where a wake-up is an IPI,
 * against ~4 µs each when a turn's posts go back to back and the first wake-ups serve the rest).
 * Completions arrive in the next turn either way, so the batch adds no turn of latency.
 */
export const es256SignAsync: Es256SignAsync = (data, key) =>
  new Promise((resolve, reject) => {
    queued.push({ data, key, resolve, reject });
    if (queued.length === 1) setImmediate(postQueued);
  });

interface QueuedSign {
  data: Buffer;
  key: KeyObject;
  resolve: (sig: Buffer) => void;
  reject: (err: Error) => void;
}
let queued: QueuedSign[] = [];

function postQueued(): void {
  const batch = queued;
  queued = [];
  for (const q of batch) {
    try {
      sign('sha256', q.data, { key: q.key, dsaEncoding: 'ieee-p1363' }, (err, sig) => (err ? q.reject(err) : q.resolve(sig)));
    } catch (err) {
      // a key that cannot sign throws before the hand-off; the others in the batch still go
      q.reject(err as Error);
    }
  }
}

/** base64url of a value's JSON text: a JWS header or payload segment */
export const b64urlJson = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

const signingInput = (header: Record<string, unknown> | string, payload: unknown): string =>
  `${typeof header === 'string' ? header : b64urlJson(header)}.${b64urlJson(payload)}`;

/**
 * A compact ES256 JWS. `header` is the protected header, or its base64url segment when a hot path
 * encodes an unchanging header once; `signFn` lets a test make signing fail.
 */
export function signJws(header: Record<string, unknown> | string, payload: unknown, key: KeyObject, signFn: Es256Sign = es256Sign): string {
  const input = signingInput(header, payload);
  return `${input}.${signFn(Buffer.from(input), key).toString('base64url')}`;
}

/** The same compact JWS as signJws, signed off the event loop. */
export async function signJwsAsync(header: Record<string, unknown> | string, payload: unknown, key: KeyObject, signFn: Es256SignAsync = es256SignAsync): Promise<string> {
  const input = signingInput(header, payload);
  return `${input}.${(await signFn(Buffer.from(input), key)).toString('base64url')}`;
}

/** A flattened, detached ES256 JWS over raw payload bytes (the payload is not embedded). */
export function signDetachedJws(header: Record<string, unknown>, payload: Buffer, key: KeyObject): { protected: string; signature: string } {
  const prot = b64urlJson(header);
  const sig = es256Sign(Buffer.from(`${prot}.${payload.toString('base64url')}`), key);
  return { protected: prot, signature: sig.toString('base64url') };
}
