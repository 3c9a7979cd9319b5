import type { Test } from 'tap';
import { duplicateKeyAt } from '../../core/json/syntax.js';
import { VERDICT_META } from '../../plugins/mcp/gate.js';
import { rawRequest, type JsonPath } from '../helpers/hostile-wire.js';
import type { Harness, ProxiedRoute, Refusal } from './proxied-routes-table.js';

/** The checks and walks proxied-routes.test.ts applies to every row of the table. */
export type Reply = Awaited<ReturnType<typeof rawRequest>>;
export const VERDICT = 'x-proofgate-verdict';

/** one request; an answer set for it that it did not use (the request was refused) goes with it */
export async function call(h: Harness, route: ProxiedRoute, body: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  try {
    return await rawRequest(`${h.s.url}${route.path}`, { method: 'POST', headers: { ...route.headers, ...headers }, body });
  } finally {
    h.clearAnswers();
  }
}

export function refused(t: Test, r: Reply, o: Refusal, what: string): void {
  t.equal(r.status, o.status, `${what}: status (${r.text.slice(0, 160)})`);
  if (o.rpc !== undefined) t.equal(r.body?.error?.code, o.rpc, `${what}: JSON-RPC error ${o.rpc}`);
  if (o.code !== undefined) t.equal(r.body?.code, o.code, `${what}: ${o.code}`);
  if (o.reason !== undefined) t.equal(r.body?.error?.details?.[0]?.reason, o.reason, `${what}: ${o.reason}`);
  t.notOk(r.headers[VERDICT], `${what}: no verdict handed out`);
}

/** a forward, when there was one, went out after review; a verdict-only route answered with one */
export function reviewedIfForwarded(t: Test, h: Harness, route: ProxiedRoute, r: Reply, mark: number, what: string): void {
  t.ok(r.status < 500, `${what}: never a 5xx (${r.status} ${r.text.slice(0, 160)})`);
  const got = h.receivedSince(mark, route.upstream);
  t.ok(got.length <= 1, `${what}: at most one forward`);
  for (const g of got) {
    if (route.family === 'a2a' && !route.noVerdict) t.ok(g.headers[VERDICT], `${what}: forwarded with its verdict`);
    else if (g.json?.method === 'tools/call') t.ok(g.json.params?._meta?.[VERDICT_META], `${what}: a tools/call forwarded with its verdict`);
    t.equal(duplicateKeyAt(g.text), null, `${what}: forwarded bytes read one way only`);
  }
  // a refusal is a deliberate one: a problem with its code, or a JSON-RPC error / MCP denial in a 200
  // (the HTTP+JSON binding's refusals are its google.rpc error bodies)
  if (r.status >= 400) t.type(r.body?.code ?? (route.binding === 'rest' ? r.body?.error?.status : undefined), 'string', `${what}: a problem document with a code`);
  if (r.status === 200 && route.upstream && got.length === 0) t.ok(r.body?.error?.code ?? r.body?.result?.isError, `${what}: not forwarded, so a JSON-RPC error or a denial`);
  if (route.path === '/ext-authz/rpc' && r.status === 200) t.ok(r.headers[VERDICT], `${what}: an allow carries the verdict`);
  if (route.path === '/a2a/intercept' && r.status === 200) t.match(r.body, { status: /^(forwarded|blocked|unverifiable|heuristic_pass|error)$/ }, `${what}: a verdict`);
}

export async function stillUp(t: Test, h: Harness, what: string): Promise<void> {
  t.equal((await h.s.request('GET', '/healthz')).status, 200, `${what}: the server is up`);
}

/** every member of the valid request, by path (the leaves: strings, numbers) */
export function leaves(v: unknown, at: Array<string | number> = []): JsonPath[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...at, i]));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...at, k]));
  return [at];
}
/** every member of the valid request at any depth (objects and arrays too), by path */
export function members(v: unknown, at: Array<string | number> = []): JsonPath[] {
  const inner = Array.isArray(v) ? v.flatMap((x, i) => members(x, [...at, i])) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => members(x, [...at, k])) : [];
  return at.length ? [at, ...inner] : inner;
}
/** every object of the valid request, by path (the root too) */
export function objectPaths(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(v)) return v.flatMap((x, i) => objectPaths(x, [...at, i]));
  if (v && typeof v === 'object') return [at, ...Object.entries(v).flatMap(([k, x]) => objectPaths(x, [...at, k]))];
  return [];
}
export const NOT_UTF8: Array<[string, number[]]> = [
  ['byte 0xFF', [0xff]],
  ['an overlong quote (C0 A2)', [0xc0, 0xa2]],
  ['a lone continuation byte', [0x80]],
  ['a truncated sequence', [0xe2, 0x82]],
  ['a CESU-8 surrogate', [0xed, 0xa0, 0x80]],
];
export const keyed = (p: JsonPath) => typeof p[p.length - 1] === 'string';
export const valueAt = (v: unknown, p: JsonPath) => p.reduce((o: any, k) => o?.[k], v);

