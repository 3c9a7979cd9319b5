import type { request as undiciRequest } from 'undici';

// imported when a remote provider is configured (loadHttpClient, at start-up) or on the first call:
// most sidecars never call a language model
let undici: Promise<typeof import('undici')> | null = null;
export const loadHttpClient = () => (undici ??= import('undici'));
import { ProviderError } from './types.js';

/** a chat reply is a few KiB; anything far larger is not a translation */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface PostOptions {
  provider: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * One POST of a JSON body, one JSON answer. No retries (decisions §7): a second attempt doubles a
 * slow provider's cost and a translation is cheap to ask for again. One deadline covers connect,
 * headers and body. Errors never carry the upstream body (it may echo the prompt or the key).
 */
export async function postJson(url: string, headers: Record<string, string>, body: unknown, o: PostOptions): Promise<unknown> {
  // our own module load is not the provider's time: the deadline starts after it
  const { request } = await loadHttpClient();
  const deadline = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([deadline, o.signal]) : deadline;
  const failed = (err: unknown): ProviderError => {
    if (err instanceof ProviderError) return err;
    if (o.signal?.aborted) return new ProviderError('cancelled', 'the request was cancelled', o.provider);
    if (deadline.aborted) return new ProviderError('timeout', `the provider did not answer within ${o.timeoutMs} ms`, o.provider);
    return new ProviderError('network_error', 'the provider could not be reached', o.provider);
  };
  let res: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
  } catch (err) {
    throw failed(err);
  }
  let text: string;
  try {
    text = await readCapped(res.body, o.provider);
  } catch (err) {
    throw failed(err);
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    throw new ProviderError('http_error', `the provider answered HTTP ${res.statusCode}`, o.provider, res.statusCode);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError('malformed_output', 'the provider answered with a body that is not JSON', o.provider);
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, provider: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new ProviderError('malformed_output', `the provider's answer exceeds ${MAX_RESPONSE_BYTES} bytes`, provider);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `base` + `path`, keeping a base path (`http://host:8000/v1` + `/chat/completions`). */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
