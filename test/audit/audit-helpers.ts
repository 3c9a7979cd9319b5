import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_SECRETS } from '../helpers/server.js';

export const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));

/** Runs `proofgate <args>` in a clean environment holding only the test secrets. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key,
        SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret,
        SVC_AUDIT_SECRET_KEY: TEST_SECRETS.audit_secret_key,
        SVC_LOG_LEVEL: 'SILENT',
        ...env,
      },
      cwd: fileURLToPath(new URL('.', import.meta.url)),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
