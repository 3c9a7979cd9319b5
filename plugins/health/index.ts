import type { App, Plugin } from '../../core/types.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../../core/version.js';

/**
 * Liveness, readiness and identity. /healthz answers as soon as the socket is open (Kubernetes
 * liveness); /readyz only once the store, pools and engines are ready. /health/identity gathers
 * what other plugins publish as `identity.*` services, so it names keys without knowing the plugins.
 */
export interface IdentityPart {
  /** merged into the identity document under this plugin's key */
  key: string;
  describe(): Record<string, unknown> | null;
}

const S = 'https://proofgate.dev/schemas/health';

function register(app: App): void {
  const parts: IdentityPart[] = [];
  app.route({
    method: 'GET',
    path: '/health',
    auth: 'none',
    schema: { response: `${S}/health.response.json` },
    handler: () => ({ body: { status: 'ok', service: SERVICE_NAME, version: SERVICE_VERSION, timestamp: new Date().toISOString() } }),
  });
  app.route({
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    schema: { response: `${S}/probe.response.json` },
    handler: () => ({ body: { status: 'ok' } }),
  });
  app.route({
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    schema: { response: `${S}/probe.response.json` },
    handler: () => {
      const ready = app.isReady();
      // 'starting' on a replica that started and then lost its store or Redis sends an operator
      // looking at start-up instead of at the dependency
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : app.startedUp() ? 'unavailable' : 'starting' } };
    },
  });
  app.route({
    method: 'GET',
    path: '/health/identity',
    auth: 'none',
    schema: { response: `${S}/identity.response.json` },
    handler: () => {
      const base = app.config.server.public_url ?? null;
      const doc: Record<string, unknown> = {
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        engines: app.engines(),
        jwks_url: base ? `${base.replace(/\/$/, '')}/.well-known/jwks.json` : '/.well-known/jwks.json',
      };
      for (const p of parts) doc[p.key] = p.describe();
      return { body: doc };
    },
  });
  app.provide('identity.parts', parts);
}

declare module '../../core/types.js' {
  interface Services {
    /** what /health/identity shows besides the service itself; plugins add to it with addIdentity */
    'identity.parts': IdentityPart[];
  }
}

const plugin: Plugin = { name: 'health', provides: ['identity.parts'], register };
export default plugin;

/**
 * How a plugin adds itself to /health/identity: `addIdentity(app, {key, describe})`. The caller
 * declares `identity.parts` optional, so this plugin registers first; disabled, nothing shows it.
 */
export function addIdentity(app: App, part: IdentityPart): void {
  app.service('identity.parts')?.push(part);
}
