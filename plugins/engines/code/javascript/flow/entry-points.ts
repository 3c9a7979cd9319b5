import type { JsNode } from '../parser.js';

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
