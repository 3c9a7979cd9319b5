import { createServer, type RequestListener, type Server } from 'node:http';
import type { ListenOptions, Socket } from 'node:net';
import type { Config } from '../config.js';
import { defineProblem, HttpError, Problems, type ProblemDef } from '../errors.js';

/**
 * Refusals Node's parser makes before a request exists: no route, no pipeline. Without a
 * `clientError` listener Node answers them with a bare status line and no body; these give the same
 * statuses an RFC 9457 body like every other refusal, so a client reads one error format.
 */
export const ClientProblems = {
  malformed: defineProblem('malformed_request', 400, 'Malformed HTTP request'),
  timeout: defineProblem('request_timeout', 408, 'Request Timeout'),
  headersTooLarge: defineProblem('headers_too_large', 431, 'Request Header Fields Too Large'),
} as const;

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

function problemFor(code: string | undefined): { def: ProblemDef; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { def: ClientProblems.headersTooLarge, detail: 'the request line and headers exceed the server’s limit' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { def: Problems.payloadTooLarge, detail: 'chunk extensions exceed the server’s limit' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { def: ClientProblems.timeout, detail: 'the request was not received completely within the server’s request timeout' };
    default:
      return { def: ClientProblems.malformed, detail: 'the request could not be parsed as HTTP/1.1' };
  }
}

/**
 * The bytes of the answer to a parser-level error: a complete HTTP/1.1 response that closes the
 * connection (the stream's framing can no longer be trusted).
 */
export function clientErrorResponse(code: string | undefined): Buffer {
  const { def, detail } = problemFor(code);
  const body = JSON.stringify(new HttpError(def, detail).toProblem());
  const head =
    `HTTP/1.1 ${def.status} ${REASONS[def.status] ?? 'Bad Request'}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\nConnection: close\r\n\r\n';
  return Buffer.from(head + body);
}

/**
 * Node's own default, with a body: answer only when nothing of a response has been written on this
 * socket yet (Node's default handler reads the same `_httpMessage` field), else just close it.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) socket.write(clientErrorResponse(err.code));
  socket.destroy();
}

/**
 * Node checks `headersTimeout` and `requestTimeout` only when its connection sweep runs (every 30 s
 * by default), so a slow client could outlive `request_timeout_ms` by up to that much; a sweep
 * every second bounds the overrun at one second, for a walk over the open connections.
 */
export function serverOptions(config: Config) {
  const requestTimeout = config.server.request_timeout_ms;
  return {
    requestTimeout,
    headersTimeout: Math.min(requestTimeout, 60_000),
    connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(requestTimeout / 4))),
  };
}

/** A node:http server with the kernel's timeouts and problem bodies for parser-level refusals. */
export function createHttpServer(config: Config, listener: RequestListener): Server {
  const server = createServer(serverOptions(config), listener);
  server.on('clientError', answerClientError);
  return server;
}

/**
 * Where and how the server listens. `reusePort` (SO_REUSEPORT, Node >= 22.12 on Linux) lets several
 * proofgate processes bind one port; the kernel spreads new connections among them.
 */
export function listenOptions(config: Config): ListenOptions {
  // @types/node 20 does not know reusePort; Node 22.12+ honours it
  return { port: config.server.port, host: config.server.host, ...(config.server.reuse_port ? { reusePort: true } : {}) } as ListenOptions;
}
