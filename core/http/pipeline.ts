import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { HttpError, Problems } from '../errors.js';
import { readBody, mediaType, parseJson, parseMultipart, tooLargeDeclared } from './body.js';
import { guardNumberRange } from '../json/exact.js';
import { assertFieldsDepth, assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from '../json/depth.js';
import { isStreamReply, problemReply, toHttpError, writeProblem, writeReply, writeStream } from './reply.js';
import type { Router } from './router.js';
import { renderVerdict } from '../verdict.js';
import { Context, type ContextServer } from './context.js';
import type { Validator } from '../json/validate.js';
import type { Metrics } from '../obs/metrics.js';
import { endServerSpan, nameServerSpan, recordVerdict, runInSpan, startServerSpan, traced as childSpan } from '../obs/tracing.js';
import type { Authenticator, Outcome, Phases, PluginPhase, Reply, RequestContext, RouteDef } from '../types.js';

/** the fns plugins attached to each phase, in registration order */
export type PhaseFns = { [P in PluginPhase]: Phases[P][] };

export interface PipelineDeps {
  router: Router;
  validator: Validator;
  metrics: Metrics;
  log: Logger;
  authenticators: Map<string, Authenticator>;
  /** per auth kind: does a request carry that kind's credential (routes with authAlso) */
  credentialPresent?: Map<string, (ctx: RequestContext) => boolean>;
  phases: PhaseFns;
  defaultBodyLimit: number;
  /** after a 413, how many bytes of a request are read and discarded before the connection is closed */
  bodyDrainBytes?: number;
  /** deepest object/array nesting of a JSON body or JSON multipart field (server.max_json_depth) */
  maxJsonDepth?: number;
  validateResponses: boolean;
  isClosing(): boolean;
  shutdownSignal: AbortSignal;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * Past this size each body step (depth scan, parse, schema) is milliseconds; the pipeline gives the
 * event loop a turn between them so other requests (/healthz) are not held behind one large body.
 */
const YIELD_BODY_BYTES = 256 * 1024;
const turn = () => new Promise<void>((r) => setImmediate(r));

/** Request id from the caller when it is sane, else a fresh one: lets a runtime correlate its logs with ours. */
function requestId(req: IncomingMessage): string {
  const h = req.headers['x-request-id'];
  return typeof h === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(h) ? h : randomUUID();
}

export function peerAddress(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

/**
 * One request's path through the kernel, phase by phase (docs/architecture.md): route →
 * authenticate (credential, scope) → gate (rate limits, fail-closed gates) → handler (body cap,
 * parse, schema validation, the route's handler) → seal (routes with `verification.attest`: the
 * attestation) → record (routes with `verification`: the audit entry) → reply (observers) → write.
 * Each phase may throw an HttpError; the catch at the end is the only place an error body is
 * written, after the refusal went through record and reply in turn.
 */
export function createPipeline(d: PipelineDeps) {
  const maxDepth = d.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  // one shutdown listener for all requests, not one per request (added and removed on the hot path)
  const server: ContextServer = { log: d.log, shutdownSignal: d.shutdownSignal, live: new Set() };
  d.shutdownSignal.addEventListener('abort', () => {
    for (const c of server.live) c.shutdown();
  }, { once: true });
  let inFlight = 0;
  /** `expectsContinue`: the client sent Expect: 100-continue and waits for 100 before its body */
  const handle = async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue = false): Promise<void> {
    const started = process.hrtime.bigint();
    const id = requestId(req);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const method = req.method ?? 'GET';
    const responseHeaders: Record<string, string> = { 'x-request-id': id };
    let routeLabel = 'unmatched';
    let status = 500;
    // built before routing (an error there still logs with the request id); hooks see it once routed
    const c = new Context(server, id, method, url, q === -1 ? '' : url.slice(q + 1), req.headers, peerAddress(req), responseHeaders);
    // one listener per request, for the count close() waits on and for the handler's abort signal
    inFlight++;
    // `on`, not `once`: a response closes once, and once() wraps every listener in two more objects
    res.on('close', () => {
      inFlight--;
      c.closed(res.writableEnded);
    });
    let ctx: Context | null = null;
    // null with tracing off; the request then runs exactly as before
    const traced = startServerSpan(method, path, req.headers, req.headers.host);

    try {
      if (d.isClosing()) {
        responseHeaders.connection = 'close';
        throw new HttpError(Problems.shuttingDown, 'the server is shutting down; retry on another instance');
      }
      const match = d.router.find(method, path);
      if (!match) {
        const allow = d.router.allowed(path);
        if (allow.length) {
          responseHeaders.allow = allow.join(', ');
          throw new HttpError(Problems.methodNotAllowed, `${method} is not allowed on ${path}`);
        }
        throw new HttpError(Problems.notFound, `no route for ${method} ${path}`);
      }
      const route = match.route;
      routeLabel = route.path;
      nameServerSpan(traced?.span, method, route.path);
      c.route = route;
      c.routePath = route.path;
      c.params = match.params;
      ctx = c;

      const routedCtx = ctx;
      if (traced && route.auth !== 'none') await runInSpan(traced.ctx, () => childSpan('authenticate', { 'proofgate.auth.kind': route.auth }, () => authenticate(d, route, routedCtx)));
      else await authenticate(d, route, ctx);
      // a gate that answers synchronously is not awaited: an await costs a turn of the microtask queue
      for (const gate of d.phases.gate) {
        const r = gate(ctx);
        if (r) await r;
      }

      const bodyType = route.bodyType ?? (BODY_METHODS.has(method) ? 'json' : 'none');
      if (bodyType !== 'none') {
        // every refusal that needs no body (route, credential, rate limit) has been decided by now
        if (expectsContinue && !tooLargeDeclared(req, route.bodyLimit ?? d.defaultBodyLimit)) res.writeContinue();
        const raw = await readBody(req, route.bodyLimit ?? d.defaultBodyLimit, d.bodyDrainBytes);
        ctx.rawBody = raw;
        // the depth cap comes before any parse or walk of the body (docs/errors.md, too_deep)
        const large = raw.length > YIELD_BODY_BYTES;
        if (bodyType === 'json') {
          assertJsonDepth(raw, maxDepth);
          if (large) await turn();
          ctx.body = guardNumberRange(parseJson(raw, mediaType(req)), raw, route.exactNumbers ?? false);
          if (large) await turn();
        } else if (bodyType === 'multipart') {
          const mp = await parseMultipart(raw, req.headers, route.bodyLimit ?? d.defaultBodyLimit);
          assertFieldsDepth(mp.fields, maxDepth);
          ctx.body = mp;
        } else ctx.body = raw;
      }
      if (route.schema?.params) d.validator.assert(route.schema.params, ctx.params, 'params');
      if (route.schema?.query) d.validator.assert(route.schema.query, ctx.query, 'query');
      if (route.schema?.body) {
        const target = bodyType === 'multipart' ? (ctx.body as { fields: unknown }).fields : ctx.body;
        d.validator.assert(route.schema.body, target, 'body');
        if (ctx.rawBody && ctx.rawBody.length > YIELD_BODY_BYTES) await turn();
      }

      const routed = ctx;
      // the handler and the later phases run in the server span's context: engine tasks, upstream
      // calls, attestation and the audit commit started there become its children
      let reply: Reply = await runInSpan(traced?.ctx, () => route.handler(routed));
      // a large body's handler and the record phase both walk it (a proof hash, the audit's request
      // hash): a turn between them keeps the two from holding the loop as one block
      if (ctx.rawBody && ctx.rawBody.length > YIELD_BODY_BYTES) await turn();
      const verification = route.verification;
      if (verification) {
        if (verification.attest) for (const seal of d.phases.seal) reply = (await runInSpan(traced?.ctx, () => seal(routed, reply))) ?? reply;
        // what is recorded is the reply as it is sent, the seal included; a record that fails withholds it
        const outcome: Outcome = { kind: 'reply', reply };
        for (const record of d.phases.record) await runInSpan(traced?.ctx, () => record(routed, outcome));
      }
      // the verdict the seal and record phases settled on is the one the request span records
      if (traced && reply.verdict) recordVerdict(traced.span, reply.verdict.status, reply.verdict.admission, reply.verdict.developer_fields.constraint_id);
      if (d.phases.reply.length) await runObservers(d.phases.reply, routed, { kind: 'reply', reply }, traced?.ctx);
      // the wire body is rendered from the verdict once every phase has seen it
      reply = renderVerdict(reply);
      if (isStreamReply(reply)) {
        status = await writeStream(res, reply, responseHeaders);
        return;
      }
      if (d.validateResponses && route.schema?.response && (reply.status ?? 200) < 300) {
        const errors = d.validator.check(route.schema.response, reply.body, 'response');
        if (errors.length) {
          c.log.error({ errors, route: route.path }, 'response does not match its schema');
          throw new HttpError(Problems.internal, 'response failed its schema');
        }
      }
      status = writeReply(res, reply, responseHeaders);
    } catch (err) {
      const httpErr = toHttpError(err);
      // a full store is logged once per episode by the store, not once per refused request
      if (httpErr.status >= 500 && httpErr.code !== Problems.storeFull.code) c.log.error({ err, route: routeLabel }, 'request failed');
      if (res.headersSent) {
        res.destroy();
      } else {
        const routed = ctx;
        if (routed) await runRefusal(d, routed, httpErr, path, traced?.ctx);
        status = writeProblemOrBare(res, httpErr, path, responseHeaders, id, c.log);
      }
    } finally {
      c.finish();
      endServerSpan(traced?.span, status);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { method, route: routeLabel, status: String(status) };
      d.metrics.httpRequests.inc(labels);
      d.metrics.httpDuration.observe(labels, seconds);
      if (d.log.isLevelEnabled('debug')) c.log.debug({ method, route: routeLabel, status, ms: seconds * 1000 }, 'request');
    }
  };
  /** requests whose response has not closed yet (close() waits for them) */
  return Object.assign(handle, { inFlight: () => inFlight });
}

/**
 * The refusal with its headers, or, when one of them cannot be written (a plugin put a CR/LF or
 * other invalid value in the error's or the request's headers), a bare 500 problem: a throw from
 * the catch block would leave the client without an answer and the request in flight for good.
 */
function writeProblemOrBare(res: ServerResponse, err: HttpError, instance: string, headers: Record<string, string>, id: string, log: Logger): number {
  try {
    return writeProblem(res, err, instance, headers);
  } catch (writeErr) {
    log.error({ err: writeErr, status: err.status }, 'the error response could not be written; sent a bare 500');
    if (res.headersSent) {
      res.destroy();
      return err.status;
    }
    return writeProblem(res, new HttpError(Problems.internal, 'an internal error occurred'), instance, { 'x-request-id': id });
  }
}

type SpanCtx = Parameters<typeof runInSpan>[0];

/**
 * A refusal of a routed request goes through the same phases as a reply: record (a verification
 * route's refusal is audited), then reply. Both only observe here: whatever they do or throw, the
 * refusal that was decided is the one written.
 */
async function runRefusal(d: PipelineDeps, ctx: RequestContext, err: HttpError, instance: string, span: SpanCtx): Promise<void> {
  const record = ctx.route.verification ? d.phases.record : [];
  if (record.length === 0 && d.phases.reply.length === 0) return;
  const outcome: Outcome = { kind: 'refused', error: err, problem: Object.freeze(problemReply(err, instance)) };
  if (record.length) await runObservers(record, ctx, outcome, span);
  if (d.phases.reply.length) await runObservers(d.phases.reply, ctx, outcome, span);
}

async function runObservers(fns: ReadonlyArray<(ctx: RequestContext, o: Outcome) => Promise<void> | void>, ctx: RequestContext, outcome: Outcome, span: SpanCtx): Promise<void> {
  for (const fn of fns) {
    try {
      await runInSpan(span, () => fn(ctx, outcome));
    } catch (fnErr) {
      ctx.log.error({ err: fnErr, route: ctx.routePath, outcome: outcome.kind }, 'a phase observer failed; the decided response is sent');
    }
  }
}

async function authenticate(d: PipelineDeps, route: RouteDef, ctx: RequestContext): Promise<void> {
  if (route.auth === 'none') return;
  let kind: string = route.auth;
  const also = route.authAlso;
  if (also?.length) {
    // the first kind (route.auth, then authAlso in order) whose credential the request carries
    const carries = (k: string) => d.authenticators.has(k) && !!d.credentialPresent?.get(k)?.(ctx);
    if (!carries(kind)) kind = also.find(carries) ?? route.auth;
  }
  const auth = d.authenticators.get(kind);
  if (!auth) throw new HttpError(Problems.unauthorized, `no ${kind} authentication is configured on this server`);
  const principal = await auth(ctx);
  ctx.principal = principal;
  const scope = route.scope;
  if (scope && scope !== 'authenticated' && !principal.scopes.includes(scope) && !principal.scopes.includes('admin:all')) {
    throw new HttpError(Problems.forbidden, `this credential lacks the ${scope} scope`);
  }
}
