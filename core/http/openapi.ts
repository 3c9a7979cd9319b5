import { API_PREFIX } from './router.js';
import type { RouteInfo } from '../types.js';

/**
 * The OpenAPI 3.1 document, derived from the route table and the registered JSON schemas at
 * start-up, so it cannot drift from what the server enforces. Schemas become components: their
 * `$id`s are dropped and every `$ref` between them is rewritten to a local pointer, because a
 * `$ref` inside a component that keeps its `$id` would resolve against that id, not the document.
 */
export const PROBLEM_SCHEMA_ID = 'https://proofgate.dev/schemas/core/problem.json';

export interface SchemaSource {
  ids(): string[];
  get(id: string): object | undefined;
}

const SECURITY: Record<string, object> = {
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'svc_live_… / svc_test_… API key' },
  jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'user access token from POST /auth/signin' },
  agentToken: { type: 'apiKey', in: 'header', name: 'X-Agent-Token', description: 'svc_agent_… token of a registered agent' },
};

/** `https://proofgate.dev/schemas/math/request.json` → `math.request` (component names allow [A-Za-z0-9._-]). */
export function componentName(id: string): string {
  const m = /^https:\/\/proofgate\.dev\/schemas\/(.+)\.json$/.exec(id);
  return (m ? m[1].replace(/\//g, '.') : id).replace(/[^A-Za-z0-9._-]/g, '_');
}

/** A copy of a registered schema as it appears under components: no $id/$schema, refs made local. */
export function componentSchema(id: string, schema: object, known: (id: string) => boolean): object {
  const rewrite = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error(`schema ${id} nests deeper than 64 levels`);
    if (Array.isArray(node)) return node.map((n) => rewrite(n, depth + 1));
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (depth === 0 && (k === '$id' || k === '$schema')) continue;
      if (k === '$ref' && typeof v === 'string') out[k] = localRef(id, v, known);
      else out[k] = rewrite(v, depth + 1);
    }
    return out;
  };
  return rewrite(schema, 0) as object;
}

function localRef(base: string, ref: string, known: (id: string) => boolean): string {
  const abs = new URL(ref, base);
  const fragment = abs.hash.replace(/^#/, '');
  abs.hash = '';
  const target = abs.href;
  if (!known(target)) throw new Error(`schema ${base} refers to unknown schema ${target}`);
  return `#/components/schemas/${componentName(target)}${fragment}`;
}

/** `/verify/batch/:job_id` → `/verify/batch/{job_id}`; `/message::send` (find-my-way's literal colon) → `/message:send` */
export function openApiPath(path: string): string {
  // a trailing wildcard (find-my-way `*`) is the path parameter `path`, which may hold slashes
  return path.replace(PARAM, '{$1}').replace(/::/g, ':').replace(/\/\*$/, '/{path}');
}

/** `POST /verify/math` → `postVerifyMath`, `GET /verify/batch/:job_id` → `getVerifyBatchByJobId` */
export function operationId(r: Pick<RouteInfo, 'method' | 'path'>): string {
  const camel = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  const parts = r.path.split('/').filter(Boolean);
  const words = parts.map((p) => (p === '*' ? 'ByPath' : p.startsWith(':') ? 'By' + camel(p.slice(1)) : camel(p)));
  return r.method.toLowerCase() + words.join('');
}

/** a path parameter; `::` is a literal colon, not one */
const PARAM = /(?<!:):([A-Za-z0-9_]+)/g;

const ref = (id: string) => ({ $ref: `#/components/schemas/${componentName(id)}` });

function problem(description: string) {
  return { description, content: { 'application/problem+json': { schema: ref(PROBLEM_SCHEMA_ID) } } };
}

function parameters(r: RouteInfo, schemas: SchemaSource): object[] {
  const out: object[] = [];
  const names = [...r.path.matchAll(PARAM)].map((m) => m[1]);
  if (r.path.endsWith('/*')) names.push('path');
  const paramsSchema = r.schema?.params ? (schemas.get(r.schema.params) as { properties?: Record<string, unknown> }) : undefined;
  for (const name of names) {
    const s = paramsSchema?.properties?.[name];
    out.push({ name, in: 'path', required: true, schema: s && r.schema?.params ? { $ref: `${ref(r.schema.params).$ref}/properties/${name}` } : { type: 'string' } });
  }
  if (r.schema?.query) {
    const q = schemas.get(r.schema.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const name of Object.keys(q?.properties ?? {})) {
      out.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema: { $ref: `${ref(r.schema.query).$ref}/properties/${name}` } });
    }
  }
  return out;
}

