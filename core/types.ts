import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { CollectionCodecs, Store } from './store/store.js';
import type { Settings } from './plugin/settings.js';
import type { Metrics } from './obs/metrics.js';
import type { PluginKit } from './plugin/kit.js';
import type { DiagnosticResult } from './verdict.js';
import type { FieldError, HttpError } from './errors.js';

/**
 * The plugin contract. A plugin sees the kernel only through `App`; everything it adds (routes,
 * engines, authenticators, hooks, services) goes through these methods, so the kernel never needs
 * to know a plugin by name.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type AuthKind = 'none' | 'apiKey' | 'jwt' | 'agentToken';
export type Scope = 'verify:read' | 'agent:write' | 'attestation:read' | 'admin:all';
/** `authenticated`: any working credential of the declared kind, whatever its scopes. */
export type RouteScope = Scope | 'authenticated';
export type Role = 'owner' | 'admin' | 'member';
/** An organisation's plan: a name from config limits.plans (the spec's free, pro, enterprise by default). */
export type Tier = string;

export interface Principal {
  /** how the caller authenticated */
  kind: Exclude<AuthKind, 'none'>;
  orgId: string;
  userId?: string;
  role?: Role;
  keyId?: string;
  agentId?: string;
  scopes: readonly Scope[];
  tier?: Tier;
  /** A2A sender ids this API key may speak as (the key's `a2a_senders`); absent: none */
  a2aSenders?: readonly string[];
}

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: UploadedFile[];
}

export interface RequestContext {
  readonly id: string;
  readonly method: string;
  /** the route's declared path (without the /v1 prefix) */
  readonly routePath: string;
  readonly url: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly headers: IncomingHttpHeaders;
  /** direct peer address, port stripped */
  readonly ip: string;
  /** parsed and validated body: JSON value, MultipartBody, or undefined */
  body: unknown;
  /** raw bytes of the body as received (after the cap), for routes that hash or sign it */
  readonly rawBody: Buffer | null;
  principal: Principal | null;
  readonly route: Readonly<RouteInfo>;
  readonly log: Logger;
  /** aborted when the client goes away or the server is shutting down */
  readonly signal: AbortSignal;
  /**
   * The request's typed slots: what one phase hands a later one (the attestation's record to the
   * audit entry's transaction, the audit log id to the live view). The key decides the type
   * (`RequestSlots`), so no reader picks the type of what it gets.
   */
  get<K extends SlotKey>(key: K): RequestSlots[K] | undefined;
  set<K extends SlotKey>(key: K, value: RequestSlots[K]): void;
  /** headers added to whatever response goes out, success or error (e.g. RateLimit-*) */
  readonly responseHeaders: Record<string, string>;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /**
   * JSON-serialisable value, a string/Buffer sent as-is (set content-type in headers), or a
   * node:stream Readable relayed chunk by chunk (no content-length, no response-schema check).
   * With `verdict`: the endpoint's own fields, rendered beside the verdict (see `layout`).
   */
  body?: unknown;
  /**
   * The verdict of a verification route. Phases read it here (seal, record); the kernel renders
   * the wire body from it after the seal, record and reply phases (core/verdict.ts renderVerdict, decisions §2).
   */
  verdict?: DiagnosticResult;
  /** what was verified: the engine and the evaluated input an attestation binds */
  subject?: ReplySubject;
  /**
   * Where the verdict goes on the wire (decisions §2). `flat` (default): the DiagnosticResult at the
   * top level, its legacy flat fields copied beside it, then `body`'s fields. `nested`: `body` keeps
   * the endpoint's own top-level `status` and the verdict rides under `diagnostic`.
   */
  layout?: 'flat' | 'nested';
}

export interface ReplySubject {
  engine: string;
  /** the evaluated input (e.g. the normalised expression the proof_ref binds) */
  query?: unknown;
}

export interface RouteSchemas {
  body?: string;
  query?: string;
  params?: string;
  response?: string;
}

