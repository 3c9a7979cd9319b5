import { context, createContextKey, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context as OtelContext, type Span, type TextMapGetter } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { SERVICE_VERSION } from '../version.js';

/**
 * OpenTelemetry tracing (docs/tracing.md). Code everywhere calls the API only; the SDK, the OTLP
 * exporter and the context manager are imported in `startTracing`, and only when an endpoint is
 * configured. With tracing off `enabled` stays false and every helper here returns after one
 * boolean test: no SDK module is loaded and no span object is made on the request path.
 */
let enabled = false;
/** kernels of this process using the registered provider; the last one to close shuts it down */
let users = 0;
let shutdownProvider: (() => Promise<void>) | null = null;
/** kernels started together wait for one registration, not one each */
let registering: Promise<void> | null = null;
const tracer = () => trace.getTracer('proofgate', SERVICE_VERSION);
/** the request's server span, kept in its context: attributes decided deep in a handler land on it */
const REQUEST_SPAN = createContextKey('proofgate.request_span');

/** the W3C header is 55 characters; a longer value (or a list of them) is not worth parsing */
const MAX_TRACEPARENT = 128;
const getter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (h) => Object.keys(h),
  get(h, key) {
    const v = h[key];
    if (typeof v !== 'string' || v.length > MAX_TRACEPARENT * 4) return undefined;
    if (key === 'traceparent' && v.length > MAX_TRACEPARENT) return undefined;
    return v;
  },
};

export function tracingEnabled(): boolean {
  return enabled;
}

/** The OTLP/HTTP traces URL from the config, else from the standard OTEL_* variables; null when off. */
export function otlpTracesUrl(config: Config, env: NodeJS.ProcessEnv = process.env): string | null {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = config.tracing?.otlp_endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  if (!config.tracing?.otlp_endpoint && specific) return specific;
  if (!base) return null;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Loads the SDK and registers it globally when an endpoint is configured; the returned closer
 * flushes what is still buffered. The providers are process-wide: a second kernel in the process
 * shares the first one's, and the last to close unregisters it (a later kernel starts afresh).
 */
export async function startTracing(config: Config, log: Logger): Promise<() => Promise<void>> {
  const url = otlpTracesUrl(config);
  if (!url) return async () => undefined;
  if (!enabled) await (registering ??= register(url, log));
  users++;
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    if (--users > 0 || !shutdownProvider) return;
    const stop = shutdownProvider;
    shutdownProvider = null;
    registering = null;
    enabled = false;
    trace.disable();
    propagation.disable();
    context.disable();
    await stop();
  };
}

async function register(url: string, log: Logger): Promise<void> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { W3CTraceContextPropagator }, { AsyncLocalStorageContextManager }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'proofgate', 'service.version': SERVICE_VERSION }),
    // the exporter speaks OTLP/HTTP with JSON bodies; the batch processor reads OTEL_BSP_* itself
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  enabled = true;
  shutdownProvider = () => provider.shutdown().catch((err: unknown) => log.warn({ err }, 'tracing: final export failed'));
  log.info({ url }, 'tracing: exporting spans over OTLP/HTTP');
}

/**
 * The server span of one request, parented on the caller's `traceparent` when it is well formed.
 * A malformed or oversized header is ignored by the propagator: the request starts a new trace.
 */
export function startServerSpan(method: string, path: string, headers: IncomingHttpHeaders, host: string | undefined): { span: Span; ctx: OtelContext } | null {
  if (!enabled) return null;
  const parent = propagation.extract(ROOT_CONTEXT, headers, getter);
  const attributes: Attributes = { 'http.request.method': method, 'url.path': path };
  // the Host header is the caller's: a DNS name fits in 255 characters, anything longer is left out
  if (host && host.length <= 261) attributes['server.address'] = host.replace(/:\d+$/, '');
  const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span).setValue(REQUEST_SPAN, span) };
}

/** Names the span by its route template (OTel HTTP conventions) once the router found one. */
export function nameServerSpan(span: Span | undefined, method: string, route: string): void {
  if (!span) return;
  span.setAttribute('http.route', route);
  span.updateName(`${method} ${route}`);
}

export function endServerSpan(span: Span | undefined, status: number): void {
  if (!span) return;
  span.setAttribute('http.response.status_code', status);
  // a 4xx is the client's error, not the server's (HTTP semantic conventions, server spans)
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: String(status) });
  span.end();
}

/** Runs `fn` in the span's context, so the spans it starts (engine, audit, upstream) become children. */
export function runInSpan<T>(ctx: OtelContext | undefined, fn: () => T): T {
  return ctx ? context.with(ctx, fn) : fn();
}

