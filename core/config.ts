import { readFileSync } from 'node:fs';
import { didYouMean } from './cli.js';
import { jsonSyntaxErrorAt } from './json/syntax.js';
import { compileSchema } from './json/validate.js';
import { assembleSchema, SettingsError, valueAt, type OwnedSettings } from './plugin/settings.js';

/**
 * Configuration = defaults ← JSON file ← environment, validated once at start-up against the
 * kernel's schema (config/kernel.schema.json) with every plugin's settings fragment in its place
 * (core/plugin/settings.ts; config/schema.json is that whole, generated). The schema is the single source
 * of names, defaults and env variables (`x-env`), so a setting cannot exist in one place and be
 * missing in another. Anything unknown or invalid stops start-up with every problem listed.
 * `Config` types the kernel's part; a plugin reads its own settings with `app.settings()`.
 */
export interface Config {
  server: {
    host: string;
    port: number;
    reuse_port: boolean;
    public_url: string | null;
    body_limit_bytes: number;
    body_drain_bytes: number;
    request_timeout_ms: number;
    shutdown_grace_ms: number;
    max_json_depth: number;
  };
  data_dir: string;
  /** shared mode: PostgreSQL instead of LMDB */
  store: { url: string | null };
  log_level: 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'SILENT';
  error_tracking_dsn: string | null;
  plugins: { disabled: string[]; extra: string[] };
  workers: { threads: number | null; task_timeout_ms: number; pools: Record<string, number>; young_generation_mb: number; old_generation_mb: number | null; idle_timeout_ms: number; max_queue_wait_ms: number; heap_growing_percent: number | null };
  secrets: { jwt_secret_key: string | null; api_key_lookup_secret: string | null; audit_secret_key: string | null; badge_url_secret?: string | null };
  auth: {
    trusted_proxies: string[];
    anonymous_rate_per_minute: number;
    rate_limit_redis_url: string | null;
    metrics_operator_user_ids: string[];
    operator_user_ids: string[];
    signup_enabled: boolean | null;
    jwt_ttl_seconds: number;
    security_events_retention_days: number | null;
  };
  mode: 'server' | 'sidecar';
  bootstrap_file: string | null;
  limits: { plans: Record<string, PlanLimit | null>; default_plan: string | null };
  metrics: { port: number | null; host: string | null; token: string | null };
  tracing: { otlp_endpoint: string | null };
  /** settings of plugins kept under their own name; each key is declared by a plugin (Plugin.settings) */
  plugin_config: Record<string, unknown>;
}

/** One plan's limits per organisation; null (the whole plan or one window) = unlimited. */
export interface PlanLimit {
  per_minute: number | null;
  per_day: number | null;
}

/** Where `proofgate init` writes and `start` looks when neither --config nor SVC_CONFIG names a file. */
export const DEFAULT_CONFIG_PATH = 'proofgate.config.json';

/** Plans that exist whatever the file says (their limits may be overridden): the spec's three and `unlimited`. */
export const BUILTIN_PLAN_NAMES = ['free', 'pro', 'enterprise', 'unlimited'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  'x-env'?: string;
  'x-env-raw'?: boolean;
  description?: string;
  default?: unknown;
}

/** the kernel's part of the configuration schema */
export const KERNEL_SCHEMA_URL = new URL('../../config/kernel.schema.json', import.meta.url);
let kernelCache: SchemaNode | undefined;
const assembled = new WeakMap<readonly OwnedSettings[], SchemaNode>();
const NONE: readonly OwnedSettings[] = [];

/**
 * The configuration schema: the kernel's part and the given plugins' settings fragments. Kept per
 * list (callers pass one constant list), so that it is compiled once. Throws SettingsError on a
 * collision.
 */
export function configSchema(settings: readonly OwnedSettings[] = NONE): SchemaNode {
  kernelCache ??= JSON.parse(readFileSync(KERNEL_SCHEMA_URL, 'utf8')) as SchemaNode;
  let s = assembled.get(settings);
  if (!s) assembled.set(settings, (s = assembleSchema(kernelCache as never, settings) as SchemaNode));
  return s;
}

export interface EnvVar {
  name: string;
  path: string[];
  type: string[];
  raw: boolean;
  description: string;
  default: unknown;
}

