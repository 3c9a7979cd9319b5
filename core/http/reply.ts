import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpError, Problems } from '../errors.js';
import { EngineError } from '../workers/pools.js';
import { StoreFullError, StoreUnavailableError } from '../store/store.js';
import type { Reply } from '../types.js';

/**
 * The headers every response starts with (security headers, then the request's own, then the
 * reply's, lower-cased, each overriding the one before): one literal and two loops, which costs a
 * fraction of spreading objects and listing entries on every response.
 */
function responseHeaders(extraHeaders: Record<string, string>, replyHeaders: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
  for (const k of Object.keys(extraHeaders)) headers[k] = extraHeaders[k];
  if (replyHeaders != null) for (const k of Object.keys(replyHeaders)) headers[k.toLowerCase()] = replyHeaders[k];
  return headers;
}

export function writeReply(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string>): number {
  const status = reply.status ?? 200;
  if (isStreamReply(reply)) {
    void writeStream(res, reply, extraHeaders);
    return status;
  }
  const headers = responseHeaders(extraHeaders, reply.headers);
  let payload: string | Buffer | undefined;
  if (reply.body === undefined || status === 204 || status === 304) {
    payload = undefined;
  } else if (typeof reply.body === 'string' || Buffer.isBuffer(reply.body)) {
    payload = reply.body;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else {
    payload = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(status, headers);
  res.end(payload);
  return status;
}

/** Maps any thrown value to the RFC 9457 body; unknown errors never leak their text. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof EngineError) {
    return err.kind === 'timeout'
      ? new HttpError(Problems.engineTimeout, 'the engine did not finish within its deadline', { constraintId: 'engine.timeout' })
      : new HttpError(Problems.engineUnavailable, 'the engine could not complete the task', { constraintId: `engine.${err.kind}` });
  }
  if (err instanceof StoreUnavailableError) {
    // the database's own message stays in the server log (it can name hosts and roles)
    return new HttpError(Problems.storeUnavailable, 'the data store is not answering; retry shortly', { headers: { 'retry-after': '5' } });
  }
  if (err instanceof StoreFullError) {
    // no Retry-After: space comes back when an operator frees it, not after a set time
    return new HttpError(Problems.storeFull, 'the data store has no space left for this write; nothing of it was stored');
  }
  return new HttpError(Problems.internal, 'an internal error occurred');
}

/**
 * A reply whose body is a Readable (a relayed upstream answer, an SSE stream) is written chunk by
 * chunk as it arrives, never buffered; resolves when it is done. A client that goes away destroys
 * the source, so whatever feeds it (an upstream request) is released.
 */
export async function writeStream(res: ServerResponse, reply: Reply & { body: Readable }, extraHeaders: Record<string, string>): Promise<number> {
  const status = reply.status ?? 200;
  const headers = responseHeaders(extraHeaders, reply.headers);
  headers['content-type'] ??= 'application/octet-stream';
  res.writeHead(status, headers);
  res.flushHeaders();
  try {
    await pipeline(reply.body, res);
  } catch {
    // the client left or the source failed mid-body: the status line is gone, only the socket is left to end
    if (!res.destroyed) res.destroy();
  }
  return status;
}

export function isStreamReply(reply: Reply): reply is Reply & { body: Readable } {
  return reply.body instanceof Readable;
}

/** The reply an error becomes: status, RFC 9457 body, the error's own headers. */
export function problemReply(err: HttpError, instance: string, extraHeaders: Record<string, string> = {}): Reply {
  const headers: Record<string, string> = { ...extraHeaders, ...(err.headers ?? {}), 'content-type': 'application/problem+json' };
  // a 413 for a body still arriving closes only when core/http/body.ts says so: it drains the rest first
  if (err.status === 503) headers['connection'] ??= 'close';
  return { status: err.status, body: err.toProblem(instance), headers };
}

export function writeProblem(res: ServerResponse, err: HttpError, instance: string, extraHeaders: Record<string, string>): number {
  return writeReply(res, problemReply(err, instance, extraHeaders), {});
}
