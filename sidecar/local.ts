import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kernel } from '../core/app.js';
import { type Config, type ConfigOverrides } from '../core/config.js';
import { loadServiceConfig } from './config.js';
import type { PluginEntry } from '../core/types.js';

/**
 * A throwaway in-process kernel for the CLI commands that need the server's own code but no
 * server of the user's: `proofgate openapi` (the route table) and `proofgate verify --local` (the
 * engines). It has fresh secrets and keys, a temporary data directory removed on close, and listens
 * only when asked to, on a loopback port the OS picks.
 */
export interface LocalKernel {
  kernel: Kernel;
  /** resolves when the engines are warm (a request before that may meet a cold worker's deadline) */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const pem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const secret = () => randomBytes(32).toString('base64url');

export async function localKernel(plugins: PluginEntry[], overrides: ConfigOverrides = {}, o: { warmEngines?: boolean } = {}): Promise<LocalKernel> {
  const dataDir = mkdtempSync(join(tmpdir(), 'proofgate-local-'));
  try {
    const config = loadServiceConfig({
      env: {},
      file: null,
      overrides: {
        log_level: 'SILENT',
        data_dir: dataDir,
        server: { host: '127.0.0.1', port: 0 },
        secrets: { jwt_secret_key: secret(), api_key_lookup_secret: secret(), audit_secret_key: secret() },
        a2a: { deployment_id: 'local-cli', signing_key_pem: pem() },
        ...overrides,
      } as ConfigOverrides,
    });
    const { createApp } = await import('../core/app.js');
    const kernel = await createApp({ config, plugins, warmEngines: o.warmEngines });
    return {
      kernel,
      async ready(timeoutMs = 120_000) {
        const deadline = Date.now() + timeoutMs;
        while (!kernel.isReady()) {
          if (Date.now() > deadline) throw new Error(`the engines were not ready after ${timeoutMs} ms`);
          await new Promise((r) => setTimeout(r, 20));
        }
      },
      async close() {
        await kernel.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
