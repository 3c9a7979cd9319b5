import type { ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { HttpError, Problems } from './errors.js';
import { EngineError } from './workers.js';
import type { Reply } from './types.js';

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export function writeReply(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string>): number {
  const status = reply.status ?? 200;
  const headers: Record<string, string> = { ...SECURITY_HEADERS, ...extraHeaders };
  for (const [k, v] of Object.entries(reply.headers ?? {})) headers[k.toLowerCase()] = v;
  if (reply.body instanceof Readable) {
    // a streamed answer (an SSE relay): written as it comes, no length; a client that goes away
    // destroys the source, which is how its producer learns to stop
    res.writeHead(status, headers);
    pipeline(reply.body, res, () => {});
    return status;
  }
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
  return new HttpError(Problems.internal, 'an internal error occurred');
}

/** The reply an error becomes: status, RFC 9457 body, the error's own headers. */
export function problemReply(err: HttpError, instance: string, extraHeaders: Record<string, string> = {}): Reply {
  const headers: Record<string, string> = { ...extraHeaders, ...(err.headers ?? {}), 'content-type': 'application/problem+json' };
  // a 413 for a body still arriving closes only when core/body.ts says so: it drains the rest first
  if (err.status === 503) headers['connection'] ??= 'close';
  return { status: err.status, body: err.toProblem(instance), headers };
}

export function writeProblem(res: ServerResponse, err: HttpError, instance: string, extraHeaders: Record<string, string>): number {
  return writeReply(res, problemReply(err, instance, extraHeaders), {});
}