export interface RouteInfo {
  method: HttpMethod;
  path: string;
  auth: AuthKind;
  /**
   * further credential kinds the route accepts besides `auth`: the first kind (in the order
   * `auth`, then these) whose credential is present in the request authenticates it; with none
   * present, `auth` answers (its "missing credential" error)
   */
  authAlso?: readonly Exclude<AuthKind, 'none'>[];
  scope?: RouteScope;
  schema?: RouteSchemas;
  /** bytes; 413 past it. Default: config.server.body_limit_bytes */
  bodyLimit?: number;
  /** how the body is read: JSON (default for POST/PUT/PATCH), multipart/form-data, or raw bytes */
  bodyType?: 'json' | 'multipart' | 'raw' | 'none';
  /** media type of a non-JSON response (an SVG badge, a CSV export): such a route has no response schema */
  produces?: string;
  /**
   * the handler compares claimed numbers exactly (core/json/exact.ts): a JSON number beyond the
   * double range reaches it as its text instead of a 400 number_out_of_range; a list names the
   * top-level members that take such text, and one anywhere else is a 400 validation_failed
   */
  exactNumbers?: boolean | readonly string[];
  /**
   * The route answers with a verdict: the kernel runs its `record` phase (the audit entry), success
   * or refusal, and with `attest: true` its `seal` phase (the attestation) before that.
   */
  verification?: Readonly<VerificationRoute>;
  /** free-form labels a plugin selects its own routes on (`a2a`, `mcp`); no kernel meaning */
  tags?: readonly string[];
  /** name of the plugin that declared it (filled by the kernel) */
  plugin?: string;
}

export interface VerificationRoute {
  /** a VERIFIED verdict of this route is sealed (the seal phase: a signed attestation) */
  attest: boolean;
}

export interface RouteDef extends RouteInfo {
  handler(ctx: RequestContext): Promise<Reply> | Reply;
}

export type Authenticator = (ctx: RequestContext) => Promise<Principal>;

/**
 * One request's path through the kernel, phase by phase (core/http/pipeline.ts). `authenticate` and
 * `handler` are the kernel's own (an authenticator, the route's handler); plugins attach to the others.
 */
export type PhaseName = 'authenticate' | 'gate' | 'handler' | 'seal' | 'record' | 'reply';

/** How a routed request ended: the handler's reply, or a refusal (an HttpError thrown at any phase). */
export type Outcome = { readonly kind: 'reply'; readonly reply: Reply } | { readonly kind: 'refused'; readonly error: HttpError; readonly problem: Readonly<Reply> };

export interface Phases {
  /** every routed request, after authentication and before the body is read (rate limits, fail-closed gates): throw to refuse */
  gate: (ctx: RequestContext) => Promise<void> | void;
  /**
   * routes with `verification.attest`, after the handler, on its reply: may return the reply to
   * send instead (the attestation beside the verdict). A throw refuses the request.
   */
  seal: (ctx: RequestContext, reply: Reply) => Promise<Reply | void> | Reply | void;
  /**
   * routes with `verification`, on either outcome, awaited before anything is written. On a reply
   * a throw withholds it (the request is refused, and the refusal goes through this phase too);
   * on a refusal it observes: what it throws is logged, never sent.
   */
  record: (ctx: RequestContext, outcome: Outcome) => Promise<void> | void;
  /**
   * every routed request, last before the write: observes the outcome (headers go into
   * ctx.responseHeaders); what it throws is logged, never sent.
   */
  reply: (ctx: RequestContext, outcome: Outcome) => Promise<void> | void;
}
export type PluginPhase = keyof Phases;

/**
 * The per-request slot map: each plugin adds the keys it sets by module augmentation next to its
 * own code, as for `Services`, so a key is declared once and decides its type:
 *
 *     declare module '../../core/types.js' { interface RequestSlots { 'audit.log_id': string } }
 */
export interface RequestSlots {}
export type SlotKey = keyof RequestSlots & string;

export interface EngineDef {
  name: string;
  version: string;
  /** file URL of the compiled module whose exported functions run in a worker thread */
  module?: URL;
  /** a dedicated pool (e.g. one warm z3 thread); default: the shared engine pool */
  pool?: { name: string; threads: number };
  /** default per-task deadline; default config.workers.task_timeout_ms */
  timeoutMs?: number;
  /** exported function run once at start-up (e.g. z3 init); /readyz waits for it */
  warmup?: string;
}

