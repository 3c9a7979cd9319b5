import { type JsNode, parentOf } from './parser.js';
import { type JsResolver, propName } from './resolve.js';
import type { Severity } from '../types.js';

export const CHILD = 'child_process';
export const SHELL_EXEC = new Set([`${CHILD}.exec`, `${CHILD}.execSync`]);
export const ARGV_EXEC = new Set([`${CHILD}.spawn`, `${CHILD}.spawnSync`, `${CHILD}.execFile`, `${CHILD}.execFileSync`, `${CHILD}.fork`]);
export const VM_EXEC = new Set(['vm.runInNewContext', 'vm.runInThisContext', 'vm.runInContext', 'vm.compileFunction', 'vm.Script', 'vm.SourceTextModule']);
/** Functions that run a program or code: passed on as values, they run with arguments the rules never see. */
const RUNS = new Set([...SHELL_EXEC, ...ARGV_EXEC, ...VM_EXEC]);
/** Modules holding such functions: handed on whole, any of them may be called (`Object.values(cp)[i](c)`). */
const CODE_MODULES = new Set([CHILD, 'vm']);
const GLOBAL_OBJECTS = new Set(['window', 'globalThis', 'global', 'self', 'frames', 'top', 'parent']);
/** Calls that return their function argument under another name; the resolver sees through them. */
const WRAPPERS = new Set(['util.promisify', 'util.callbackify']);
/** Parents through which an expression's value is the value of the whole. */
const TRANSPARENT = new Set(['ConditionalExpression', 'LogicalExpression', 'SequenceExpression', 'ParenthesizedExpression', 'AwaitExpression', 'ChainExpression']);
/** Where a value leaves what the resolver follows: arguments, returns, array elements, spreads (an export, like `module.exports = cp`, runs nothing here). */
const ESCAPES = new Set(['ArrayExpression', 'SpreadElement', 'ReturnStatement', 'YieldExpression']);

type Report = (n: JsNode, severity: Severity, type: string, rule: string, message: string) => void;

/** Values that stand for code: eval and Function, child_process and vm functions and modules, the global object. */
export class JsReferences {
  constructor(
    private readonly r: JsResolver,
    private readonly report: Report,
  ) {}

  /** `window[name](…)`: a computed lookup on the global object reaches eval/Function by any name. */
  globalLookup(n: JsNode): void {
    const prop = n.property as JsNode;
    if (!n.computed || this.r.fold(prop) !== null || (prop.type === 'Literal' && typeof prop.value !== 'object')) return;
    const obj = n.object as JsNode;
    if (obj.type !== 'Identifier' || !GLOBAL_OBJECTS.has(obj.name as string)) return;
    const p = parentOf(n);
    const called = !!p && (p.type === 'CallExpression' || p.type === 'NewExpression') && n.parentKey === 'callee';
    this.report(n, called ? 'HIGH' : 'MEDIUM', 'reflection', 'dangerous_call.global_dynamic', `computed lookup on ${obj.name as string}${called ? ' called as a function' : ''}`);
  }

  reference(n: JsNode): void {
    const p = parentOf(n);
    if (!p) return;
    const key = n.parentKey as string;
    // only reads of a value: not declarations, property names, labels or the callee (reported as a call)
    if ((p.type === 'MemberExpression' && key === 'property' && !p.computed) || ((p.type === 'Property' || p.type === 'PropertyDefinition' || p.type === 'MethodDefinition') && key === 'key' && !p.computed)) return;
    if (['VariableDeclarator', 'FunctionDeclaration', 'FunctionExpression', 'ClassDeclaration', 'ClassExpression'].includes(p.type) && key === 'id') return;
    if (['ImportSpecifier', 'ImportDefaultSpecifier', 'ImportNamespaceSpecifier', 'ExportSpecifier', 'LabeledStatement', 'BreakStatement', 'ContinueStatement', 'CatchClause'].includes(p.type)) return;
    if (key === 'params' || ((p.type === 'CallExpression' || p.type === 'NewExpression') && key === 'callee')) return;
    if (p.type === 'AssignmentExpression' && key === 'left') return;
    // reading a property (`Function.prototype`, `Function.toString`) is not using the function;
    // call/apply/bind/constructor are (`Function.call(null, src)`, `eval.call(null, x)`)
    let via: string | null = null;
    if (p.type === 'MemberExpression' && key === 'object') {
      via = propName(p, (x) => this.r.fold(x));
      if (via === null || !['call', 'apply', 'bind', 'constructor'].includes(via)) return;
    }
    const quals = this.r.qualify(n);
    for (const q of quals) {
      if (q === 'eval' || q === 'Function') this.report(n, 'HIGH', 'code_execution', 'dangerous_call.reference', `${q} is taken as a value (${(n.name as string | undefined) ?? q})`);
      // `cp.exec.call(t, c)` and `.bind` are followed to the call; a destructuring name is a binding, not a use
      else if (RUNS.has(q) && via === null && !this.inPattern(n, p) && !this.wrapped(p, key)) {
        this.report(n, 'HIGH', 'code_execution', 'dangerous_call.reference', `${q} is taken as a value (${(n.name as string | undefined) ?? q}): it runs what it is later given, out of the rules' sight`);
      }
    }
    if (via === null) this.moduleValue(n, quals);
  }

