import type { JsNode } from './parser.js';
import type { JsResolver } from './resolve.js';
import { COMPUTED_TAIL } from '../git-options.js';

/** What the tree proves about string values beyond constant folding. */

/** An argv item's value, or its known prefix ended by COMPUTED_TAIL (`'user.name=' + n`, `` `k=${v}` ``), or null. */
export function markedItem(r: JsResolver, node: JsNode, depth = 0): string | null {
  const v = r.fold(node);
  if (v !== null || depth > 8) return v;
  if (node.type === 'TemplateLiteral') {
    const first = ((node.quasis as JsNode[])[0]?.value as { cooked: string | null } | undefined)?.cooked;
    return first === null || first === undefined ? null : first + COMPUTED_TAIL;
  }
  if (node.type === 'BinaryExpression' && node.operator === '+') {
    const l = markedItem(r, node.left as JsNode, depth + 1);
    return l === null || l.includes(COMPUTED_TAIL) ? l : l + COMPUTED_TAIL;
  }
  return null;
}
