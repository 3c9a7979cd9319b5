import { type PyNode, field } from './parser.js';
import { type Resolver, positionalArgs } from './resolve.js';
import { type Report, RISKY_MODULES } from './rules.js';

/**
 * A module's namespace dictionary (`vars(os)`, `os.__dict__`, `getattr(os, '__dict__')`) holds every
 * function of the module. Looked up by a constant key it is resolved like an attribute
 * (`vars(os)['system']` is `os.system`, which the call rules see); any other use hands out functions
 * the rules cannot name: `[v for k, v in vars(os).items() if k == 'sys' + 'tem'][0]('id')`. Such a use
 * is a computed lookup on a module, as `getattr(os, name)` is.
 */
export class ModuleNamespace {
  constructor(
    private readonly r: Resolver,
    private readonly report: Report,
  ) {}

  /** The module whose namespace a qualified name is, if it is one (`sys.modules` holds every module). */
  private moduleOf(q: string): string | null {
    if (q === 'sys.modules') return q;
    if (!q.endsWith('.__dict__')) return null;
    const mod = q.slice(0, -9);
    return this.r.importedModules.has(mod) || RISKY_MODULES.has(mod) ? mod : null;
  }

  /** `node` evaluates to (possibly) a module's namespace: report it unless its use is a constant-key lookup. */
  check(node: PyNode, quals: readonly string[]): void {
    let mod: string | null = null;
    for (const q of quals) if ((mod = this.moduleOf(q)) !== null) break;
    if (mod === null || this.resolvedUse(node, mod === 'builtins', mod === 'sys.modules')) return;
    if (mod === 'sys.modules') this.report(node, 'HIGH', 'reflection', 'dangerous_call.namespace_dynamic', 'sys.modules is read by a computed name or handed out whole: it holds every loaded module (os, subprocess, builtins, …)');
    else this.report(node, 'HIGH', 'reflection', 'dangerous_call.namespace_dynamic', `the namespace of module ${mod} is read by a computed name or handed out whole: it holds every function of the module`);
  }

  /** inspect.getmembers(os) lists the same (name, function) pairs as vars(os).items(). */
  getmembers(call: PyNode, fnQuals: readonly string[]): void {
    if (!fnQuals.some((q) => q === 'inspect.getmembers' || q === 'inspect.getmembers_static')) return;
    const a0 = positionalArgs(call)[0];
    const mod = a0 ? this.r.qualify(a0).find((q) => this.moduleOf(`${q}.__dict__`) !== null) : undefined;
    if (mod !== undefined) this.report(call, 'HIGH', 'reflection', 'dangerous_call.namespace_dynamic', `inspect.getmembers(${mod}) hands out every function of the module`);
  }

  /**
   * Uses that do not hand the namespace out: a constant-key lookup (`[…]`, `.get(…)`), its names
   * (`.keys()`, `in`), writes (`[k] = v`, `del`, `.update`, `.clear`), and binding it to a name or
   * attribute, whose own uses are checked where they occur. On builtins a computed key is the subscript and `.get` rules' (namespace_dynamic already).
   */
  private resolvedUse(node: PyNode, builtins: boolean, modules: boolean): boolean {
    let n = node;
    let p = n.parent;
    while (p && p.type === 'parenthesized_expression') {
      n = p;
      p = p.parent;
    }
    if (!p) return false;
    if (p.type === 'subscript' && n.field === 'value') {
      const key = field(p, 'subscript');
      // a store or delete (`vars(m)[k] = v`, `del m.__dict__[k]`) reads no function out
      const target = (p.parent?.type === 'assignment' && p.field === 'left') || p.parent?.type === 'delete_statement';
      // sys.modules[__name__] is the running module itself
      const self = modules && key?.type === 'identifier' && key.text === '__name__';
      return target || builtins || self || (!!key && this.r.fold(key) !== null);
    }
    if (p.type === 'attribute' && n.field === 'object') {
      const name = (field(p, 'attribute') as PyNode).text;
      const call = p.parent;
      if (!call || call.type !== 'call' || p.field !== 'function') return false;
      // names only, or writes that return nothing
      if (name === 'keys' || name === 'update' || name === 'clear') return true;
      const key = positionalArgs(call)[0];
      // sys.modules.pop('m', None) (a test unloading a module) is resolved as sys.modules.get('m') is
      return (name === 'get' || (modules && name === 'pop')) && (builtins || (!!key && this.r.fold(key) !== null));
    }
    // iterating sys.modules, or listing it, yields module names only
    if (modules && p.type === 'for_statement' && n.field === 'right') return true;
    if (modules && p.type === 'argument_list' && p.parent?.type === 'call') {
      const fn = field(p.parent, 'function');
      return !!fn && fn.type === 'identifier' && ['list', 'sorted', 'set', 'len', 'tuple', 'frozenset'].includes(fn.text);
    }
    if (p.type === 'assignment' && n.field === 'right') {
      const left = field(p, 'left');
      return !!left && (left.type === 'identifier' || left.type === 'attribute');
    }
    if (p.type === 'named_expression' && n.field === 'value') return true;
    if (p.type === 'comparison_operator' && n.field !== 'left' && p.children.some((c) => c.field === 'operators' && (c.text === 'in' || c.text.replace(/\s+/g, ' ') === 'not in'))) return true;
    return false;
  }
}
