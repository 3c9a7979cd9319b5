import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';
import { compileSchema } from '../../core/json/validate.js';
import type { PlanLimit } from '../../core/config.js';
import type { Role, Scope } from '../../core/types.js';
import type { PasswordHash } from '../../plugins/auth/index.js';

/** SVC_BOOTSTRAP_FILE as written (schemas/ops/bootstrap.json). */
export interface BootstrapFile {
  prune?: boolean;
  plans?: Record<string, PlanLimit | null>;
  organizations?: BootstrapOrg[];
  a2a_trust?: Array<Record<string, unknown> & { agent_id: string }>;
}

export interface BootstrapOrg {
  id: string;
  name: string;
  plan?: string;
  users?: Array<{ id: string; email: string; role?: Role; password_hash?: PasswordHash }>;
  api_keys?: Array<{ id: string; name: string; user?: string; key_env?: string; digest?: string; prefix?: 'svc_live_' | 'svc_test_'; scopes?: Scope[]; a2a_senders?: string[] }>;
  agents?: Array<{
    agent_id: string;
    name: string;
    agent_type?: 'autonomous' | 'assistant' | 'workflow' | 'tool';
    description?: string;
    permissions?: string[];
    max_cost_per_day?: number | null;
    token_env?: string;
    token_digest?: string;
  }>;
}

export const BOOTSTRAP_SCHEMA_URL = new URL('../../../schemas/ops/bootstrap.json', import.meta.url);

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? [])
    .filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'if')
    .map((e) => {
      const where = e.instancePath || '(root)';
      if (e.keyword === 'enum') return `${where}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
      if (e.keyword === 'additionalProperties') return `${where}: unknown field ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`;
      return `${where}: ${e.message ?? 'is invalid'}`;
    });
}

/** What the bootstrap schema finds wrong with one api_keys entry (`proofgate keys new` prints one). */
export function keyEntryProblems(entry: object): string[] {
  const validate = compileSchema(JSON.parse(readFileSync(BOOTSTRAP_SCHEMA_URL, 'utf8')) as object);
  if (validate({ organizations: [{ id: 'org', name: 'org', api_keys: [entry] }] })) return [];
  return describe(validate.errors).map((p) => p.replace(/^\/organizations\/0\/api_keys\/0\/?/, 'entry /'));
}

/**
 * The YAML parser, loaded when a bootstrap file is read: `proofgate start` imports this module
 * whether or not one is configured, and the parser is ~1 MB of the main thread's heap.
 */
const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/**
 * Reads and checks the file: YAML (a superset of JSON, so a .json file parses too), validated by
 * the JSON schema, then the rules a schema cannot say — unique ids, key users that exist, one
 * organisation in sidecar mode, secrets present in the environment (unless `env` is null: the CLI
 * reads only the plans). Every problem is listed; any
 * problem stops start-up (a half-applied declaration is worse than none).
 */
export function loadBootstrap(path: string, o: { mode: 'server' | 'sidecar'; env: NodeJS.ProcessEnv | null }): BootstrapFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`bootstrap file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (err as Error).message}`);
  }
  // the parser's messages quote the file (a code frame of the line, a token's text) and the file holds
  // digests and password hashes: errors and warnings name the position and the parser's code only
  const parsed = yaml().parseDocument(text, { strict: true, uniqueKeys: true, prettyErrors: true });
  const where = (e: { code?: string; linePos?: [{ line: number; col: number }, ...unknown[]] }) =>
    `${e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : 'somewhere'}${e.code ? ` (${e.code})` : ''}`;
  if (parsed.errors.length) throw new Error(`bootstrap file ${path}: not valid YAML/JSON at ${where(parsed.errors[0] as never)}`);
  for (const w of parsed.warnings) process.emitWarning(`bootstrap file ${path}: ${where(w as never)}`, 'YAMLWarning');
  let doc: unknown;
  try {
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // too many aliases, or an alias to nothing: the message says which rule, not what is written
    throw new Error(`bootstrap file ${path}: not valid YAML/JSON: ${(err as Error).name === 'ReferenceError' ? (err as Error).message.split(':')[0] : 'cannot be read'}`);
  }
  if (doc === null || doc === undefined) doc = {};
  const validate = compileSchema(JSON.parse(readFileSync(BOOTSTRAP_SCHEMA_URL, 'utf8')) as object);
  if (!validate(doc)) throw new Error(`bootstrap file ${path}:\n  - ${describe(validate.errors).join('\n  - ')}`);
  const b = doc as BootstrapFile;
  const problems: string[] = [];
  const orgs = b.organizations ?? [];
  if (o.mode === 'sidecar' && orgs.length !== 1) problems.push(`sidecar mode: the file must declare exactly one organisation (it declares ${orgs.length})`);
  const seen = { org: new Set<string>(), user: new Set<string>(), key: new Set<string>(), agent: new Set<string>() };
  const once = (kind: keyof typeof seen, id: string) => {
    if (seen[kind].has(id)) problems.push(`${kind} id ${JSON.stringify(id)} is declared twice`);
    seen[kind].add(id);
  };
  for (const org of orgs) {
    once('org', org.id);
    const users = org.users ?? [];
    for (const u of users) once('user', u.id);
    for (const k of org.api_keys ?? []) {
      once('key', k.id);
      if (k.user !== undefined ? !users.some((u) => u.id === k.user) : users.length === 0) {
        problems.push(`organizations[${org.id}].api_keys[${k.id}]: acts for ${k.user ? `user ${JSON.stringify(k.user)}, which the organisation does not declare` : 'a user, but the organisation declares none'}`);
      }
      if (o.env && k.key_env !== undefined && !o.env[k.key_env]) problems.push(`organizations[${org.id}].api_keys[${k.id}]: environment variable ${k.key_env} is not set`);
    }
    for (const a of org.agents ?? []) {
      once('agent', a.agent_id);
      if (o.env && a.token_env !== undefined && !o.env[a.token_env]) problems.push(`organizations[${org.id}].agents[${a.agent_id}]: environment variable ${a.token_env} is not set`);
    }
  }
  if (problems.length) throw new Error(`bootstrap file ${path}:\n  - ${problems.join('\n  - ')}`);
  return b;
}
