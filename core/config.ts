import { readFileSync } from 'node:fs';
import { didYouMean } from './cli.js';
import { jsonSyntaxErrorAt } from './json/syntax.js';
import { compileSchema } from './json/validate.js';

/**
 * Configuration = defaults ← JSON file ← environment, validated once at start-up against
 * config/schema.json. The schema is the single source of names, defaults and env variables
 * (`x-env`), so a setting cannot exist in one place and be missing in another. Anything unknown
 * or invalid stops start-up with every problem listed.
 */
export interface Config {
  server: {
    host: string;
    port: number;
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
  workers: { threads: number; task_timeout_ms: number; pools: Record<string, number>; young_generation_mb: number; old_generation_mb: number | null; idle_timeout_ms: number; max_queue_wait_ms: number; heap_growing_percent: number | null };
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
  attestation: {
    issuer: string;
    key_continuity_policy: 'ephemeral' | 'persistent';
    signing_key_pem: string | null;
    key_name: string;
    lifetime_seconds: number;
    trusted_issuers: string[];
    prune_grace_seconds: number | null;
    retired_keys: Array<{ key_name: string; public_key_pem: string; retired_at: string }>;
  };
  audit: { checkpoint_interval_seconds: number; retention_days: number | null; export_dir: string | null; prune_anchor_keys: string[] };
  a2a: {
    deployment_id: string | null;
    signing_key_pem: string | null;
    trusted_agents: string | unknown[];
    blocklist: string[];
    blocked_pairs: string[];
    default_allow: boolean;
    block_on_error: boolean;
    max_payload_size_bytes: number;
    max_requests_per_minute: number;
    jwt_lifetime_seconds: number;
    enable_financial_verification: boolean;
    enable_logic_verification: boolean;
    enable_code_verification: boolean;
    sender_auth: 'on' | 'off';
    peers: Record<string, unknown> | string;
    proxy: {
      forward_statuses: Array<'forwarded' | 'heuristic_pass' | 'unverifiable'>;
      timeout_ms: number;
      connect_timeout_ms: number;
      connections: number;
      card_ttl_seconds: number;
      task_ttl_seconds: number;
      egress_allow: string[];
    };
    inbound: { target: string | null; agent_id: string | null; trusted_issuers: unknown[] | string };
  };
  llm: {
    provider: 'local' | 'openai' | 'anthropic';
    openai_base_url: string | null;
    openai_api_key: string | null;
    openai_model: string | null;
    anthropic_api_key: string | null;
    anthropic_model: string | null;
    anthropic_base_url: string | null;
    timeout_ms: number;
  };
  mcp: {
    /** name → server; a JSON string when it came from SVC_MCP_SERVERS (the mcp plugin parses it) */
    servers: string | Record<string, unknown>;
    pin_on_first_use: boolean;
    timeout_ms: number;
    /** longest life of a relayed GET event stream; the client then comes back with Last-Event-ID */
    stream_max_seconds: number;
    /** open GET event streams per agent (per replica) */
    max_streams_per_agent: number;
    max_body_bytes: number;
    session_ttl_seconds: number;
    /** Host values /mcp/{server} answers to (`host` or `host:port`); empty: loopback, bind address, public_url */
    allowed_hosts: string[];
    /** Origin values allowed on /mcp/{server}; empty: any http(s) origin on an allowed host */
    allowed_origins: string[];
    max_tools_per_server: number;
    state_ttl_seconds: number;
  };
  mode: 'server' | 'sidecar';
  bootstrap_file: string | null;
  /** the operator's console at /console/; null: on in server mode, off in sidecar mode */
  console: { enabled: boolean | null };
  limits: { plans: Record<string, PlanLimit | null>; default_plan: string | null };
  metrics: { port: number | null; host: string | null; token: string | null };
  tracing: { otlp_endpoint: string | null };
  batch: { retention_seconds: number; max_stored_bytes: number };
  plugin_config: Record<string, Record<string, unknown>>;
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

export const CONFIG_SCHEMA_URL = new URL('../../config/schema.json', import.meta.url);
let schemaCache: SchemaNode | undefined;
export function configSchema(): SchemaNode {
  schemaCache ??= JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as SchemaNode;
  return schemaCache;
}

export interface EnvVar {
  name: string;
  path: string[];
  type: string[];
  raw: boolean;
  description: string;
  default: unknown;
}

/** Every environment variable the service reads, derived from the schema (also used to print the README table). */
export function envVars(): EnvVar[] {
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
  walk(configSchema(), []);
  return out;
}

/** Names that are not settings but steer loading itself. */
const LOADER_VARS = new Set(['SVC_CONFIG']);

function coerceEnv(v: EnvVar, text: string): unknown {
  if (v.raw) return text;
  const t = v.type.filter((x) => x !== 'null');
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
  /** programmatic overrides (tests, embedding), applied last */
  overrides?: DeepPartial<Config>;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
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
  const vars = envVars();
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

  const validate = compileSchema(configSchema());
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
  if (c.attestation.key_continuity_policy === 'persistent' && !c.attestation.signing_key_pem) {
    out.push('attestation.signing_key_pem (SVC_ATTESTATION_SIGNING_KEY_PEM): required by the persistent key policy');
  }
  if (c.metrics.token && c.metrics.port === null) {
    out.push('metrics.token (SVC_METRICS_TOKEN): guards the metrics listener, so SVC_METRICS_PORT must be set too');
  }
  if (c.mode === 'sidecar' && !c.bootstrap_file) {
    out.push('bootstrap_file (SVC_BOOTSTRAP_FILE): required in sidecar mode (the organisation and its keys come from it)');
  }
  if (c.limits.default_plan !== null && !(c.limits.default_plan in c.limits.plans) && !BUILTIN_PLAN_NAMES.includes(c.limits.default_plan)) {
    out.push(`limits.default_plan (SVC_DEFAULT_PLAN): unknown plan ${JSON.stringify(c.limits.default_plan)}; allowed: ${[...new Set([...BUILTIN_PLAN_NAMES, ...Object.keys(c.limits.plans)])].join(', ')}`);
  }
  return out;
}
