import type { App } from '../../core/types.js';
import { repeatedKeyError } from '../../core/http/body.js';
import { HttpError } from '../../core/errors.js';
import { publishedJwks } from '../../core/keys/jwks.js';
import { bindExact } from '../../core/json/exact.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../../core/version.js';
import { A2AProblems, SIGNING_KEY_UNAVAILABLE } from './errors.js';
import type { A2AGateway } from './gateway.js';
import type { AgentMessage } from './message.js';
import type { A2AMetrics } from './metrics.js';
import type { VerdictSigner } from './signer.js';
import { a2aSettings } from './settings.js';

const S = 'https://proofgate.dev/schemas/a2a';
/** routes that cannot answer without the signing key; the 503 gate in index.ts selects on this tag */
export const SIGNING_TAG = 'a2a-signing';

export interface RouteDeps {
  gateway: A2AGateway | null;
  signer: VerdictSigner | null;
  metrics: A2AMetrics;
}

function unavailable(): HttpError {
  return new HttpError(A2AProblems.signingKeyUnavailable, SIGNING_KEY_UNAVAILABLE);
}

export function registerRoutes(app: App, d: RouteDeps): void {
  // verify:read: intercepting is a verification (the message is checked, not changed), and it is the
  // scope every standard key carries, so a sidecar needs no extra grant (docs/a2a.md)
  app.route({
    method: 'POST',
    path: '/a2a/intercept',
    auth: 'apiKey',
    // decisions §5: an agent token speaks for its own agent id only (checked by the sender step)
    authAlso: ['agentToken'],
    scope: 'verify:read',
    tags: ['a2a', SIGNING_TAG],
    bodyLimit: app.settings(a2aSettings).max_payload_size_bytes,
    schema: { body: `${S}/agent-message.json`, response: `${S}/verdict.response.json` },
    async handler(ctx) {
      if (!d.gateway) throw unavailable();
      // the verdict covers the payload as read here; a second reading of a repeated member would not be it
      const repeated = repeatedKeyError(ctx.rawBody);
      if (repeated) throw repeated;
      const msg = ctx.body as AgentMessage;
      // guards that compare claimed numbers (finance) re-read them exactly from the body's text
      bindExact(msg.payload, ctx.rawBody, ['payload']);
      // the signal and the logger as getters: each is built on first use (a guard handing work to a
      // worker, an enabled intercept line or a failure), and most intercepts need neither
      return { body: await d.gateway.intercept(msg, { principal: ctx.principal, raw: ctx.rawBody }, () => ctx.signal, () => ctx.log) };
    },
  });

  app.route({
    method: 'GET',
    path: '/.well-known/jwks.json',
    auth: 'none',
    tags: ['a2a', SIGNING_TAG],
    schema: { response: `${S}/jwks.response.json` },
    handler() {
      if (!d.signer) throw unavailable();
      // only current keys: a rotated key stops verifying (spec, authentication rule 5). Beside the
      // verdict key, what other plugins publish (the attestation key), so one URL verifies both
      // offline. A published key that claims the verdict key's kid is left out: a verifier picks a
      // key by kid, and two keys under one kid would let either sign for the other.
      const signer = d.signer;
      const others = publishedJwks(app).filter((k) => k.kid !== signer.kid);
      return { headers: { 'cache-control': 'public, max-age=60' }, body: { keys: [signer.jwk, ...others] } };
    },
  });

  app.route({
    method: 'GET',
    path: '/a2a/health',
    auth: 'none',
    tags: ['a2a'],
    schema: { response: `${S}/health.response.json` },
    handler: () => ({ body: { status: d.signer ? 'ok' : 'degraded', service: `${SERVICE_NAME}-a2a`, version: SERVICE_VERSION } }),
  });

  app.route({
    method: 'GET',
    path: '/a2a/metrics',
    auth: 'apiKey',
    scope: 'verify:read',
    tags: ['a2a'],
    schema: { response: `${S}/metrics.response.json` },
    handler: (ctx) => ({ body: d.metrics.snapshot(ctx.principal?.orgId ?? '') }),
  });
}
