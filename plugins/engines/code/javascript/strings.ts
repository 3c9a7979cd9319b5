import type { JsNode } from './parser.js';
import { type JsResolver, propName } from './resolve.js';
import { COMPUTED_TAIL } from '../git-options.js';

/**
 * What the tree proves about string values beyond constant folding: the known prefix of an argv
 * item, and whether a value may be a string rather than a function (a timer evaluates a string).
 */

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

/** Calls whose result is a string (or another non-function a timer would stringify and evaluate). */
const STRING_FUNCTIONS = new Set(['String', 'JSON.stringify', 'atob', 'decodeURIComponent', 'decodeURI', 'unescape', 'escape', 'encodeURIComponent', 'encodeURI', 'localStorage.getItem', 'sessionStorage.getItem', 'prompt', 'Number', 'Array']);
const STRING_METHODS = new Set([
  'toString', 'slice', 'substring', 'substr', 'trim', 'trimStart', 'trimEnd', 'replace', 'replaceAll', 'toLowerCase', 'toUpperCase', 'toLocaleLowerCase',
  'toLocaleUpperCase', 'concat', 'repeat', 'padStart', 'padEnd', 'join', 'normalize', 'charAt', 'getAttribute', 'getItem', 'readFileSync', 'split', 'map', 'filter',
]);
const NEW_NON_FUNCTION = new Set(['String', 'Number', 'Boolean', 'Array', 'Date', 'URL', 'URLSearchParams']);
/** Properties that hold text read from the page or the user: `location.hash`, an input's `value`, `textContent`. */
const STRING_PROPS = new Set(['value', 'textContent', 'innerText', 'innerHTML', 'outerHTML', 'nodeValue']);
const STRING_GLOBALS = /^(location(\.\w+)?|document\.(cookie|URL|documentURI|referrer|domain|title|baseURI)|window\.name|self\.name)$/;
/** Expressions whose value is never a function. */
const NON_FUNCTION = new Set(['Literal', 'TemplateLiteral', 'BinaryExpression', 'UnaryExpression', 'UpdateExpression', 'ArrayExpression', 'ObjectExpression']);

/**
 * A timer's first argument that may be a string (or another non-function, which a browser turns
 * into a string and evaluates): a literal, an operator's result, a string method's or String()'s
 * result, page text (`location.hash`, an input's `value`), or a name any binding of which is one of
 * these. A parameter, a member or a call of unknown type is taken as the callback it usually is.
 */
export function mayBeString(r: JsResolver, node: JsNode, depth = 0, seen = new Set<JsNode>()): boolean {
  if (depth > 16 || seen.has(node)) return false;
  seen.add(node);
  if (NON_FUNCTION.has(node.type)) return true;
  const next = (x: unknown): boolean => !!x && mayBeString(r, x as JsNode, depth + 1, seen);
  switch (node.type) {
    case 'Identifier':
      return (r.bindings.get(node.name as string) ?? []).some((b) => b.kind === 'expr' && next(b.node));
    case 'ParenthesizedExpression':
    case 'ChainExpression':
      return next(node.expression);
    case 'ConditionalExpression':
      return next(node.consequent) || next(node.alternate);
    case 'LogicalExpression':
      return next(node.left) || next(node.right);
    case 'AssignmentExpression':
      return next(node.right);
    case 'SequenceExpression':
      return next((node.expressions as JsNode[])[(node.expressions as JsNode[]).length - 1]);
    case 'MemberExpression': {
      const prop = propName(node, (x) => r.fold(x));
      return (prop !== null && STRING_PROPS.has(prop)) || r.qualify(node).some((q) => STRING_GLOBALS.test(q));
    }
    case 'NewExpression':
      // new String(x), new Array(…): objects a timer stringifies (new Object(f) is f itself)
      return r.qualify(node.callee as JsNode).some((q) => NEW_NON_FUNCTION.has(q));
    case 'CallExpression': {
      const callee = node.callee as JsNode;
      const method = callee.type === 'MemberExpression' ? propName(callee, (x) => r.fold(x)) : null;
      return (method !== null && STRING_METHODS.has(method)) || r.qualify(callee).some((q) => STRING_FUNCTIONS.has(q));
    }
  }
  return false;
}
