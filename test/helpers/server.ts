import { mkdtempSync, rmSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type Kernel } from '../../core/app.js';
import { type Config, type ConfigOverrides } from '../../core/config.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import type { Plugin, PluginEntry, Principal, Scope } from '../../core/types.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { Store } from '../../core/store/store.js';
import { waitFor } from './wait.js';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { SERVICES as AUTH_SERVICES } from '../../plugins/auth/index.js';
import { SenderOwners } from '../../plugins/auth/sender-owners.js';

/** Secrets every test server gets unless a test overrides them (distinct, long enough). */
export const TEST_SECRETS = {
  jwt_secret_key: 'test-jwt-secret-0123456789abcdef',
  api_key_lookup_secret: 'test-lookup-secret-0123456789abcdef',
  audit_secret_key: 'test-audit-secret-0123456789abcdef',
  badge_url_secret: 'test-badge-url-secret-0123456789abcdef',
};

export const TEST_API_KEY = 'svc_test_harness_key';

/** A2A identity for test servers that load the built-ins without configuring a2a themselves. */
const TEST_A2A = {
  deployment_id: 'test-harness',
  signing_key_pem: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
};

/**
 * A stand-in API-key authenticator for plugin tests that do not load the real auth plugin. It goes
 * through the same public authenticator API, accepts exactly TEST_API_KEY and grants `scopes`.
 */
export function testAuthPlugin(scopes: Scope[] = ['verify:read', 'attestation:read'], orgId = 'org-test', a2aSenders?: string[]): Plugin {
  return {
    name: 'test-auth',
    ...(a2aSenders ? { provides: [AUTH_SERVICES.senderOwners] } : {}),
    register(app) {
      app.authenticator('apiKey', async (ctx) => {
        if (ctx.headers['x-api-key'] !== TEST_API_KEY) throw new HttpError(Problems.unauthorized, 'invalid API key');
        const p: Principal = { kind: 'apiKey', orgId, keyId: 'key-test', userId: 'user-test', role: 'owner', scopes, tier: 'enterprise', ...(a2aSenders ? { a2aSenders } : {}) };
        return p;
      }, (ctx) => ctx.headers['x-api-key'] !== undefined);
      // the real auth plugin checks that an organisation owns the sender ids its keys are bound to
      // (issue 38) and a2a refuses bindings nobody vouches for: this key's organisation owns its ids
      if (a2aSenders) {
        const owners = new SenderOwners();
        owners.addSource('test-auth', (id) => (a2aSenders.includes(id) ? [orgId] : []));
        app.provide(AUTH_SERVICES.senderOwners, owners);
      }
    },
  };
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One HTTP exchange with a test server: JSON bodies serialised, the answer parsed when it is JSON. */
export async function sendRequest(
  baseUrl: string,
  method: string,
  path: string,
  o: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  let body: string | Buffer | undefined;
  if (o.raw !== undefined) body = o.raw;
  else if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export interface TestServer {
  url: string;
  kernel: Kernel;
  dataDir: string;
  /** fetch relative to the server; JSON bodies are serialised; returns status, headers and parsed body */
  request(
    method: string,
    path: string,
    opts?: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string>; apiKey?: string | null },
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

export async function startServer(
  opts: {
    plugins?: PluginEntry[];
    config?: ConfigOverrides;
    env?: NodeJS.ProcessEnv;
    dataDir?: string;
    keepData?: boolean;
    store?: (dataDir: string) => Store;
    /** false: no engine warm-ups (core CreateOptions.warmEngines), for a test whose requests stop before any engine */
    warmEngines?: boolean;
    /** false: an undeclared service look-up is logged, as in production (default: it throws) */
    strictServices?: boolean;
  } = {},
): Promise<TestServer> {
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'proofgate-test-'));
  // a test that asserts a config or plugin is refused never gets a server to close: the directory
  // made for it goes here, or every refusal case leaves one behind in the temp dir
  const dropDir = () => {
    if (ownDir && !opts.keepData) rmSync(dataDir, { recursive: true, force: true });
  };
  let kernel: Kernel | undefined;
  let url: string;
  try {
    const config = loadServiceConfig({
      env: opts.env ?? {},
      file: null,
      overrides: {
        log_level: 'SILENT',
        data_dir: dataDir,
        ...opts.config,
        a2a: opts.config?.a2a ?? TEST_A2A,
        server: { port: 0, host: '127.0.0.1', ...(opts.config?.server ?? {}) },
        secrets: { ...TEST_SECRETS, ...(opts.config?.secrets ?? {}) },
      } as ConfigOverrides,
    });
    kernel = await createApp({ config, plugins: opts.plugins ?? [], validateResponses: true, strictServices: opts.strictServices ?? true, store: opts.store?.(dataDir), warmEngines: opts.warmEngines });
    ({ url } = await kernel.listen());
  } catch (err) {
    // the store and worker threads of a kernel that could not listen would outlive the test
    await kernel?.close().catch(() => undefined);
    dropDir();
    throw err;
  }
  const k = kernel;
  let closed = false;
  return {
    url,
    kernel: k,
    dataDir,
    request: (method, path, o = {}) => {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.apiKey !== null && o.apiKey !== undefined) headers['x-api-key'] = o.apiKey;
      return sendRequest(url, method, path, { body: o.body, raw: o.raw, headers });
    },
    async close() {
      if (closed) return;
      closed = true;
      await k.close();
      dropDir();
    },
  };
}

/** Resolves once the kernel reports ready (engines warm), polling the condition; rejects after `timeoutMs`. */
export async function untilReady(kernel: Pick<Kernel, 'isReady'>, timeoutMs = 120_000): Promise<void> {
  await waitFor(() => kernel.isReady(), { what: 'the kernel to be ready', timeoutMs });
}

/** Every engine plugin among the built-ins (the rest are the gateway: auth, audit, attestation, …). */
const ENGINES = ['math', 'natural-language', 'fact', 'logic', 'code', 'sql', 'process', 'rag', 'consensus', 'stats', 'image'];

/**
 * The built-in plugins with only the engines named: for a test that calls those routes and no
 * other engine's. Each engine left out is one warm-up (mathjs, z3, tree-sitter, sql.js …) that
 * the server would otherwise run in a worker while the test runs on the suite's two cores.
 */
export function builtinsWithEngines(...keep: string[]): PluginEntry[] {
  for (const k of keep) if (!ENGINES.includes(k)) throw new Error(`${k} is not a built-in engine`);
  return builtinPlugins.filter((p) => !ENGINES.includes(p.name) || keep.includes(p.name));
}

/** The gateway without any engine, for tests of auth, audit and ops that call no engine route. */
export const builtinsWithoutEngines: PluginEntry[] = builtinsWithEngines();
