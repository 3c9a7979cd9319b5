import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killProcess } from './redis.js';
import { waitFor } from './wait.js';
import { nodeCommand } from './child.js';

/**
 * A sidecar as a separate process (`node dist/sidecar/cli.js start`), configured only through the
 * environment, on a free port: one replica of shared mode. Engines the shared-mode tests do not
 * use are disabled to keep the machine's two cores for the test itself.
 */
export const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP')));

export interface Replica {
  url: string;
  child: ChildProcess;
  stderr(): string;
  request(method: string, path: string, o?: { body?: unknown; headers?: Record<string, string>; apiKey?: string }): Promise<{ status: number; body: any; text: string; headers: Record<string, string> }>;
  stop(): Promise<void>;
}

/**
 * `port` given: resolves once the socket answers /healthz (liveness comes before the kernel has
 * loaded, e.g. while the store is still unreachable); otherwise once the replica says it serves.
 */
export async function startReplica(env: Record<string, string>, port?: number): Promise<Replica> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-replica-'));
  writeFileSync(join(dir, 'config.json'), '{}');
  const child = spawn(...nodeCommand([CLI, 'start'], env.NODE_OPTIONS), {
    cwd: dir,
    env: {
      ...baseEnv,
      SVC_CONFIG: join(dir, 'config.json'),
      SVC_HOST: '127.0.0.1',
      SVC_PORT: String(port ?? 0),
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_LOG_LEVEL: 'ERROR',
      SVC_WORKER_THREADS: '1',
      SVC_PLUGINS_DISABLED: 'logic,code,sql,image,consensus,rag,process,stats,fact,natural-language',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`replica exited ${code}: ${stderr}`))));
  exited.catch(() => undefined);
  const serving = new Promise<string>((resolve) => {
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /serving on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
  });
  // the replica's config and data live in `dir`: it goes once the process has exited
  const stop = async () => {
    await killProcess(child, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  let url: string;
  try {
    if (port === undefined) url = await Promise.race([serving, exited]);
    else {
      url = `http://127.0.0.1:${port}`;
      const live = waitFor(async () => (await fetch(url + '/healthz').catch(() => null))?.status === 200, { what: 'the replica to be live', timeoutMs: 60_000, everyMs: 50 });
      await Promise.race([live, exited]);
    }
  } catch (err) {
    // a replica that never served is no test's to stop
    await stop();
    throw err;
  }
  const request: Replica['request'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.apiKey) headers['x-api-key'] = o.apiKey;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(url + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await r.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return { status: r.status, body, text, headers: Object.fromEntries(r.headers) };
  };
  return { url, child, stderr: () => stderr, request, stop };
}

/**
 * What every replica of one shared-mode deployment is given alike: the three secrets (also what a CLI
 * run against the same store needs) and, as the deployment's identity, the persistent attestation key
 * and the A2A signing key (so a JWKS or a verdict reads the same whichever replica answers).
 */
export function sharedModeEnv(deployment: string): { secrets: Record<string, string>; env: Record<string, string> } {
  const secrets = {
    SVC_JWT_SECRET_KEY: `${deployment}-jwt-secret-0123456789abcdef`,
    SVC_API_KEY_LOOKUP_SECRET: `${deployment}-lookup-secret-0123456789abcdef`,
    SVC_AUDIT_SECRET_KEY: `${deployment}-audit-secret-0123456789abcdef`,
  };
  const pem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    secrets,
    env: {
      ...secrets,
      SVC_ATTESTATION_KEY_CONTINUITY_POLICY: 'persistent',
      SVC_ATTESTATION_SIGNING_KEY_PEM: pem(),
      SVC_A2A_DEPLOYMENT_ID: `${deployment}-test`,
      SVC_A2A_SIGNING_KEY_PEM: pem(),
    },
  };
}
