import { type JsNode, childrenOf } from './parser.js';

/**
 * `with (obj) body` makes every free name in the body a possible member of obj: `with
 * (require('child_process')) execSync(cmd)` calls child_process.execSync, which the resolver, reading
 * `execSync` as a name of its own, never saw. `with` exists only in sloppy-mode scripts (modules and
 * TypeScript are strict), so each call of a bare name in the body is also checked as a call of that
 * member of every value the object may be.
 */
export function* withMemberCalls(stmt: JsNode, objectQuals: readonly string[]): Generator<[call: JsNode, qualified: string]> {
  if (!objectQuals.length) return;
  const stack: JsNode[] = [stmt.body as JsNode];
  while (stack.length) {
    const n = stack.pop()!;
    const callee = n.callee as JsNode | undefined;
    if ((n.type === 'CallExpression' || n.type === 'NewExpression') && callee?.type === 'Identifier') {
      for (const q of objectQuals) yield [n, `${q}.${callee.name as string}`];
    }
    stack.push(...childrenOf(n));
  }
}
