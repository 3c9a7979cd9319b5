import type { App, Plugin } from '../../core/types.js';
import { HttpError } from '../../core/errors.js';
import { isLoopbackHost } from '../../core/http/loopback.js';
import { addIdentity } from '../health/index.js';
import { A2AProblems, SIGNING_KEY_UNAVAILABLE } from './errors.js';
import { DecisionLog, RecordingGateway } from './decisions.js';
import { registerReadRoutes } from './read-routes.js';
import { parsePeers } from './proxy/config.js';
import { createCodeGuard } from './guards/code.js';
import { createFinanceGuard } from './guards/finance.js';
import { logicGuard } from './guards/logic.js';
import { passthroughGuard } from './guards/passthrough.js';
import { GuardRegistry } from './guards/registry.js';
import type { GuardOutcome } from './guards/types.js';
import type { PayloadType } from './message.js';
import { A2AMetrics } from './metrics.js';
import { registerRoutes, SIGNING_TAG } from './routes.js';
import { registerProxy } from './proxy/index.js';
import type { StrictJson } from '../../core/json/strict.js';
import { issuerDid, loadSigningKey, type VerdictSigner } from './signer.js';
import { TrustBoundary } from './trust-boundary.js';
import { createPairBuckets } from './token-bucket-redis.js';
import { SenderAuthenticator } from './sender-auth.js';
import { AGENT_SERVICE, type Agents } from '../agents/index.js';
import { SERVICES as AUTH_SERVICES, type SenderOwners } from '../auth/index.js';
import type { HeuristicFinding } from './guards/code-heuristics.js';
import { assignedOrgs, parseBlockedPairs, parseBlocklist, parseTrustedAgents } from './trust-config.js';
import { a2aSettings, trustList } from './settings.js';


/**
 * The agent-to-agent gateway: every message between agents is posted to /a2a/intercept, passes the
 * trust boundary, is routed by payload type to a deterministic guard, and comes back as a verdict
 * signed with the deployment's ES256 key (docs/a2a.md). Fails closed: without a usable key the
 * intercept route and the JWKS answer 503, and a guard failure blocks unless block_on_error=false.
 */
export const A2A_GUARDS_SERVICE = 'a2a.guards';
export const A2A_ENGINE_VERSION = '1.1.0';
/** the deployment's ES256 verdict signer (or null without a usable key), for plugins that sign verdicts of their own (mcp) */
export const A2A_SIGNER_SERVICE = 'a2a.signer';

declare module '../../core/types.js' {
  interface Services {
    'a2a.guards': GuardRegistry;
    'a2a.signer': VerdictSigner | null;
  }
}