/** Every environment variable of the kernel and these plugins' settings, from the schema (also used to print the README table). */
export function envVars(settings: readonly OwnedSettings[] = NONE): EnvVar[] {
  const out: EnvVar[] = [];
  const walk = (node: SchemaNode, path: string[]) => {
    if (node['x-env']) {
      out.push({
        name: node['x-env'],
        path,
        type: ([] as string[]).concat(node.type ?? 'string'),
        raw: node['x-env-raw'] === true,
        description: node.description ?? '',
        default: node.default,
      });
    }
    for (const [k, child] of Object.entries(node.properties ?? {})) walk(child, [...path, k]);
  };
  walk(configSchema(settings), []);
  return out;
}

/** Names that are not settings but steer loading itself. */
const LOADER_VARS = new Set(['SVC_CONFIG']);

function coerceEnv(v: EnvVar, text: string): unknown {
  if (v.raw) return text;
  const t = v.type.filter((x) => x !== 'null');
  // a nullable number, boolean or object set to `null` (or empty) in the environment is null: the
  // only way to ask from the environment for what null means there (workers.heap_growing_percent: V8's own)
  if (t.length < v.type.length && !t.includes('string') && ['', 'null'].includes(text.trim().toLowerCase())) return null;
  if (t.includes('object')) return JSON.parse(text);
  if (t.includes('array')) {
    const trimmed = text.trim();
    if (trimmed.startsWith('[')) return JSON.parse(trimmed);
    return trimmed === '' ? [] : trimmed.split(',').map((s) => s.trim()).filter(Boolean);
  }
  if (t.includes('integer') || t.includes('number')) {
    if (!/^-?\d+(\.\d+)?$/.test(text.trim())) return text;
    return Number(text);
  }
  if (t.includes('boolean')) {
    const l = text.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(l)) return true;
    if (['false', '0', 'no', 'off'].includes(l)) return false;
    return text;
  }
  return text;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = target;
  for (const k of path.slice(0, -1)) {
    if (!cur[k] || typeof cur[k] !== 'object' || Array.isArray(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = value;
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k])) {
      out[k] = deepMerge(out[k] as Record<string, unknown>, v as Record<string, unknown>);
    } else if (v !== undefined) {
      out[k] = v;
    }
  }
  return out;
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** path of a JSON config file; default env SVC_CONFIG; a missing explicit file is an error */
  file?: string | null;
  /** programmatic overrides (tests, embedding), applied last; plugin sections too */
  overrides?: ConfigOverrides;
  /** the settings of the plugins that may run (the sidecar passes its built-ins'); default none */
  settings?: readonly OwnedSettings[];
}

/** kernel settings typed, a plugin's section as its plugin types it */
export type ConfigOverrides = DeepPartial<Config> & { [section: string]: unknown };

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const settings = opts.settings ?? NONE;
  let schema: SchemaNode;
  try {
    schema = configSchema(settings);
  } catch (err) {
    if (err instanceof SettingsError) throw new ConfigError([err.message]);
    throw err;
  }
  const problems: string[] = [];
  let fromFile: Record<string, unknown> = {};
  const file = opts.file === undefined ? env.SVC_CONFIG : opts.file;
  if (file) {
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
      const parsed: unknown = JSON.parse(text);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) problems.push(`${file}: must hold a JSON object`);
      else fromFile = parsed as Record<string, unknown>;
    } catch (err) {
      if (text === undefined) problems.push(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message}`);
      else {
        // JSON.parse's message quotes the text around the error, and the file holds secrets
        const at = jsonSyntaxErrorAt(text);
        problems.push(`${file}: not valid JSON${at ? ` (line ${at.line}, column ${at.column})` : ''}`);
      }
    }
  }

  const fromEnv: Record<string, unknown> = {};
  const vars = envVars(settings);
  const known = new Map(vars.map((v) => [v.name, v]));
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const v = known.get(name);
    if (!v) {
      if (name.startsWith('SVC_') && !LOADER_VARS.has(name)) {
        // SVC_LOGLEVEL for SVC_LOG_LEVEL: the typo is named with its fix, not only refused
        const near = didYouMean(name, [...known.keys(), ...LOADER_VARS]);
        problems.push(`${name}: unknown setting${near ? ` (did you mean ${near}?)` : ''}`);
      }
      continue;
    }
    try {
      setPath(fromEnv, v.path, coerceEnv(v, value));
    } catch {
      problems.push(`${name}: not valid JSON`);
    }
  }

  let merged = deepMerge(fromFile, fromEnv);
  if (opts.overrides) merged = deepMerge(merged, opts.overrides as Record<string, unknown>);
  if (typeof merged.log_level === 'string') merged.log_level = normalizeLogLevel(merged.log_level);

  // the build generated this validator when the plugins are the built-ins (core/json/generated.ts)
  const validate = compileSchema(schema);
  if (!validate(merged)) {
    for (const e of validate.errors ?? []) {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(root)';
      const envName = vars.find((v) => v.path.join('.') === where)?.name;
      let extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : '';
      // name what is allowed, not only that the value is not it
      if (e.keyword === 'enum') extra = `: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
      problems.push(`${where}${envName ? ` (${envName})` : ''}: ${e.message}${extra}`);
    }
  }
  if (problems.length === 0) problems.push(...startupChecks(merged as unknown as Config));
  // the rules a plugin's fragment cannot say, on its validated value
  if (problems.length === 0) for (const { settings: s } of settings) problems.push(...(s.check?.(valueAt(merged, s.at)) ?? []));
  if (problems.length) throw new ConfigError(problems);
  return merged as unknown as Config;
}