/**
 * A child span of the active one around `fn`: ended when its promise settles, marked as an error
 * when it rejects. With tracing off, or outside any trace, it is `fn()` itself.
 */
export function traced<T>(name: string, attributes: Attributes, fn: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  // only inside a request's trace: warm-ups, pruning and other background work make no root spans
  if (!enabled || !trace.getSpan(context.active())) return fn();
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * The span of an engine task inside its worker thread, as a child of the active (engine) span. The
 * thread runs no tracing SDK: it reports when it ran the task, and the span is drawn here from those
 * times, so the gap before it is the queue and the hop. Undefined when there is nothing to trace.
 */
export function workerSpan(name: string, attributes: Attributes): ((startMs: number, endMs: number, threadId: number) => void) | undefined {
  if (!enabled) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)) return undefined;
  return (startMs, endMs, threadId) => {
    const span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes: { ...attributes, 'thread.id': threadId }, startTime: startMs }, parent);
    span.end(endMs);
  };
}

/**
 * Sets attributes on the current request's server span (the verdict, the MCP method), wherever in
 * the handler they are decided. Outside a request, or with tracing off, nothing happens.
 */
export function annotateRequest(attributes: Attributes): void {
  if (!enabled) return;
  const span = context.active().getValue(REQUEST_SPAN) as Span | undefined;
  span?.setAttributes(attributes);
}

/** A route's verdict on its request span: status, admission and, when it names one, the constraint. */
export function recordVerdict(span: Span, status: string, admission: string | undefined, constraintId: unknown): void {
  span.setAttribute('proofgate.verdict', status);
  if (admission !== undefined) span.setAttribute('proofgate.admission', admission);
  if (typeof constraintId === 'string') span.setAttribute('proofgate.constraint_id', constraintId.slice(0, 128));
}

/** An outbound call to another service: a CLIENT span whose context `traceparent` carries onward. */
export function tracedClient<T>(name: string, url: URL | string, headers: Record<string, string>, fn: () => Promise<T>, attributes: Attributes = {}): Promise<T> {
  if (!enabled) return fn();
  const u = typeof url === 'string' ? new URL(url) : url;
  return traced(name, { ...attributes, 'server.address': u.hostname, 'url.full': `${u.origin}${u.pathname}` }, async () => {
    injectTraceContext(headers);
    return fn();
  }, SpanKind.CLIENT);
}

/**
 * Writes the active context's `traceparent` (and `tracestate`) into outbound headers. The values
 * come from the propagator, never from the caller's header text, so nothing a client sent is
 * copied onto the next hop verbatim.
 */
export function injectTraceContext(headers: Record<string, string>): void {
  if (!enabled) return;
  delete headers.traceparent;
  delete headers.tracestate;
  propagation.inject(context.active(), headers);
}

/**
 * Runs `fn` under a SERVER span for one message of a protocol that carries its trace context in the
 * message itself (MCP `params._meta`): parented on that context when it is well formed, else on the
 * active one, and linked to the active (HTTP) span when the two differ. The carrier's values pass
 * the same length checks as the header and are parsed by the propagator, never copied onward.
 */
export function tracedMessage<T>(name: string, carrier: unknown, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!enabled || !trace.getSpan(context.active())) return fn();
  const active = context.active();
  const strings: IncomingHttpHeaders = {};
  if (carrier && typeof carrier === 'object' && !Array.isArray(carrier)) {
    for (const k of ['traceparent', 'tracestate'] as const) {
      const v = (carrier as Record<string, unknown>)[k];
      if (typeof v === 'string') strings[k] = v;
    }
  }
  const fromMessage = propagation.extract(ROOT_CONTEXT, strings, getter);
  const messageSpan = trace.getSpanContext(fromMessage);
  const httpSpan = trace.getSpan(active)!.spanContext();
  const parent = messageSpan && trace.isSpanContextValid(messageSpan) ? trace.setSpanContext(active, messageSpan) : active;
  const links = parent !== active ? [{ context: httpSpan }] : [];
  return tracer().startActiveSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * The active context's `traceparent` (and `tracestate`) as `_meta` entries for an outbound message,
 * over whatever the caller's `_meta` held under those keys; the meta unchanged with tracing off.
 */
export function withTraceMeta(meta: Record<string, unknown>): Record<string, unknown> {
  if (!enabled) return meta;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const { traceparent: _p, tracestate: _s, ...rest } = meta;
  return { ...rest, ...carrier };
}

/** The active trace id, for a log line or an audit record; undefined with tracing off. */
export function activeTraceId(): string | undefined {
  if (!enabled) return undefined;
  return trace.getSpan(context.active())?.spanContext().traceId;
}