async function register(app: App): Promise<void> {
  const c = app.settings(a2aSettings);
  // the trust entries a bootstrap file adds (sidecar/provision) join the configured ones
  const fromFile = app.service('provision.bootstrap')?.a2a_trust ?? [];
  if (fromFile.length) c.trusted_agents = [...trustList(c.trusted_agents), ...fromFile];
  // spec, authentication rule 6: the deployment id names the issuer DID; no id, no gateway
  if (!c.deployment_id) throw new Error('a2a.deployment_id (SVC_A2A_DEPLOYMENT_ID) is required when the a2a plugin is enabled');
  const deploymentId = c.deployment_id;
  const allowlist = parseTrustedAgents(c.trusted_agents);
  const blocklist = parseBlocklist(c.blocklist);
  const blockedPairs = parseBlockedPairs(c.blocked_pairs);

  const key = loadSigningKey(c.signing_key_pem, deploymentId, c.jwt_lifetime_seconds);
  const signer = key.ok ? key.signer : null;
  if (!key.ok) app.log.error({ reason: key.reason }, 'a2a signing key unavailable: /a2a/intercept and /.well-known/jwks.json answer 503');
  app.provide(A2A_SIGNER_SERVICE, signer);

  const metrics = new A2AMetrics(app.metrics);
  // large invoices and long code texts; parsing code is the code plugin's (code.analyzer, its own pool)
  const worker = app.engine({ name: 'a2a', version: A2A_ENGINE_VERSION, module: new URL('./worker.js', import.meta.url) });
  const taskTimeoutMs = app.config.workers.task_timeout_ms;
  const guards = new GuardRegistry((type, previous, next) => app.log.warn({ payload_type: type, previous, guard: next }, 'a2a guard replaced by a plugin'));
  guards.registerBuiltin('financial_transaction', createFinanceGuard((payload) => worker.run<GuardOutcome>('checkFinance', payload)));
  guards.registerBuiltin('logic_assertion', logicGuard);
  guards.registerBuiltin(
    'code_execution',
    createCodeGuard({
      // resolved per message: the code plugin may be absent (then code_guard blocks every message)
      analyzer: () => {
        const analyzer = app.service('code.analyzer');
        return analyzer && { analyze: (code, language, { signal }) => analyzer.analyze(code, language, { timeoutMs: taskTimeoutMs, signal }) };
      },
      scanLarge: (code, signal) => worker.run<HeuristicFinding[]>('scanCodeText', { code }, { signal }),
    }),
  );
  guards.registerBuiltin('general', passthroughGuard);
  guards.registerBuiltin('data_query', passthroughGuard);
  app.provide(A2A_GUARDS_SERVICE, guards);

  const disabled = new Map<PayloadType, string>();
  if (!c.enable_financial_verification) disabled.set('financial_transaction', 'enable_financial_verification');
  if (!c.enable_logic_verification) disabled.set('logic_assertion', 'enable_logic_verification');
  if (!c.enable_code_verification) disabled.set('code_execution', 'enable_code_verification');

  // shared mode: the pair buckets live in Redis with the plan limits, so replicas share them
  const redisUrl = app.config.auth.rate_limit_redis_url;
  const limiter = redisUrl ? await createPairBuckets(redisUrl, c.max_requests_per_minute, app.log) : undefined;
  if (limiter) app.readiness('pair_buckets', () => limiter.ready());
  const boundary = new TrustBoundary({ blocklist, blockedPairs, allowlist, defaultAllow: c.default_allow, maxRequestsPerMinute: c.max_requests_per_minute, limiter });
  boundary.start();
  app.onClose(() => boundary.close());

  // a trust entry the operator assigned to an organisation (`org_id`) makes the id that organisation's to bind
  app.service(AUTH_SERVICES.senderOwners)?.addSource('a2a.trusted_agents', (id) => assignedOrgs(allowlist, id));
  const senders = new SenderAuthenticator({
    mode: c.sender_auth,
    allowlist,
    // resolved per use: without the auth plugin's ownership registry no binding is owned (fail closed)
    owns: async (orgId, senderId) => (await app.service(AUTH_SERVICES.senderOwners)?.owns(orgId, senderId)) ?? false,
    // resolved per request: the agents plugin may be absent (then only bound keys and trust-entry keys count)
    agentKey: async (orgId, agentId) => {
      const rec = await app.service(AGENT_SERVICE)?.get(orgId, agentId);
      // a deleted agent's key signs for nobody
      return rec && rec.revoked_at === null ? rec.public_jwk : undefined;
    },
  });
  if (c.sender_auth === 'off') {
    // claim-only mode lets any accepted credential get verdicts in any sender's name: it is for a
    // sidecar whose one client is its co-located agent, so a bind other clients can reach is refused
    const host = app.config.server.host;
    if (!isLoopbackHost(host)) {
      throw new Error(`a2a.sender_auth (SVC_A2A_SENDER_AUTH) is off, which is allowed only on a loopback bind, but server.host (SVC_HOST) is ${JSON.stringify(host)}: bind 127.0.0.1, ::1 or localhost, or turn sender_auth on`);
    }
    app.log.warn('a2a.sender_auth is off: sender ids are claimed, not authenticated; only safe when the co-located agent is the only client');
  }
  const decisions = new DecisionLog();
  const gateway = signer ? new RecordingGateway(decisions, { signer, boundary, senders, guards, metrics, blockOnError: c.block_on_error, disabled, infoEnabled: () => app.log.isLevelEnabled('info') }) : null;
  if (!signer) {
    // refuse before the body is read: no verdict can be issued, so there is nothing to parse for
    app.phase('gate', (ctx) => {
      if (ctx.route.tags?.includes(SIGNING_TAG)) throw new HttpError(A2AProblems.signingKeyUnavailable, SIGNING_KEY_UNAVAILABLE);
    });
  }
  app.readiness('signing_key', () => signer !== null);
  registerRoutes(app, { gateway, signer, metrics });
  registerReadRoutes(app, { decisions, peers: parsePeers(c.peers), allowlist, blocklist, blockedPairs: c.blocked_pairs });
  registerProxy(app, { gateway, signer, signingTag: SIGNING_TAG, parseLarge: (text, signal) => worker.run<StrictJson>('parseAnswer', { text }, { signal }) });
  addIdentity(app, {
    key: 'a2a',
    describe: () => ({ issuer: signer?.issuer ?? issuerDid(deploymentId), kid: signer?.kid ?? null, jwks_path: '/.well-known/jwks.json' }),
  });
}

const plugin: Plugin = {
  name: 'a2a',
  provides: [A2A_GUARDS_SERVICE, A2A_SIGNER_SERVICE],
  // provision.bootstrap: the trust entries a bootstrap file adds are read as this plugin registers
  optional: ['auth.sender_owners', 'agents.registry', 'identity.parts', 'provision.bootstrap'],
  // resolved per message, and only the code plugin's service (never its modules): the code engine
  // may be disabled in a sidecar that runs A2A
  late: ['code.analyzer'],
  settings: a2aSettings,
  register,
};
export default plugin;

export { verifyVerdict, EXPIRED, type VerifyOptions, type VerifyResult } from './verify.js';
export { a2aVerifyVerdictCommand } from './cli.js';
export { GuardRegistry } from './guards/registry.js';
export type { Guard, GuardContext, GuardOutcome, GuardStatus } from './guards/types.js';
export { PAYLOAD_TYPES, type AgentMessage, type PayloadType, type VerificationVerdict, type VerdictStatus } from './message.js';
export { RpcCodes as A2A_PROXY_RPC_CODES } from './proxy/jsonrpc.js';
export { VERDICT_HEADER } from './proxy/outbound.js';
export { cardSigningBytes } from './proxy/cards.js';
export { SENDER_NOT_AUTHENTICATED, signedBytes, type SenderAuthMethod } from './sender-auth.js';
export { JWT_TYP, keyFingerprint, issuerDid, type A2AClaims, type PublicJwk, type VerdictSigner } from './signer.js';
