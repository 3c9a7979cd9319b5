import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { answerClientError, createHttpServer, listenOptions, serverOptions } from './http/server.js';
import { createLogger } from './obs/log.js';
import { publicUrl } from './http/public-url.js';
import { Metrics } from './obs/metrics.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { Validator } from './json/validate.js';
import { GENERATED_DIR } from './json/generated.js';
import { Router } from './http/router.js';
import { setHeapGrowingPercent, sharedPoolThreads, WorkerPools } from './workers/pools.js';
import { createPipeline, type PhaseFns } from './http/pipeline.js';
import { pluginCollections, resolvePlugins } from './plugin/load.js';
import { checkPluginSettings } from './plugin/settings-check.js';
import { valueAt } from './plugin/settings.js';
import { declares, orderPlugins } from './plugin/order.js';
import { JWKS_SERVICE } from './keys/jwks.js';
import { kit } from './plugin/kit.js';
import { startSweeps } from './store/prune.js';
import { buildOpenApi } from './http/openapi.js';
import { SERVICE_VERSION } from './version.js';
import { startTracing, traced, workerSpan } from './obs/tracing.js';
import type { App, Authenticator, EngineDef, EngineHandle, Plugin, PluginEntry, PluginManifest, RequestContext, RouteDef } from './types.js';

export const SCHEMAS_DIR = new URL('../../schemas/', import.meta.url);

export interface CreateOptions {
  config: Config;
  /**
   * built-in plugins (the sidecar passes its list; the kernel knows none by name); a reference is
   * imported only when the plugin is enabled
   */
  plugins: PluginEntry[];
  logger?: Logger;
  store?: Store;
  /** check every 2xx body against its route's response schema (tests turn this on) */
  validateResponses?: boolean;
  /**
   * An HTTP server that is already listening (the sidecar opens its socket before loading plugins,
   * so liveness answers at once); the kernel takes over its requests instead of creating one.
   */
  server?: Server;
  /**
   * false: engines are declared without their warm-ups and load on their first task. For a kernel
   * that only reads its route table (`proofgate openapi`, the client generator): warming eleven
   * engines in worker threads costs seconds of CPU that such a caller never uses.
   */
  warmEngines?: boolean;
  /**
   * a plugin's look-up of a service its manifest does not declare throws (tests turn this on);
   * otherwise it is logged once and answered, so that a missed declaration never fails a request
   */
  strictServices?: boolean;
}

export interface Kernel {
  readonly app: App;
  readonly server: Server;
  readonly routes: readonly RouteDef[];
  /** the OpenAPI 3.1 document of every registered route (built once, on first use) */
  openapi(): Record<string, unknown>;
  listen(): Promise<{ host: string; port: number; url: string }>;
  isReady(): boolean;
  /** stop accepting, let in-flight requests finish (up to the grace period), then close plugins, pools and store */
  close(): Promise<void>;
}