/** The spellings operators use for a level (pino's, syslog's, Python's) → the schema's names. */
const LOG_LEVEL_ALIASES: Record<string, string> = {
  TRACE: 'DEBUG',
  DEBUG: 'DEBUG',
  INFO: 'INFO',
  WARN: 'WARNING',
  WARNING: 'WARNING',
  ERR: 'ERROR',
  ERROR: 'ERROR',
  FATAL: 'ERROR',
  CRITICAL: 'ERROR',
  SILENT: 'SILENT',
  OFF: 'SILENT',
  NONE: 'SILENT',
};

export function normalizeLogLevel(text: string): string {
  const up = text.trim().toUpperCase();
  return LOG_LEVEL_ALIASES[up] ?? up;
}

/** Fail-closed rules from the spec that hold whichever plugins are loaded. */
function startupChecks(c: Config): string[] {
  const out: string[] = [];
  if (!c.secrets.api_key_lookup_secret) out.push('secrets.api_key_lookup_secret (SVC_API_KEY_LOOKUP_SECRET): required (run `proofgate init`)');
  if (!c.secrets.jwt_secret_key) out.push('secrets.jwt_secret_key (SVC_JWT_SECRET_KEY): required (run `proofgate init`)');
  if (c.secrets.api_key_lookup_secret && c.secrets.api_key_lookup_secret === c.secrets.jwt_secret_key) {
    out.push('SVC_API_KEY_LOOKUP_SECRET must differ from SVC_JWT_SECRET_KEY');
  }
  if (c.metrics.token && c.metrics.port === null) {
    out.push('metrics.token (SVC_METRICS_TOKEN): guards the metrics listener, so SVC_METRICS_PORT must be set too');
  }
  if (c.server.reuse_port && !c.auth.rate_limit_redis_url) {
    // each process would count its own windows: N processes would grant N times every plan's limit
    out.push('server.reuse_port (SVC_SERVER_REUSE_PORT): processes sharing a port must share their rate limits: set auth.rate_limit_redis_url (SVC_RATE_LIMIT_REDIS_URL)');
  }
  if (c.mode === 'sidecar' && !c.bootstrap_file) {
    out.push('bootstrap_file (SVC_BOOTSTRAP_FILE): required in sidecar mode (the organisation and its keys come from it)');
  }
  if (c.limits.default_plan !== null && !(c.limits.default_plan in c.limits.plans) && !BUILTIN_PLAN_NAMES.includes(c.limits.default_plan)) {
    out.push(`limits.default_plan (SVC_DEFAULT_PLAN): unknown plan ${JSON.stringify(c.limits.default_plan)}; allowed: ${[...new Set([...BUILTIN_PLAN_NAMES, ...Object.keys(c.limits.plans)])].join(', ')}`);
  }
  return out;
}