export interface EngineHandle {
  readonly name: string;
  readonly version: string;
  /**
   * Runs exported function `fn` of the engine module in a worker. Rejects with EngineError
   * (`kind` timeout | crashed | failed | unavailable) instead of hanging. `unavailable` includes a
   * task refused at once because it would wait for a thread longer than its deadline, or, with
   * `queueBudget`, than workers.max_queue_wait_ms (overload: the route answers 503 with Retry-After).
   * A route sets `queueBudget` for the call its client waits on alone; fan-outs inside one request
   * (batch items, consensus, the A2A gateway) leave it off and wait their turn within their deadline.
   * `warmup`: a task that loads or warms the engine, never refused so, and not counted in the pool's
   * mean run time.
   */
  run<O = unknown>(fn: string, input: unknown, opts?: { timeoutMs?: number; signal?: AbortSignal; warmup?: boolean; queueBudget?: boolean }): Promise<O>;
}

export interface App {
  /** the kernel's settings; a plugin's own are `settings()` */
  readonly config: Config;
  /**
   * This plugin's settings, typed and validated (defaults filled): `s` must be the declaration in
   * its own manifest (`settings`). Reading another's throws: settings belong to their plugin.
   */
  settings<T>(s: Settings<T>): T;
  readonly log: Logger;
  readonly store: Store;
  readonly metrics: Metrics;
  /** verdict constructors, error types and hashing for plugins loaded from a path */
  readonly kit: PluginKit;
  /** false when the kernel was created to read its route table only: an engine's own warm-up waits for its first task */
  readonly warmEngines: boolean;
  /**
   * The base URL clients reach this server at, for URLs the server hands out (a served card, its
   * `jku`, a badge link): `server.public_url` without a trailing slash, else the one address the
   * server listens on (`http://127.0.0.1:8080`). Null on a wildcard bind (0.0.0.0, ::) without
   * `server.public_url`, or before the server listens. Never read from a request: a `Host` or
   * `X-Forwarded-*` header is the caller's to choose, and a URL built from it points where it says.
   */
  publicUrl(): string | null;
  route(def: RouteDef): void;
  engine(def: EngineDef): EngineHandle;
  engines(): ReadonlyArray<{ name: string; version: string }>;
  /** `present` tells whether a request carries this kind's credential (routes with `authAlso` choose by it) */
  authenticator(kind: Exclude<AuthKind, 'none'>, fn: Authenticator, present?: (ctx: RequestContext) => boolean): void;
  /** attaches `fn` to a phase of every request's path (`Phases`); fns of one phase run in registration order */
  phase<P extends PluginPhase>(name: P, fn: Phases[P]): void;
  /** register a JSON schema (with $id) beside the ones loaded from schemas/ */
  schema(schema: object): void;
  /**
   * Checks a value against a registered schema with the kernel's one validator (the same one routes
   * use): the field errors, empty when valid. Defaults the schema declares are filled in place.
   * `part` prefixes the error pointers (`/body/query`); default `body`.
   */
  validate(schemaId: string, value: unknown, part?: 'body' | 'query' | 'params' | 'response'): FieldError[];
  /** /readyz is true only when every readiness check returns true */
  readiness(name: string, check: () => boolean): void;
  /** store open, pools up, engines warm and every readiness check true */
  isReady(): boolean;
  /** start-up finished (engines warm) — still true after a dependency failed; /readyz tells the two apart */
  startedUp(): boolean;
  onClose(fn: () => Promise<void> | void): void;
  /**
   * Runs `fn` every `intervalMs` (and once as soon as start-up allows with `atStart`), one run at a
   * time, on a timer that never holds the process open: the one way a plugin sweeps expired records.
   * A run that throws goes to `onError` (default: logged) and the next one tries again. Sweeps stop
   * at shutdown, which waits for a run in progress.
   */
  every(intervalMs: number, fn: () => Promise<unknown> | unknown, o?: { atStart?: boolean; onError?: (err: unknown) => void }): void;
  /**
   * Aborted as soon as shutdown begins, before the grace period in-flight requests get: a reply
   * that streams for as long as the client stays (an event stream) ends on it, so that it does not
   * hold every shutdown to the full grace period.
   */
  readonly draining: AbortSignal;
  /**
   * Shares a runtime service between plugins without importing each other's internals. The key
   * decides the type (`Services`), and a plugin provides only the keys its manifest `provides`.
   */
  provide<K extends ServiceKey>(name: K, service: Services[K]): void;
  /**
   * The service under `name`, undefined when its provider is disabled. A plugin looks up only the
   * keys its manifest declares (`needs`, `optional`, `late`, or its own `provides`): with
   * `CreateOptions.strictServices` (tests) any other key throws.
   */
  service<K extends ServiceKey>(name: K): Services[K] | undefined;
}

