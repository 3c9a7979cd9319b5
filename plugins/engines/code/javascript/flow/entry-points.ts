import type { JsNode } from '../parser.js';
import { type Flow, type V, ALL_CATS } from '../../python/flow/index.js';
import { source } from './value.js';

export type HandlerKind = 'express' | 'koa';

/** A plain function's caller is other code, not a client: its parameters count for the code-running sinks only. */
const LIBRARY_PARAM_CLEAN = new Set(ALL_CATS.filter((c) => !['cmdi', 'codeinj', 'deserialization', 'sqli'].includes(c)));

/** How other code calls a function run as an entry point: a route handler (by its parameters' names), or a library function given data. */
export function entryCall(fn: JsNode): HandlerKind | V[] {
  const params = fn.params as JsNode[];
  const names = params.map((p) => (p.type === 'Identifier' ? (p.name as string) : ''));
  if (/^(ctx|context)$/.test(names[0] ?? '')) return 'koa';
  if (/^(req|request)$/i.test(names[0] ?? '') && /^(res|response|reply)$/i.test(names[1] ?? '')) return 'express';
  return params.map((p) => {
    const v = source(`parameter ${p.type === 'Identifier' ? (p.name as string) : '(pattern)'}`, p);
    return { flow: { ...(v.flow as Flow), clean: LIBRARY_PARAM_CLEAN } } as V;
  });
}

/**
 * Which functions other code may call, and so run with parameters of unknown origin: the analysis
 * enters each of them as an entry point, and judges a function that is only called here by its callers.
 */

/** Names that are only ever called in the file (never read as a value, exported or stored). */
export function calleeOnlyNames(order: readonly JsNode[]): Set<string> {
  const seen = new Map<string, boolean>();
  for (const n of order) {
    if (n.type !== 'Identifier') continue;
    const p = n.parent as JsNode | undefined;
    const key = n.parentKey as string;
    if (!p) continue;
    // declarations and property names are not uses
    if ((p.type === 'FunctionDeclaration' || p.type === 'VariableDeclarator') && key === 'id') continue;
    if ((p.type === 'MemberExpression' && key === 'property' && !p.computed) || (p.type === 'Property' && key === 'key' && !p.computed && !p.shorthand)) continue;
    const called = (p.type === 'CallExpression' || p.type === 'NewExpression') && key === 'callee';
    const name = n.name as string;
    seen.set(name, (seen.get(name) ?? true) && called);
  }
  return new Set([...seen].filter(([, only]) => only).map(([k]) => k));
}

/** A function other code may call: not a declaration or `const f = …` whose name is only called, nor a callback handed to a call. */
export function escapes(fn: JsNode, callees: ReadonlySet<string>): boolean {
  const p = fn.parent as JsNode | undefined;
  const name = fn.type === 'FunctionDeclaration' ? ((fn.id as JsNode | null)?.name as string | undefined) : p?.type === 'VariableDeclarator' && (p.id as JsNode).type === 'Identifier' ? ((p.id as JsNode).name as string) : undefined;
  if (name !== undefined) return !callees.has(name);
  if (p && (p.type === 'CallExpression' || p.type === 'NewExpression') && fn.parentKey === 'arguments') return false;
  return true;
}
