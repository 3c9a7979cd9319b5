import { type PyNode, field, namedChildren } from './parser.js';
import type { Resolver } from './resolve.js';
import type { Report } from './rules.js';

/**
 * Modules whose functions run programs or code. Bound to a name or an attribute (`m = os`,
 * `self.m = os`) they stay in the resolver's sight; handed on any other way — an argument, a return
 * value, a container element, a subscript store — they do not: `def get(): return os` then
 * `get().system(c)`, `l.append(os); l[0].system(c)`, `(lambda m: m)(os).system(c)` were admitted.
 * Such a use is reported as `os.system` taken as a value is.
 */
const CODE_MODULES = new Set(['os', 'subprocess', 'pty', 'builtins', 'importlib', 'ctypes', 'sys', 'runpy', 'code', 'popen2', '_winapi']);

/** Callables that read a module without handing it (or anything in it) on: any argument position. */
const READERS = new Set(['hasattr', 'isinstance', 'issubclass', 'id', 'print', 'repr', 'str', 'ascii', 'format', 'dir', 'type', 'callable', 'hash', 'bool', 'inspect.ismodule', 'inspect.getsource', 'inspect.getfile', 'inspect.getdoc']);
/** Callables whose first argument is the object they inspect or patch, judged by their own rules. */
const FIRST_ARG_RULED = new Set(['getattr', 'setattr', 'delattr', 'vars', 'inspect.getmembers', 'inspect.getmembers_static']);
/** Test doubles replace a module's attribute; they hand nothing of the module on. */
const PATCHERS = /(^|\.)(patch\.object|monkeypatch\.setattr|monkeypatch\.delattr)$/;

/** Containers and statements that carry a value out of the resolver's sight. */
const ESCAPES = new Set(['return_statement', 'yield', 'list', 'tuple', 'set', 'expression_list', 'list_splat', 'dictionary_splat', 'decorator', 'list_comprehension', 'set_comprehension', 'generator_expression', 'dictionary_comprehension', 'pair']);

export class ModuleValues {
  constructor(
    private readonly r: Resolver,
    private readonly report: Report,
  ) {}

  /**
   * `node` (a name, attribute or subscript read) evaluates to `quals`: report a code module handed
   * on. `imported`: count only modules an import statement names (false for `sys.modules['os']`).
   */
  check(node: PyNode, quals: readonly string[], imported = true): void {
    // a name the program never imported as a module (a variable `code`) is not the module
    const mod = quals.find((q) => CODE_MODULES.has(q) && (!imported || this.r.importedModules.has(q)));
    if (mod === undefined || !this.escapes(node)) return;
    this.report(node, 'HIGH', 'code_execution', 'dangerous_call.module_reference', `module ${mod} is handed on as a value (argument, return value, container element or store): what receives it can call anything in it`);
  }

  private escapes(node: PyNode): boolean {
    let n = node;
    let p = n.parent;
    // the value of `(os)`, `os if c else sys`, `a or os` is the module itself
    while (p && (p.type === 'parenthesized_expression' || p.type === 'boolean_operator' || (p.type === 'conditional_expression' && namedChildren(p)[1] !== n))) {
      n = p;
      p = p.parent;
    }
    if (!p) return false;
    if (p.type === 'keyword_argument' && n.field === 'value') {
      n = p;
      p = p.parent;
      if (!p) return false;
    }
    if (p.type === 'argument_list') return this.handedToCall(p, n);
    if (p.type === 'lambda') return n.field === 'body';
    if (p.type === 'assignment' || p.type === 'augmented_assignment') {
      if (n.field !== 'right') return false;
      const left = field(p, 'left');
      // `m = os` and `obj.m = os` are bindings the resolver follows; `d[k] = os`, `a, *b = …` are not
      return p.type === 'augmented_assignment' || !left || (left.type !== 'identifier' && left.type !== 'attribute');
    }
    return ESCAPES.has(p.type) && !(p.type === 'pair' && n.field !== 'value');
  }

  private handedToCall(args: PyNode, arg: PyNode): boolean {
    const call = args.parent;
    if (!call || call.type !== 'call') return true; // a class's bases or keywords
    const fn = field(call, 'function');
    const quals = fn ? this.r.qualify(fn) : [];
    if (quals.some((q) => READERS.has(q) || PATCHERS.test(q))) return false;
    const first = namedChildren(args)[0] === arg;
    return !(first && quals.some((q) => FIRST_ARG_RULED.has(q)));
  }
}
