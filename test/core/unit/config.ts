import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../core/config.js';
import { loadServiceConfig, serviceEnvVars } from '../../../sidecar/config.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { settingsIn } from '../../../core/plugin/settings.js';
import { a2aSettings } from '../../../plugins/a2a/settings.js';
import { attestationSettings } from '../../../plugins/attestation/settings.js';
import { auditSettings } from '../../../plugins/audit/settings.js';

const secrets = { SVC_JWT_SECRET_KEY: 'j'.repeat(32), SVC_API_KEY_LOOKUP_SECRET: 'l'.repeat(32) };

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

t.test('defaults apply when only the required secrets are set', async (t) => {
  const c = loadServiceConfig({ env: secrets, file: null });
  t.equal(c.server.host, '127.0.0.1');
  t.equal(c.server.port, 8080);
  t.equal(c.data_dir, './data');
  t.equal(c.log_level, 'INFO');
  t.equal(settingsIn(c, a2aSettings).max_payload_size_bytes, 1048576);
  t.equal(settingsIn(c, attestationSettings).key_continuity_policy, 'ephemeral');
});

t.test('environment variables are coerced to their schema types', async (t) => {
  const c = loadServiceConfig({
    env: { ...secrets, SVC_PORT: '9001', SVC_A2A_BLOCK_ON_ERROR: 'false', SVC_AUTH_TRUSTED_PROXIES: '10.0.0.0/8, ::1', SVC_LOG_LEVEL: 'warning' },
    file: null,
  });
  t.equal(c.server.port, 9001);
  t.equal(settingsIn(c, a2aSettings).block_on_error, false);
  t.same(c.auth.trusted_proxies, ['10.0.0.0/8', '::1']);
  t.equal(c.log_level, 'WARNING');
});

t.test('a nullable number set to null in the environment is null; a nullable string keeps the text', async (t) => {
  t.equal(loadServiceConfig({ env: { ...secrets }, file: null }).workers.heap_growing_percent, 20, 'the default');
  t.equal(loadServiceConfig({ env: { ...secrets, SVC_HEAP_GROWING_PERCENT: 'null' }, file: null }).workers.heap_growing_percent, null);
  t.equal(loadServiceConfig({ env: { ...secrets, SVC_HEAP_GROWING_PERCENT: '' }, file: null }).workers.heap_growing_percent, null);
  t.equal(loadServiceConfig({ env: { ...secrets, SVC_HEAP_GROWING_PERCENT: '35' }, file: null }).workers.heap_growing_percent, 35);
  t.match(problems(() => loadServiceConfig({ env: { ...secrets, SVC_HEAP_GROWING_PERCENT: 'none' }, file: null })).join('\n'), /SVC_HEAP_GROWING_PERCENT/);
  t.equal(loadServiceConfig({ env: { ...secrets, SVC_PUBLIC_URL: 'https://null.example' }, file: null }).server.public_url, 'https://null.example');
});

t.test('SVC_A2A_TRUSTED_AGENTS stays raw text for the a2a plugin to parse', async (t) => {
  const c = loadServiceConfig({ env: { ...secrets, SVC_A2A_TRUSTED_AGENTS: '[{"agent_id":"a"}]' }, file: null });
  t.equal(settingsIn(c, a2aSettings).trusted_agents, '[{"agent_id":"a"}]');
});

t.test('a missing API-key lookup secret stops start-up', async (t) => {
  const p = problems(() => loadServiceConfig({ env: { SVC_JWT_SECRET_KEY: 'j'.repeat(32) }, file: null }));
  t.match(p.join('\n'), /SVC_API_KEY_LOOKUP_SECRET/);
});

t.test('a lookup secret equal to the JWT secret stops start-up', async (t) => {
  const p = problems(() => loadServiceConfig({ env: { SVC_JWT_SECRET_KEY: 'x'.repeat(32), SVC_API_KEY_LOOKUP_SECRET: 'x'.repeat(32) }, file: null }));
  t.match(p.join('\n'), /must differ from SVC_JWT_SECRET_KEY/);
});

t.test('invalid values are all reported, each naming its variable', async (t) => {
  const p = problems(() =>
    loadServiceConfig({ env: { ...secrets, SVC_PORT: 'eighty', SVC_LOG_LEVEL: 'LOUD', SVC_ATTESTATION_KEY_CONTINUITY_POLICY: 'forever' }, file: null }),
  );
  const all = p.join('\n');
  t.match(all, /SVC_PORT/);
  t.match(all, /SVC_LOG_LEVEL/);
  t.match(all, /SVC_ATTESTATION_KEY_CONTINUITY_POLICY/);
  t.ok(p.length >= 3);
});

