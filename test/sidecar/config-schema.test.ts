import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchemaText, serviceEnvVars } from '../../sidecar/config.js';
import { builtinPlugins, builtinSettings } from '../../sidecar/builtin.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP')));
const SECRETS = { SVC_JWT_SECRET_KEY: 'j'.repeat(43), SVC_API_KEY_LOOKUP_SECRET: 'l'.repeat(43) };

t.test('config/schema.json is what the kernel and the built-in manifests produce', async (t) => {
  const checkedIn = readFileSync(new URL('../../../config/schema.json', import.meta.url), 'utf8');
  t.equal(checkedIn, configSchemaText(), 'regenerate with: npx tsc -p tsconfig.json && node dist/sidecar/config-schema-main.js');
});

t.test('each built-in declares its settings in its list entry, and the plugin itself agrees', async (t) => {
  for (const p of builtinPlugins) {
    if (!('load' in p)) continue;
    const loaded = await p.load();
    t.equal(loaded.settings, p.settings, `${p.name}: the entry's settings are the plugin's`);
  }
  t.ok(builtinSettings.length >= 12, 'the seven sections and the five plugin_config blocks');
  const names = serviceEnvVars().map((v) => v.name);
  t.equal(new Set(names).size, names.length, 'no SVC_* name is declared twice');
  for (const n of ['SVC_A2A_DEPLOYMENT_ID', 'SVC_ATTESTATION_KEY_CONTINUITY_POLICY', 'SVC_MCP_SERVERS', 'SVC_LLM_PROVIDER', 'SVC_BATCH_RETENTION_SECONDS', 'SVC_CONSOLE_ENABLED', 'SVC_AUDIT_RETENTION_DAYS', 'SVC_PORT']) {
    t.ok(names.includes(n), `${n} still maps onto its setting`);
  }
});

t.test('start exits 78 on a plugin setting outside its schema, naming it', async (t) => {
  const dir = tempDir(t, 'pg-cfg-');
  const run = (config: object, env: Record<string, string> = {}) => {
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ data_dir: join(dir, 'data'), server: { port: 0 }, ...config }));
    return spawnSync(...nodeCommand([CLI, 'start', '--config', file]), { cwd: dir, encoding: 'utf8', env: { ...cleanEnv, ...SECRETS, ...env }, timeout: 30_000 });
  };
  const section = run({ mcp: { timeout_msec: 5 } });
  t.equal(section.status, 78);
  t.match(section.stderr, /mcp: must NOT have additional properties 'timeout_msec'/);
  const block = run({ plugin_config: { stats: { max_colums: 5 } } });
  t.equal(block.status, 78);
  t.match(block.stderr, /plugin_config\.stats: must NOT have additional properties 'max_colums'/);
  const nobody = run({ plugin_config: { stat: { max_columns: 5 } } });
  t.equal(nobody.status, 78);
  t.match(nobody.stderr, /plugin_config\.stat: no enabled or built-in plugin declares these settings \(did you mean plugin_config\.stats\?\)/);
  const env = run({}, { SVC_MCP_TIMEOUT_MSEC: '5' });
  t.equal(env.status, 78);
  t.match(env.stderr, /SVC_MCP_TIMEOUT_MSEC: unknown setting \(did you mean SVC_MCP_TIMEOUT_MS\?\)/);
  const policy = run({}, { SVC_ATTESTATION_KEY_CONTINUITY_POLICY: 'persistent' });
  t.equal(policy.status, 78);
  t.match(policy.stderr, /attestation\.signing_key_pem \(SVC_ATTESTATION_SIGNING_KEY_PEM\): required by the persistent key policy/, "a plugin's own cross-setting rule");
});