/**
 * The service registry's map from key to type. Empty here: each plugin adds the keys it provides
 * by module augmentation next to its own code, so a key is declared once and decides its type:
 *
 *     declare module '../../core/types.js' { interface Services { 'attestation': AttestationService } }
 *
 * `verifier.<type>` is the one key family the kernel defines (composite routes reach engines by it).
 */
export interface Services {
  [verifier: `verifier.${string}`]: Verifier;
}
export type ServiceKey = keyof Services & string;
/** a key, or `family.*`: every key under that prefix (only in `late`, looked up by a computed name) */
export type ServiceNeed = ServiceKey | `${string}.*`;

/**
 * What a plugin shares and uses through the service registry. The kernel registers enabled plugins
 * so that every provider of a `needs` or `optional` key comes before its user (otherwise in list
 * order), and refuses to start when a `needs` key has no enabled provider or the needs go round.
 */
export interface PluginManifest {
  /** keys this plugin provides (and only these) */
  provides?: readonly ServiceKey[];
  /** keys that must be provided by an enabled plugin registered before this one */
  needs?: readonly ServiceKey[];
  /** keys used when their provider is enabled, which then registers before this one */
  optional?: readonly ServiceKey[];
  /**
   * keys looked up only while serving, never during `register`: their provider may register after
   * this plugin, so they do not order the two (what lets auth record into audit while audit reads
   * auth's security events), and may be absent
   */
  late?: readonly ServiceNeed[];
  /**
   * collections this plugin owns whose stored layout differs from their values, with their codecs
   * (core/store/store.ts Codec): the kernel hands them to the store before any plugin registers; two
   * plugins declaring one collection stop start-up
   */
  collections?: CollectionCodecs;
  /**
   * The plugin's settings (core/plugin/settings.ts defineSettings): where they live in the configuration
   * and their schema fragment, which the kernel puts into the configuration schema (defaults,
   * `x-env` names, did-you-mean for a mistyped key). Checked before `register` runs; a bad value
   * stops start-up naming the setting. The plugin reads them with `app.settings(its declaration)`.
   */
  settings?: Settings<unknown>;
}

/**
 * An engine's verification entry point, shared through `app.provide('verifier.<type>', v)` so that
 * composite routes (batch, consensus, the A2A gateway) reach engines without importing them.
 * `input` is the engine route's request body; the result is the engine's unified verdict.
 */
export interface Verifier {
  verify(input: Record<string, unknown>, opts?: { signal?: AbortSignal; principal?: Principal | null }): Promise<DiagnosticResult>;
}

export interface Plugin extends PluginManifest {
  name: string;
  /**
   * former names, still accepted in plugins.disabled (with a warning naming the new one) for one
   * release after a rename
   */
  aliases?: readonly string[];
  register(app: App): void | Promise<void>;
}

/**
 * A plugin named before it is loaded: the kernel imports it (`load()`) only when it is enabled, so
 * a disabled plugin's modules (and the libraries they pull in) never reach the process. `name` and
 * `aliases` must be the loaded plugin's own; the kernel refuses a mismatch.
 */
export interface PluginRef {
  name: string;
  aliases?: readonly string[];
  /** the plugin's settings declaration, known without loading it: a disabled plugin's settings are still checked */
  settings?: Settings<unknown>;
  load(): Promise<Plugin>;
}

/** what a plugin list holds: plugins, and references to plugins loaded when enabled */
export type PluginEntry = Plugin | PluginRef;