  /**
   * child_process or vm itself handed on — as an argument, a return value, an array element, a
   * spread — rather than bound to a name or read by a member the rules see.
   */
  moduleValue(n: JsNode, known?: readonly string[]): void {
    let x = n;
    let p = parentOf(x);
    while (p && TRANSPARENT.has(p.type) && !(p.type === 'ConditionalExpression' && x.parentKey === 'test')) {
      x = p;
      p = parentOf(x);
    }
    if (!p) return;
    const key = x.parentKey as string;
    const escapes = ESCAPES.has(p.type) || (p.type === 'ArrowFunctionExpression' && key === 'body') || ((p.type === 'CallExpression' || p.type === 'NewExpression') && key === 'arguments' && !this.onlyReads(p, x));
    if (!escapes) return;
    const mod = (known ?? this.r.qualify(n)).find((q) => CODE_MODULES.has(q));
    if (mod !== undefined) this.report(n, 'HIGH', 'code_execution', 'dangerous_call.module_reference', `module ${mod} is handed on as a value (argument, return value or array element): what receives it can call any of its functions`);
  }

  /** console.log(cp) prints it; `f.bind(cp)` / `.call(cp, …)` make it only `this` of a function the rules follow. */
  private onlyReads(call: JsNode, arg: JsNode): boolean {
    const callee = call.callee as JsNode;
    if (callee.type === 'MemberExpression' && (call.arguments as JsNode[])[0] === arg && ['bind', 'call', 'apply'].includes(propName(callee, (x) => this.r.fold(x)) ?? '')) return true;
    return this.r.qualify(callee).some((q) => q.startsWith('console.'));
  }

  /** `Reflect.get(globalThis, name)` (or its property descriptor) is `globalThis[name]`. */
  reflectedGlobal(n: JsNode, q: string, args: JsNode[]): void {
    if (q !== 'Reflect.get' && q !== 'Object.getOwnPropertyDescriptor' && q !== 'Reflect.getOwnPropertyDescriptor') return;
    const [obj, key] = args;
    if (!obj || obj.type !== 'Identifier' || !GLOBAL_OBJECTS.has(obj.name as string) || (key && this.r.fold(key) !== null)) return;
    let up = parentOf(n);
    if (up && up.type === 'MemberExpression' && n.parentKey === 'object') up = parentOf(up);
    const called = !!up && up.type === 'CallExpression';
    this.report(n, called ? 'HIGH' : 'MEDIUM', 'reflection', 'dangerous_call.global_dynamic', `${q}(${obj.name as string}, <computed>)${called ? ' called as a function' : ''}: a computed lookup on the global object`);
  }

  /** A name in a destructuring pattern (`const { exec } = cp`): the binding the resolver follows. */
  private inPattern(n: JsNode, p: JsNode): boolean {
    if (p.type === 'ArrayPattern' || p.type === 'RestElement' || (p.type === 'AssignmentPattern' && n.parentKey === 'left')) return true;
    return p.type === 'Property' && parentOf(p)?.type === 'ObjectPattern';
  }

  /** The argument of util.promisify / callbackify: the wrapper's calls are resolved to it. */
  private wrapped(p: JsNode, key: string): boolean {
    return p.type === 'CallExpression' && key === 'arguments' && this.r.qualify(p.callee as JsNode).some((q) => WRAPPERS.has(q));
  }
}