export async function createApp(opts: CreateOptions): Promise<Kernel> {
  const config = opts.config;
  const log = opts.logger ?? createLogger(config.log_level);
  // imports the SDK only when an OTLP endpoint is configured (core/obs/tracing.ts)
  const stopTracing = await startTracing(config, log);
  const metrics = new Metrics();
  const validator = new Validator(GENERATED_DIR);
  validator.loadDir(SCHEMAS_DIR);
  const router = new Router();
  // LMDB's close is bounded by the grace period (at least 5 s, a close takes milliseconds): on a
  // full disk it otherwise never finished (store-lmdb.ts)
  const store =
    opts.store ??
    (await openStore(config, (err) => log.warn({ err: err.message }, 'store unavailable'), (m) => log.warn({ event: 'data_dir.permissions' }, m), {
      log: log.child({ component: 'store' }),
      closeTimeoutMs: Math.max(config.server.shutdown_grace_ms, 5000),
    }));
  setHeapGrowingPercent(config.workers.heap_growing_percent);
  const poolArgs = [config.workers.threads ?? sharedPoolThreads(), log, config.workers.young_generation_mb, config.workers.idle_timeout_ms, config.workers.old_generation_mb] as const;
  // BENCH_POOL=piscina: the bench's piscina variant (docs/architecture.md, "Why our own worker pool"); piscina is a devDependency
  const pools: Pick<WorkerPools, keyof WorkerPools> =
    process.env.BENCH_POOL === 'piscina' ? new (await import('./workers/piscina-pools.js')).PiscinaPools(...poolArgs) : new WorkerPools(...poolArgs, config.workers.max_queue_wait_ms);
  // how far each pool has grown under load: each thread of the shared pool holds a heap and the modules of every engine it ran
  metrics.sampledGauge('svc_engine_pool_threads', 'Threads of each engine worker pool, starting ones included (the shared pool is "engines")', ['pool'], () => pools.sizes());
  const authenticators = new Map<string, Authenticator>();
  const credentialPresent = new Map<string, (ctx: RequestContext) => boolean>();
  const phases: PhaseFns = { gate: [], seal: [], record: [], reply: [] };
  const readiness = new Map<string, () => boolean>();
  const closers: Array<() => Promise<void> | void> = [];
  // the kernel's own services, there for every plugin without a provider or a declaration
  const services = new Map<string, unknown>([[JWKS_SERVICE, []]]);
  const kernelKeys = new Set(services.keys());
  const undeclaredSeen = new Set<string>();
  const engines: Array<{ def: EngineDef; handle: EngineHandle }> = [];
  const warmups: Array<Promise<unknown>> = [];
  /** the last warm-up queued on each pool: a pool's warm-ups run one after another (see engine()) */
  const lastWarmup = new Map<string, Promise<unknown>>();
  const shutdown = new AbortController();
  const draining = new AbortController();
  let closing = false;

  // set once the HTTP server exists (plugins register before it is created)
  let listening: Server | null = null;
  /** `manifest` null: the kernel's own app (tests reach every service through it) */
  const makeApp = (pluginName: string, manifest: PluginManifest | null): App => ({
    config,
    settings(s) {
      if (manifest && manifest.settings !== s) throw new Error(`plugin ${pluginName} reads the settings ${s?.at} without declaring them in its manifest (settings)`);
      return valueAt(config, s.at) as never;
    },
    log: log.child({ plugin: pluginName }),
    store,
    metrics,
    kit,
    warmEngines: opts.warmEngines !== false,
    publicUrl: () => publicUrl(config, listening),
    route(def) {
      // a copy the plugin cannot change afterwards: which phases a route goes through is fixed at start-up
      const v = def.verification;
      router.add({ ...def, plugin: pluginName, ...(v && typeof v === 'object' ? { verification: Object.freeze({ attest: v.attest }) } : {}) });
    },
    engine(def) {
      if (engines.some((e) => e.def.name === def.name)) throw new Error(`engine ${def.name} registered twice`);
      // an operator may resize a dedicated pool (workers.pools); the shared one is workers.threads
      const poolThreads = def.pool ? (config.workers.pools?.[def.pool.name] ?? def.pool.threads) : undefined;
      const handle: EngineHandle = {
        name: def.name,
        version: def.version,
        run<O>(fn: string, input: unknown, o: { timeoutMs?: number; signal?: AbortSignal; warmup?: boolean; queueBudget?: boolean } = {}) {
          const module = def.module;
          if (!module) return Promise.reject(new Error(`engine ${def.name} declares no worker module`));
          const started = process.hrtime.bigint();
          const observe = (outcome: string) => metrics.engineDuration.observe({ engine: def.name, fn, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
          const attributes = { 'proofgate.engine': def.name, 'proofgate.engine.fn': fn };
          const task = traced('engine ' + def.name, attributes, () => pools.run<O>({
            pool: def.pool?.name ?? 'engines',
            threads: poolThreads,
            module,
            fn,
            input,
            timeoutMs: o.timeoutMs ?? def.timeoutMs ?? config.workers.task_timeout_ms,
            signal: o.signal,
            warmup: o.warmup,
            queueBudget: o.queueBudget,
            onRan: workerSpan(`engine ${def.name} run`, attributes),
          }));
          task.then(() => observe('ok'), () => observe('error'));
          return task;
        },
      };
      if (def.module) pools.prepare(def.pool?.name ?? 'engines', poolThreads);
      engines.push({ def, handle });
      // warm up as soon as the engine is declared, overlapping the rest of start-up; /readyz waits.
      // Warm-ups sharing a pool run one after another: started together, they make the pool start a
      // thread per warm-up, each holding one engine warm (a worker isolate and its heap, ~10 MB
      // idle each), and the idle timeout then retires one of them, engine and all.
      if (def.warmup && opts.warmEngines !== false) {
        const poolName = def.pool?.name ?? 'engines';
        if (def.module) pools.warmEveryThread(poolName, def.module, def.warmup);
        const run = () => handle.run(def.warmup!, null, { timeoutMs: 60_000, warmup: true });
        const prev = lastWarmup.get(poolName);
        const w = prev ? prev.then(run, run) : run();
        lastWarmup.set(poolName, w);
        w.catch(() => undefined); // judged in listen(); never an unhandled rejection if start-up fails first
        warmups.push(w);
      }
      return handle;
    },
    engines: () => engines.map((e) => ({ name: e.def.name, version: e.def.version })),
    authenticator(kind, fn, present) {
      if (authenticators.has(kind)) throw new Error(`${kind} authenticator registered twice`);
      authenticators.set(kind, fn);
      if (present) credentialPresent.set(kind, present);
    },
    phase(name, fn) {
      // a JS plugin may name the kernel's own phases (authenticate, handler) or none at all
      if (!Object.hasOwn(phases, name)) throw new Error(`plugin ${pluginName}: no plugin attaches to the phase ${String(name)} (gate, seal, record or reply)`);
      if (typeof fn !== 'function') throw new Error(`plugin ${pluginName}: the ${name} phase takes a function`);
      (phases[name] as unknown[]).push(fn);
    },
    schema: (s) => validator.add(s, `plugin ${pluginName}`),
    validate: (id, value, part = 'body') => validator.check(id, value, part),
    readiness: (name, check) => readiness.set(`${pluginName}.${name}`, check),
    isReady: () => isReady(),
    startedUp: () => warm,
    onClose: (fn) => closers.push(fn),
    every(intervalMs, fn, o = {}) {
      const pluginLog = log.child({ plugin: pluginName });
      startSweeps({
        everyMs: intervalMs,
        sweep: fn,
        atStart: o.atStart ?? false,
        onError: o.onError ?? ((err) => pluginLog.error({ err }, 'sweep failed; the next one tries again')),
        onClose: (stop) => closers.push(stop),
      });
    },
    draining: draining.signal,
    provide(name, service) {
      if (manifest && !manifest.provides?.includes(name)) throw new Error(`plugin ${pluginName} provides the service ${name} without declaring it in its manifest (provides)`);
      if (services.has(name)) throw new Error(`service ${name} provided twice`);
      services.set(name, service);
    },
    service(name) {
      if (manifest && !kernelKeys.has(name) && !declares(manifest, name)) {
        const msg = `plugin ${pluginName} looks up the service ${name} without declaring it in its manifest (needs, optional or late)`;
        if (opts.strictServices) throw new Error(msg);
        // bounded: a computed key (`verifier.${type}` from a request) must not grow it without end
        if (!undeclaredSeen.has(msg) && undeclaredSeen.size < 256) {
          undeclaredSeen.add(msg);
          log.warn(msg);
        }
      }
      return services.get(name) as never;
    },
  });

  let openapiDoc: Record<string, unknown> | null = null;
  const openapi = () =>
    (openapiDoc ??= buildOpenApi(router.routes(), { ids: () => validator.schemaIds(), get: (id) => validator.get(id) }, SERVICE_VERSION));

  let plugins: Plugin[];
  try {
    // Plugins use the store as they register (the attestation key's first-seen time, a bootstrap
    // file). A PostgreSQL that does not answer yet is waited for however long it takes, as the
    // early listener keeps /healthz 200 and /readyz 503 meanwhile: with the 30 s bound of a request,
    // a replica whose database was down for longer exited and went into a restart loop
    await store.whenOpen?.(Infinity);
    plugins = orderPlugins(await resolvePlugins(opts.plugins, config.plugins.disabled, config.plugins.extra, (msg) => log.warn(msg)), kernelKeys);
    // before any plugin touches the store: its values are read and written in their declared layouts
    store.useCodecs(pluginCollections(plugins));
    // every plugin's settings valid and declared before any plugin registers
    checkPluginSettings(config, opts.plugins, plugins, validator);
    for (const p of plugins) await p.register(makeApp(p.name, p));
    // the kernel's own route: the API description, public like the spec's health routes
    router.add({
      method: 'GET',
      path: '/openapi.json',
      auth: 'none',
      plugin: 'kernel',
      schema: { response: 'https://proofgate.dev/schemas/core/openapi.json' },
      handler: () => ({ status: 200, body: openapi() }),
    });
    // every route must have declared how it authenticates (the type requires it; this catches JS plugins)
    for (const r of router.routes()) {
      if (!['none', 'apiKey', 'jwt', 'agentToken'].includes(r.auth)) throw new Error(`route ${r.method} ${r.path} has no valid auth kind`);
      if (r.auth === 'apiKey' && !r.scope) throw new Error(`route ${r.method} ${r.path} authenticates by API key but declares no scope`);
      if (r.authAlso?.length && (r.auth === 'none' || !r.scope || r.authAlso.some((k) => !['apiKey', 'jwt', 'agentToken'].includes(k)))) {
        throw new Error(`route ${r.method} ${r.path}: authAlso needs an authenticated auth kind, a scope and valid kinds`);
      }
      for (const id of Object.values(r.schema ?? {})) if (!validator.has(id)) throw new Error(`route ${r.method} ${r.path} names unknown schema ${id}`);
      // a verification is recorded against an organisation: a route anyone may call has none to charge
      if (r.verification !== undefined && (r.auth === 'none' || typeof r.verification !== 'object' || r.verification === null || typeof r.verification.attest !== 'boolean')) {
        throw new Error(`route ${r.method} ${r.path}: verification needs an authenticated auth kind and { attest: true | false }`);
      }
    }
  } catch (err) {
    // a plugin that cannot register stops start-up; the plugins already registered are closed as at
    // a shutdown (their warm-ups and reads end quietly), then the threads and the store are released
    closing = true;
    shutdown.abort();
    for (const fn of closers.reverse()) {
      try {
        await fn();
      } catch (e) {
        log.error({ err: e }, 'plugin close failed');
      }
    }
    await pools.close();
    await Promise.allSettled(warmups);
    await store.close();
    await stopTracing();
    throw err;
  }

  let warm = false;
  const isReady = () => !closing && warm && store.ready && pools.ready && [...readiness.values()].every((c) => c());
  const handle = createPipeline({
    router,
    validator,
    metrics,
    log,
    authenticators,
    credentialPresent,
    phases,
    defaultBodyLimit: config.server.body_limit_bytes,
    bodyDrainBytes: config.server.body_drain_bytes,
    maxJsonDepth: config.server.max_json_depth,
    validateResponses: opts.validateResponses ?? false,
    isClosing: () => closing,
    shutdownSignal: shutdown.signal,
  });
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res);
  };
  // Expect: 100-continue. Without this listener Node sends 100 Continue before the request event, so
  // a client uploads its whole body even when routing, authentication or the declared-size cap then
  // refuses it; the pipeline sends 100 itself, only once it is about to read the body.
  const onContinue = (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res, true);
  };
  let server: Server;
  if (opts.server) {
    server = opts.server;
    const timeouts = serverOptions(config);
    server.requestTimeout = timeouts.requestTimeout;
    server.headersTimeout = timeouts.headersTimeout;
    server.removeListener('clientError', answerClientError);
    server.on('clientError', answerClientError);
    // one synchronous swap: every request from here on reaches the pipeline, none is dropped
    server.removeAllListeners('request');
    server.on('request', onRequest);
    server.removeAllListeners('checkContinue');
  } else {
    server = createHttpServer(config, onRequest);
  }
  server.on('checkContinue', onContinue);
  listening = server;

  const kernel: Kernel = {
    app: makeApp('kernel', null),
    server,
    routes: router.routes(),
    openapi,
    async listen() {
      if (!server.listening) {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(listenOptions(config), () => {
            server.off('error', reject);
            resolve();
          });
        });
      }
      const addr = server.address() as AddressInfo;
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      log.info({ host: addr.address, port: addr.port, plugins: plugins.map((p) => p.name) }, 'proofgate listening');
      // liveness does not wait for the warm-ups started at declaration; readiness does
      Promise.allSettled(warmups).then((results) => {
        // a warm-up cut short by shutdown is expected, not an error worth an operator's attention
        if (!closing) for (const r of results) if (r.status === 'rejected') log.error({ err: r.reason }, 'engine warm-up failed');
        warm = results.every((r) => r.status === 'fulfilled');
      });
      return { host: addr.address, port: addr.port, url: `http://${host}:${addr.port}` };
    },
    isReady,
    async close() {
      if (closing) return;
      closing = true;
      draining.abort();
      server.close();
      server.closeIdleConnections();
      const deadline = Date.now() + config.server.shutdown_grace_ms;
      while (handle.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      shutdown.abort();
      server.closeAllConnections();
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (err) {
          log.error({ err }, 'plugin close failed');
        }
      }
      await pools.close();
      await store.close();
      await stopTracing();
      log.info('proofgate stopped');
    },
  };
  return kernel;
}