function operation(r: RouteInfo, schemas: SchemaSource): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: operationId(r),
    tags: [r.plugin ?? 'kernel'],
    summary: `${r.method} ${r.path}`,
  };
  if (r.auth !== 'none') {
    // one requirement per credential kind the route accepts (alternatives, in the order the kernel tries them)
    const scopes = r.scope && r.scope !== 'authenticated' ? [r.scope] : [];
    op.security = [r.auth, ...(r.authAlso ?? [])].map((kind) => ({ [kind]: scopes }));
    op['x-proofgate-scope'] = r.scope ?? 'authenticated';
  } else op.security = [];
  if (r.tags?.length) op['x-proofgate-tags'] = [...r.tags];
  // the route answers with a verdict: recorded (audited) whatever its outcome, and sealed when it attests
  if (r.verification) op['x-proofgate-verification'] = { attest: r.verification.attest };
  const params = parameters(r, schemas);
  if (params.length) op.parameters = params;
  const bodyType = r.bodyType ?? (['POST', 'PUT', 'PATCH'].includes(r.method) ? 'json' : 'none');
  if (bodyType === 'json') {
    op.requestBody = { required: true, content: { 'application/json': { schema: r.schema?.body ? ref(r.schema.body) : {} } } };
  } else if (bodyType === 'multipart') {
    // the fields' schema is the route's body schema; files arrive as binary parts beside them
    op.requestBody = { required: true, content: { 'multipart/form-data': { schema: r.schema?.body ? ref(r.schema.body) : { type: 'object' } } } };
  } else if (bodyType === 'raw') {
    op.requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } };
  }
  const ok: Record<string, unknown> = { description: 'success' };
  if (r.produces) ok.content = { [r.produces.split(';')[0].trim()]: { schema: { type: 'string' } } };
  else ok.content = { 'application/json': { schema: r.schema?.response ? ref(r.schema.response) : {} } };
  const responses: Record<string, unknown> = { '2XX': ok };
  if (bodyType !== 'none' || params.length) responses['400'] = problem('invalid request (one entry per field in `errors`)');
  if (r.auth !== 'none') {
    responses['401'] = problem('missing or invalid credential');
    responses['403'] = problem('credential lacks the scope, or policy refused');
  }
  if (bodyType !== 'none') responses['413'] = problem('body over the route limit');
  if (r.verification || r.auth !== 'none') responses['429'] = problem('rate limited (Retry-After, RateLimit-* headers)');
  responses.default = problem('any other error, as RFC 9457 problem+json');
  op.responses = responses;
  return op;
}

export function buildOpenApi(routes: readonly RouteInfo[], schemas: SchemaSource, version: string): Record<string, unknown> {
  const ids = new Set(schemas.ids());
  const components: Record<string, object> = {};
  for (const id of [...ids].sort()) components[componentName(id)] = componentSchema(id, schemas.get(id)!, (x) => ids.has(x));
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const r of sorted) {
    const p = API_PREFIX + openApiPath(r.path);
    (paths[p] ??= {})[r.method.toLowerCase()] = operation(r, schemas);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'proofgate',
      version,
      description:
        'Verification gateway: deterministic engines, signed verdicts, fail-closed. Generated from the route table at start-up. ' +
        `Every path is also served without the ${API_PREFIX} prefix.`,
    },
    servers: [{ url: '/' }],
    paths,
    components: { schemas: components, securitySchemes: SECURITY },
  };
}
