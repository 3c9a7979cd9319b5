import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createApp, type Kernel } from '../../../core/app.js';
import { type Config, type ConfigOverrides } from '../../../core/config.js';
import { loadServiceConfig } from '../../../sidecar/config.js';
import { HttpError, Problems } from '../../../core/errors.js';
import type { Collection, Entry } from '../../../core/store/store.js';
import type { Plugin, Principal, Role, Scope } from '../../../core/types.js';
import { unverifiable, verified } from '../../../core/verdict.js';
import health from '../../../plugins/health/index.js';
import attestation from '../../../plugins/attestation/index.js';
import { sendRequest, TEST_SECRETS } from '../server.js';

/** Log lines captured from the server (pino JSON), so tests can check operator events. */
export class LogSink {
  readonly lines: Array<Record<string, unknown>> = [];
  stream = new Writable({
    write: (chunk, _enc, cb) => {
      for (const l of String(chunk).split('\n')) if (l.trim()) this.lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  events(name: string) {
    return this.lines.filter((l) => l.event === name);
  }
}

export const KEYS: Record<string, { orgId: string; role: Role; scopes: Scope[] }> = {
  'a-owner': { orgId: 'org-a', role: 'owner', scopes: ['verify:read', 'attestation:read'] },
  'a-member': { orgId: 'org-a', role: 'member', scopes: ['verify:read', 'attestation:read'] },
  'a-operator': { orgId: 'org-a', role: 'admin', scopes: ['verify:read', 'attestation:read', 'admin:all'] },
  'a-verify-only': { orgId: 'org-a', role: 'owner', scopes: ['verify:read'] },
  'b-owner': { orgId: 'org-b', role: 'owner', scopes: ['verify:read', 'attestation:read'] },
  'b-operator': { orgId: 'org-b', role: 'member', scopes: ['admin:all'] },
};

/** Several callers in two organisations, through the public authenticator API. */
export const multiAuth: Plugin = {
  name: 'test-multi-auth',
  register(app) {
    app.authenticator('apiKey', async (ctx) => {
      const k = ctx.headers['x-api-key'];
      const def = typeof k === 'string' ? KEYS[k] : undefined;
      if (!def) throw new HttpError(Problems.unauthorized, 'invalid API key');
      const p: Principal = { kind: 'apiKey', orgId: def.orgId, role: def.role, scopes: def.scopes, keyId: k as string, userId: `u-${k}` };
      return p;
    });
  },
};

/** Routes declared to attest (`verification: { attest: true }`) returning real diagnostics, to exercise the seal phase. */
export const attestableRoutes: Plugin = {
  name: 'test-attestable',
  register(app) {
    app.schema({
      $id: 'https://proofgate.dev/schemas/test/attestable.response.json',
      type: 'object',
      required: ['status', 'proof_ref'],
      properties: {
        status: { enum: ['VERIFIED', 'UNVERIFIABLE', 'BLOCKED'] },
        attestation: { type: 'string' },
        attestation_id: { type: 'string' },
        attestation_error: { enum: ['VERIFIED_WITHOUT_PROOF', 'SIGNING_FAILURE', 'CRYPTO_UNAVAILABLE'] },
      },
    });
    const handler = (tagged: boolean) => ({
      method: 'POST' as const,
      path: tagged ? '/test/attestable' : '/test/plain',
      auth: 'apiKey' as const,
      scope: 'verify:read' as const,
      verification: { attest: tagged },
      schema: { response: 'https://proofgate.dev/schemas/test/attestable.response.json' },
      handler(ctx: { body: unknown }) {
        const b = ctx.body as { expression?: string; query?: string; mode?: string; state_query?: unknown };
        const input = b.expression ?? b.query ?? '';
        // the subject binds what was evaluated: a translated form (state_query) rather than the prose
        let query: unknown = 'state_query' in b ? b.state_query : input;
        // a query with no canonical JSON form; the kernel no longer lets 1e999 reach a handler as Infinity
        if ((b as { non_finite_query?: boolean }).non_finite_query) query = { n: Infinity };
        const subject = { engine: 'attestable', query };
        if (b.mode === 'unverifiable') return { verdict: unverifiable('only computed', { is_valid: false, value: 4 }), subject };
        // a claim proven false (decisions §1): VERIFIED, is_valid false
        if (b.mode === 'false') return { verdict: verified('Identity is false', { is_valid: false, result: false }, { engine: 'test-math', engine_version: '1', input, result: false }), subject };
        const d = verified('Identity is true', { is_valid: true, result: true }, { engine: 'test-math', engine_version: '1', input, result: true });
        return { verdict: d, subject };
      },
    });
    app.route(handler(true));
    app.route(handler(false));
  },
};

export interface Harness {
  url: string;
  kernel: Kernel;
  logs: LogSink;
  request(method: string, path: string, o?: { body?: unknown; raw?: string; key?: string | null }): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  close(): Promise<void>;
}

export async function startHarness(opts: { config?: ConfigOverrides; plugins?: Plugin[]; dataDir?: string } = {}): Promise<Harness> {
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'proofgate-att-'));
  const config = loadServiceConfig({
    env: {},
    file: null,
    overrides: { ...opts.config, log_level: 'DEBUG', data_dir: dataDir, server: { port: 0, host: '127.0.0.1' }, secrets: TEST_SECRETS } as ConfigOverrides,
  });
  const logs = new LogSink();
  const logger = pino({ level: 'debug' }, logs.stream);
  let kernel: Kernel | undefined;
  let url: string;
  try {
    kernel = await createApp({ config, logger, plugins: [multiAuth, health, attestation, attestableRoutes, ...(opts.plugins ?? [])], validateResponses: true });
    ({ url } = await kernel.listen());
  } catch (err) {
    // a kernel that could not listen still holds its store and threads
    await kernel?.close().catch(() => undefined);
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const k = kernel;
  return {
    url,
    kernel: k,
    logs,
    request(method, path, o = {}) {
      const headers: Record<string, string> = {};
      if (o.key !== null) headers['x-api-key'] = o.key ?? 'a-owner';
      // the attestation tests send a JSON content type with raw bodies too
      if (o.raw !== undefined) headers['content-type'] = 'application/json';
      return sendRequest(url, method, path, { body: o.body, raw: o.raw, headers });
    },
    async close() {
      await k.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A Collection in memory, for unit tests of the issuer and verifier without a server. */
export function memoryCollection<T>(opts: { failWrites?: boolean } = {}): Collection<T> & { map: Map<string, T> } {
  const map = new Map<string, T>();
  const fail = () => {
    if (opts.failWrites) throw new Error('store down');
  };
  return {
    map,
    async get(k) {
      return map.get(k);
    },
    async put(k, v) {
      fail();
      map.set(k, v);
    },
    async insert(k, v) {
      fail();
      if (map.has(k)) return false;
      map.set(k, v);
      return true;
    },
    async update(k, fn) {
      fail();
      const next = fn(map.get(k));
      if (next !== undefined) map.set(k, next);
      return map.get(k);
    },
    async delete(k) {
      return map.delete(k);
    },
    async list() {
      return [...map.entries()].map(([key, value]) => ({ key, value }) as Entry<T>);
    },
    async count() {
      return map.size;
    },
  };
}

export const silentLog = pino({ level: 'silent' });