t.test('an unknown SVC_ variable stops start-up (a typo must not silently fall back to a default)', async (t) => {
  const p = problems(() => loadServiceConfig({ env: { ...secrets, SVC_PROT: '9000' }, file: null }));
  t.same(p, ['SVC_PROT: unknown setting (did you mean SVC_PORT?)']);
  // issue 43: the typo is named with its fix; a name like no setting gets no guess
  t.same(problems(() => loadServiceConfig({ env: { ...secrets, SVC_LOGLEVEL: 'debug' }, file: null })), ['SVC_LOGLEVEL: unknown setting (did you mean SVC_LOG_LEVEL?)']);
  t.same(problems(() => loadServiceConfig({ env: { ...secrets, SVC_COMPLETELY_UNRELATED_THING: '1' }, file: null })), ['SVC_COMPLETELY_UNRELATED_THING: unknown setting']);
});

t.test('config files: unknown keys, bad JSON and a missing file are errors', async (t) => {
  const dir = tempDir(t, 'pg-config-');
  const unknown = join(dir, 'unknown.json');
  writeFileSync(unknown, JSON.stringify({ server: { prot: 1 } }));
  t.match(problems(() => loadServiceConfig({ env: secrets, file: unknown })).join(), /server: must NOT have additional properties 'prot'/);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{ nope');
  t.match(problems(() => loadServiceConfig({ env: secrets, file: bad })).join(), /bad\.json/);
  t.match(problems(() => loadServiceConfig({ env: secrets, file: join(dir, 'absent.json') })).join(), /file not found/);
});

t.test('environment overrides the file', async (t) => {
  const dir = tempDir(t, 'pg-config-');
  const f = join(dir, 'c.json');
  writeFileSync(f, JSON.stringify({ server: { port: 7000, host: '0.0.0.0' }, secrets: { jwt_secret_key: 'f'.repeat(32), api_key_lookup_secret: 'g'.repeat(32) } }));
  const c = loadServiceConfig({ env: { SVC_PORT: '7001' }, file: f });
  t.equal(c.server.port, 7001);
  t.equal(c.server.host, '0.0.0.0');
});

t.test('every setting with an environment variable is documented in the README', async (t) => {
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
  for (const v of serviceEnvVars()) t.ok(readme.includes('`' + v.name + '`'), `${v.name} is in README.md`);
});

t.test('dedicated engine pools are sized from workers.pools; audit and pruning settings have safe defaults', async (t) => {
  const c = loadServiceConfig({ env: secrets, file: null, overrides: { workers: { pools: { z3: 2 } } } });
  t.same(c.workers.pools, { z3: 2 });
  t.same(loadServiceConfig({ env: secrets, file: null }).workers.pools, {});
  t.match(problems(() => loadServiceConfig({ env: secrets, file: null, overrides: { workers: { pools: { z3: 0 } } } })).join('\n'), /pools/);
  const d = loadServiceConfig({ env: secrets, file: null });
  t.same(settingsIn(d, auditSettings), { checkpoint_interval_seconds: 60, retention_days: null, export_dir: null, prune_anchor_keys: [] }, 'keep everything by default');
  t.same(settingsIn(loadServiceConfig({ env: { ...secrets, SVC_AUDIT_PRUNE_ANCHOR_KEYS: `${'a'.repeat(43)},-${'b'.repeat(42)}` }, file: null }), auditSettings).prune_anchor_keys, ['a'.repeat(43), `-${'b'.repeat(42)}`]);
  t.match(problems(() => loadServiceConfig({ env: { ...secrets, SVC_AUDIT_PRUNE_ANCHOR_KEYS: 'not-a-thumbprint' }, file: null })).join('\n'), /prune_anchor_keys/, 'only thumbprints');
  t.equal(settingsIn(d, attestationSettings).prune_grace_seconds, 86400);
  t.match(problems(() => loadServiceConfig({ env: { ...secrets, SVC_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '61' }, file: null })).join('\n'), /SVC_AUDIT_CHECKPOINT_INTERVAL_SECONDS/, 'at least every minute');
});
