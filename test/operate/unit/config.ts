import t from 'tap';
import { ConfigError } from '../../../core/config.js';
import { loadServiceConfig } from '../../../sidecar/config.js';
import { TEST_SECRETS } from '../../helpers/server.js';

const env = (extra: Record<string, string>) => ({
  SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key,
  SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret,
  ...extra,
});

function problems(e: Record<string, string>): string[] {
  try {
    loadServiceConfig({ env: env(e), file: null });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

t.test('SVC_LOG_LEVEL accepts the usual spellings', async (t) => {
  for (const [given, want] of [
    ['warn', 'WARNING'],
    ['WARN', 'WARNING'],
    ['warning', 'WARNING'],
    ['Warning', 'WARNING'],
    ['info', 'INFO'],
    ['trace', 'DEBUG'],
    ['fatal', 'ERROR'],
    ['off', 'SILENT'],
    [' debug ', 'DEBUG'],
  ]) {
    t.equal(loadServiceConfig({ env: env({ SVC_LOG_LEVEL: given }), file: null }).log_level, want, given);
  }
});

t.test('an invalid enumerated value is answered with the allowed values', async (t) => {
  const p = problems({ SVC_LOG_LEVEL: 'loud' });
  t.equal(p.length, 1);
  t.match(p[0], /SVC_LOG_LEVEL/);
  t.match(p[0], /"DEBUG", "INFO", "WARNING", "ERROR", "SILENT"/);
  t.match(problems({ SVC_MODE: 'daemon' })[0], /SVC_MODE.*"server", "sidecar"/);
  t.match(problems({ SVC_LLM_PROVIDER: 'gpt' })[0], /"local", "openai", "anthropic"/);
});

t.test('plans, default plan and sidecar mode are validated', async (t) => {
  const c = loadServiceConfig({ env: env({ SVC_PLANS: '{"team":{"per_minute":5,"per_day":null}}', SVC_DEFAULT_PLAN: 'team' }), file: null });
  t.same(c.limits.plans, { team: { per_minute: 5, per_day: null } });
  t.equal(c.limits.default_plan, 'team');
  t.same(loadServiceConfig({ env: env({}), file: null }).limits.plans.free, { per_minute: 60, per_day: 1000 }, 'the spec plans are the default');
  t.match(problems({ SVC_DEFAULT_PLAN: 'gold' }).join('\n'), /unknown plan "gold"; allowed: free, pro, enterprise, unlimited/);
  t.match(problems({ SVC_PLANS: '{"x":{"per_minute":0,"per_day":1}}' }).join('\n'), /limits\.plans/);
  t.match(problems({ SVC_MODE: 'sidecar' }).join('\n'), /SVC_BOOTSTRAP_FILE.*required in sidecar mode/);
  t.equal(loadServiceConfig({ env: env({ SVC_MODE: 'sidecar', SVC_BOOTSTRAP_FILE: 'b.yaml' }), file: null }).mode, 'sidecar');
  t.match(problems({ SVC_METRICS_TOKEN: 'scrape-token-0123456789' }).join('\n'), /SVC_METRICS_PORT must be set/);
});
