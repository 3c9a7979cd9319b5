import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import busboyImport from '@fastify/busboy';
import { HttpError, Problems } from '../errors.js';
import { duplicateKeyAt } from '../json/syntax.js';
import type { MultipartBody, UploadedFile } from '../types.js';

/** After a 413, bytes of one request read and discarded before the connection is closed (config server.body_drain_bytes). */
export const DEFAULT_DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * Reads a request body into memory with a hard byte cap: a declared Content-Length past the cap is
 * refused before a byte is read, and a chunked body is cut off at cap+1 bytes. Chunks are taken
 * through listeners, not an async iterator, because leaving an iterator early destroys the request
 * and with it the socket, and the client then sees a reset instead of the 413.
 */
/** the request announces a Content-Length past `limit`: refused before a byte of the body is read */
export function tooLargeDeclared(req: IncomingMessage, limit: number): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && Number(declared) > limit;
}

export function readBody(req: IncomingMessage, limit: number, drainBytes = DEFAULT_DRAIN_BYTES): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (tooLargeDeclared(req, limit)) {
    return Promise.reject(refuse(req, `body of ${declared} bytes exceeds the ${limit}-byte limit of this route`, 0, Number(declared), drainBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        reject(refuse(req, `body exceeds the ${limit}-byte limit of this route`, size, undefined, drainBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    const onClose = () => {
      stop();
      reject(new Error('the client closed the connection before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * The 413 for an oversized body. A server that answers and closes while the client is still
 * sending makes the client's next write fail (EPIPE/ECONNRESET) before it reads the status, so the
 * rest of the request is read and discarded while the whole request stays within `drainBytes`; the
 * connection then stays usable. A request announced or grown past that bound is answered with
 * `Connection: close` and cut off: draining it would let one client make the server read without end.
 */
function refuse(req: IncomingMessage, detail: string, seen: number, declared: number | undefined, drainBytes: number): HttpError {
  if (Math.max(seen, declared ?? 0) > drainBytes) {
    return new HttpError(Problems.payloadTooLarge, detail, { headers: { connection: 'close' } });
  }
  let total = seen;
  const discard = (chunk: Buffer) => {
    total += chunk.length;
    if (total > drainBytes) {
      req.off('data', discard);
      req.socket.destroy();
    }
  };
  req.on('data', discard);
  req.on('error', () => {});
  return new HttpError(Problems.payloadTooLarge, detail);
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

// A surrogate can only reach a parsed string through a \uD800–\uDFFF escape (raw UTF-8 cannot encode one).
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Parses a JSON body and accepts only I-JSON (RFC 7493): every hash the service computes is RFC 8785
 * canonical JSON, which cannot represent a lone surrogate, so such a body is refused here with a 400
 * instead of failing later in an audit or proof hash.
 */
export function parseJson(raw: Buffer, type: string): unknown {
  if (raw.length === 0) return undefined;
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    throw new HttpError(Problems.unsupportedMediaType, `expected application/json, got ${type}`);
  }
  // I-JSON (RFC 7493) is UTF-8: other bytes decode to U+FFFD here and to anything elsewhere (a
  // Latin-1 fallback, an overlong '"' read as a quote), and the A2A routes forward the bytes as received
  if (!isUtf8(raw)) throw new HttpError(Problems.badJson, 'request body is not valid UTF-8');
  const text = raw.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(Problems.badJson, 'request body is not valid JSON');
  }
  if (SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value)) {
    throw new HttpError(Problems.badJson, 'request body holds a lone UTF-16 surrogate (\\uD800–\\uDFFF not in a pair); send well-formed Unicode');
  }
  return value;
}

/**
 * 400 `invalid_json` for a body that names one member twice in an object (any depth), or null. For
 * the routes that verify a body and pass its bytes on: JSON.parse reads the last of the two, other
 * parsers the first, so what was checked and what is delivered would differ (I-JSON forbids it).
 */
export function repeatedKeyError(raw: Buffer | null): HttpError | null {
  const d = raw && raw.length ? duplicateKeyAt(raw) : null;
  if (!d) return null;
  return new HttpError(Problems.badJson, `request body names the member ${JSON.stringify(d.key)} twice in one object (at ${d.pointer || '/'}); send each member once`);
}

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !(value as string & { isWellFormed(): boolean }).isWellFormed();
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (hasLoneSurrogate(k) || hasLoneSurrogate(v)) return true;
  }
  return false;
}

type BusboyCtor = new (opts: Record<string, unknown>) => NodeJS.WritableStream & {
  on(ev: 'file', cb: (field: string, file: Readable & { truncated?: boolean }, filename: string, enc: string, mime: string) => void): unknown;
  on(ev: 'field', cb: (name: string, value: string, nameTrunc: boolean, valTrunc: boolean) => void): unknown;
  on(ev: 'finish' | 'error' | 'filesLimit' | 'fieldsLimit' | 'partsLimit', cb: (err?: Error) => void): unknown;
};
const Busboy = ((busboyImport as unknown as { default?: unknown }).default ?? busboyImport) as BusboyCtor;

async function* slices(raw: Buffer): AsyncGenerator<Buffer> {
  const SLICE = 256 * 1024;
  for (let at = 0; at < raw.length; at += SLICE) {
    yield raw.subarray(at, at + SLICE);
    await new Promise<void>((r) => setImmediate(r));
  }
}

/** multipart/form-data through @fastify/busboy, with the route's cap applied per file as well. */
export function parseMultipart(raw: Buffer, headers: IncomingMessage['headers'], limit: number): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let bb: ReturnType<typeof newBusboy>;
    const newBusboy = () =>
      new Busboy({ headers, limits: { fileSize: limit, files: 8, fields: 64, fieldSize: 1024 * 1024, parts: 80 } });
    try {
      bb = newBusboy();
    } catch {
      reject(new HttpError(Problems.unsupportedMediaType, 'expected multipart/form-data with a boundary'));
      return;
    }
    // no prototype: a field named __proto__ or constructor is a field like any other
    const body: MultipartBody = { fields: Object.create(null) as Record<string, string>, files: [] };
    const pending: Promise<void>[] = [];
    let failed: HttpError | null = null;
    const fail = (e: HttpError) => {
      failed ??= e;
    };
    bb.on('field', (name, value, _nt, valueTruncated) => {
      if (valueTruncated) fail(new HttpError(Problems.payloadTooLarge, `field ${name} is too large`));
      // a repeated field is ambiguous: keeping either copy judges a claim the caller may not have
      // meant (the last one won, and a second `claim` got a VERIFIED image verdict of its own)
      if (Object.hasOwn(body.fields, name)) {
        const error = { field: `/body/${name}`, message: 'is given more than once' };
        fail(new HttpError(Problems.validation, `multipart field ${JSON.stringify(name)} is given more than once`, { errors: [error] }));
      }
      body.fields[name] = value;
    });
    bb.on('file', (field, stream, filename, _enc, mimeType) => {
      const parts: Buffer[] = [];
      pending.push(
        new Promise<void>((done) => {
          stream.on('data', (d: Buffer) => parts.push(d));
          stream.on('limit', () => fail(new HttpError(Problems.payloadTooLarge, `file ${field} exceeds ${limit} bytes`)));
          stream.on('end', () => {
            const file: UploadedFile = { field, filename: filename ?? '', mimeType: mimeType ?? 'application/octet-stream', data: Buffer.concat(parts) };
            body.files.push(file);
            done();
          });
        }),
      );
    });
    for (const ev of ['filesLimit', 'fieldsLimit', 'partsLimit'] as const) {
      bb.on(ev, () => fail(new HttpError(Problems.payloadTooLarge, 'too many multipart parts')));
    }
    bb.on('error', () => reject(new HttpError(Problems.validation, 'malformed multipart body')));
    bb.on('finish', () => {
      Promise.all(pending).then(() => (failed ? reject(failed) : resolve(body)), reject);
    });
    // fed in slices with a turn of the event loop between them: a 10 MB upload never holds it whole
    Readable.from(slices(raw)).pipe(bb);
  });
}
