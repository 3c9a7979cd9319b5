import { type PyNode, field, namedChildren } from './parser.js';
import { type Resolver, RISKY_BUILTINS, canonical, ident, keywordArg, positionalArgs } from './resolve.js';
import type { Report } from './rules.js';

/**
 * Calls that run code the engine reads as data: doctest runs the `>>>` examples of docstrings, text
 * files and strings as Python source (exec by another name), and logging.config builds objects by
 * calling the callables a configuration names — a `'()'` or `'class'` entry (`'()': 'os.system'` is
 * called with the entry's other keys), the eval'd `args` of a fileConfig file, or whatever arrives on
 * `listen()`'s socket.
 */

/** doctest entry points that run examples (or build test cases that unittest runs). */
const DOCTEST_RUNNERS = new Set([
  'doctest.testmod', 'doctest.testfile', 'doctest.run_docstring_examples', 'doctest.DocTestSuite', 'doctest.DocFileSuite', 'doctest.DocFileTest',
  'doctest.DocTestCase', 'doctest.DocFileCase', 'doctest.debug', 'doctest.debug_src', 'doctest.debug_script', 'doctest._test',
  'doctest.DocTestRunner().run', 'doctest.DebugRunner().run', 'doctest.DocTestRunner.run', 'doctest.DebugRunner.run',
]);
/** doctest functions whose first argument may be the examples' source text itself. */
const DOCTEST_SOURCE = new Set(['doctest.run_docstring_examples', 'doctest.debug_src', 'doctest.debug_script']);
/** Subclassed, these run examples under another name (`class R(doctest.DocTestRunner)` then `R().run(t)`). */
const DOCTEST_CLASSES = new Set(['doctest.DocTestRunner', 'doctest.DebugRunner', 'doctest.DocTestCase', 'doctest.DocFileCase']);
/** Take a whole dictConfig configuration. */
const DICT_CONFIG = new Set(['logging.config.dictConfig', 'logging.config.DictConfigurator', 'logging.config.dictConfigClass']);
/** Configurator methods that take one object's configuration (`{'()': …, …}`). */
const CONFIGURE_ONE = /^logging\.config\.(DictConfigurator|dictConfigClass)\(\)\.configure_(custom|handler|formatter|filter)$/;
const SECTIONS = new Set(['formatters', 'filters', 'handlers', 'loggers']);

/**
 * Modules and builtins a configuration's factory must not name: what runs programs, code or the
 * file system, loads data that runs code, or opens a debugger (`'()': 'subprocess.Popen'`, `'class':
 * 'shutil.rmtree'`, `'()': 'builtins.eval'`). Logging's own classes and an application's are fine.
 */
const FACTORY_RISKY_HEADS = new Set([
  'os', 'subprocess', '_winapi', 'popen2', 'pty', 'builtins', 'importlib', 'imp', 'runpy', 'code', 'codeop', 'ctypes', 'cffi', 'sys', 'shutil', 'socket',
  'marshal', 'pickle', 'shelve', 'dill', 'cloudpickle', 'jsonpickle', 'yaml', 'joblib', 'pdb', 'bdb', 'ipdb', 'pudb', 'remote_pdb', 'rpdb', 'web_pdb', 'debugpy',
  'IPython', 'doctest', 'profile', 'cProfile', 'trace', 'timeit', 'pydoc', 'pkgutil', 'types', 'operator', 'webbrowser', 'multiprocessing',
  'asyncio', 'platform', 'distutils', 'setuptools', 'pexpect', 'wexpect', 'ptyprocess', 'sh', 'plumbum', 'invoke', 'fabric', 'delegator', 'envoy',
  'io', '_io', 'pathlib', 'codecs', 'tempfile', 'tarfile', 'zipfile', 'urllib',
]);
const FACTORY_RISKY_NAMES = new Set(['torch.load', 'numpy.load', 'pandas.read_pickle', 'pandas.eval']);

export function isDangerousFactory(q: string): boolean {
  const name = q.replace(/\(\)$/, '');
  const dot = name.indexOf('.');
  const head = dot < 0 ? name : name.slice(0, dot);
  return RISKY_BUILTINS.has(name) || FACTORY_RISKY_HEADS.has(head) || FACTORY_RISKY_NAMES.has(name) || name.startsWith('logging.config.');
}

/** Names that run hidden code when called, for the rule on dangerous callables passed as values. */
export function runsHiddenCode(q: string): boolean {
  return DOCTEST_RUNNERS.has(q) || DICT_CONFIG.has(q) || q === 'logging.config.listen' || q === 'logging.config.fileConfig';
}

type Mode = 'root' | 'section' | 'config' | 'factory' | 'leaf';
type Entry = { key: string | null; value: PyNode } | { splat: true };
interface Problem {
  factory: boolean;
  why: string;
}

export class HiddenCode {
  /** value uses of each name, built on first need */
  private uses: Map<string, PyNode[]> | null = null;
  private readonly inspectable = new Map<string, boolean>();

  constructor(
    private readonly r: Resolver,
    private readonly report: Report,
    private readonly nodes: readonly PyNode[],
  ) {}

  call(n: PyNode, quals: readonly string[]): void {
    for (const q of quals) {
      if (DOCTEST_RUNNERS.has(q)) {
        const a0 = DOCTEST_SOURCE.has(q) ? positionalArgs(n)[0] : undefined;
        const constant = !!a0 && this.r.fold(a0) !== null;
        // a name or attribute is usually the function or module whose docstrings run
        const computed = !!a0 && !constant && !['identifier', 'attribute'].includes(a0.type);
        const src = constant ? 'a constant string' : computed ? 'a computed string' : 'docstrings, strings or text files';
        this.report(n, computed ? 'CRITICAL' : 'HIGH', 'code_execution', 'dangerous_call.code_string', `${q}() runs the examples in ${src} as Python source, as exec() does`);
        return;
      }
      if (q === 'logging.config.listen') {
        this.report(n, 'HIGH', 'code_execution', 'dangerous_call.logging_config', 'logging.config.listen() applies logging configuration received on a socket: a configuration names callables that it calls');
        return;
      }
      if (q === 'logging.config.fileConfig') {
        this.report(n, 'HIGH', 'code_execution', 'dangerous_call.logging_config', "logging.config.fileConfig() evaluates the file's args/kwargs entries as Python and calls the classes it names");
        return;
      }
      if (DICT_CONFIG.has(q) || CONFIGURE_ONE.test(q)) {
        const arg = positionalArgs(n)[0] ?? keywordArg(n, 'config');
        const p = arg ? this.inspect(arg, DICT_CONFIG.has(q) ? 'root' : 'config', 0) : { factory: false, why: 'none is given' };
        if (p === null) return;
        if (p.factory) this.report(n, 'CRITICAL', 'code_execution', 'dangerous_call.logging_config', `${q}() is given ${p.why}, which it calls with the entry's other keys`);
        else this.report(n, 'HIGH', 'code_execution', 'dangerous_call.logging_config', `${q}() is given a configuration the tree does not show in full (${p.why}): a "()" or "class" entry in it names a callable that it calls`);
        return;
      }
    }
  }

  /** `class R(doctest.DocTestRunner)`: its instances run examples. */
  classDefinition(n: PyNode): void {
    const bases = field(n, 'superclasses');
    for (const b of bases ? namedChildren(bases) : []) {
      const q = b.type === 'keyword_argument' ? undefined : this.r.qualify(b).find((x) => DOCTEST_CLASSES.has(x));
      if (q !== undefined) this.report(n, 'HIGH', 'code_execution', 'dangerous_call.code_string', `a subclass of ${q} runs the examples of docstrings as Python source, as exec() does`);
    }
  }

  /** what a name followed in a mode holds: names are shared by every place that uses them */
  private readonly named = new Map<string, Problem | null>();

  private inspect(node: PyNode, mode: Mode, depth: number): Problem | null {
    if (depth > 24) return { factory: false, why: 'nested too deep to inspect' };
    if (node.type === 'identifier' && mode !== 'leaf') {
      const key = `${mode}:${ident(node.text)}`;
      if (this.named.has(key)) return this.named.get(key) as Problem | null;
      // a name met again while it is inspected (`A = {'x': A}`) is not a configuration
      this.named.set(key, { factory: false, why: 'a configuration that holds itself' });
      const p = this.inspectOnce(node, mode, depth);
      this.named.set(key, p);
      return p;
    }
    return this.inspectOnce(node, mode, depth);
  }

  private inspectOnce(node: PyNode, mode: Mode, depth: number): Problem | null {
    if (mode === 'factory' && this.r.fold(node) !== null) return this.factory(node);
    const entries = mode === 'leaf' ? this.leafEntries(node) : this.entries(node, depth);
    if (entries === null) return mode === 'leaf' ? null : { factory: false, why: 'a part of it is computed or bound elsewhere' };
    for (const e of entries) {
      if ('splat' in e) {
        if (mode === 'leaf') continue;
        return { factory: false, why: '** may add a "()" entry' };
      }
      if (e.key === null) {
        if (mode === 'leaf') continue;
        return { factory: false, why: 'a computed key may be "()"' };
      }
      const sub: Mode | 'judge' =
        e.key === '()' || e.key === 'class' ? 'judge'
        : mode === 'root' ? (SECTIONS.has(e.key) ? 'section' : e.key === 'root' ? 'config' : 'leaf')
        : mode === 'section' ? 'config'
        : mode === 'config' && (e.key === 'queue' || e.key === 'listener') ? 'factory'
        : 'leaf';
      const p = sub === 'judge' ? this.factory(e.value) : this.inspect(e.value, sub, depth + 1);
      if (p !== null) return p;
    }
    return null;
  }

  /**
   * A factory entry's value: a dotted name (or `ext://` name) string, an element of a constant table
   * (`handler_classes['stream']`), `functools.partial(X, …)` of one, or a callable the program names.
   * A callable computed at run time (a call's result) is not shown.
   */
  private factory(value: PyNode, depth = 0): Problem | null {
    const computed = { factory: false, why: 'a factory chosen at run time' };
    if (depth > 8) return computed;
    const s = this.r.fold(value);
    if (s !== null) {
      const name = canonical(s.trim().replace(/^ext:\/\//, ''));
      return isDangerousFactory(name) ? { factory: true, why: `the factory ${JSON.stringify(s)}` } : null;
    }
    if (value.type === 'call' && this.r.qualify(field(value, 'function') as PyNode).includes('functools.partial')) {
      const target = positionalArgs(value)[0];
      return target ? this.factory(target, depth + 1) : computed;
    }
    if (value.type === 'subscript') {
      const table = this.tableValues(field(value, 'value') as PyNode);
      if (table !== null) {
        for (const v of table) {
          const p = this.factory(v, depth + 1);
          if (p !== null) return p;
        }
        return null;
      }
    }
    // a call's result (`f()`) is not a name: only resolved names are judged
    const named = this.r.qualify(value).filter((q) => !q.endsWith(')'));
    const bad = named.find(isDangerousFactory);
    if (bad !== undefined) return { factory: true, why: `the factory ${bad}` };
    if (value.type === 'identifier') {
      // a def, class, import or parameter is the program's own callable (a dangerous one passed in is a reference, judged where it is passed)
      const unknown = (this.r.bindings.get(ident(value.text)) ?? []).some((b) => b.kind === 'expr' && b.node.type !== 'lambda' && this.r.qualify(b.node).every((q) => q.endsWith(')')));
      return unknown ? computed : null;
    }
    return named.length || value.type === 'attribute' || value.type === 'lambda' ? null : computed;
  }

  /** The values of a name bound only to dict/list/tuple literals and only read by subscript (`t[k]`, never written). */
  private tableValues(node: PyNode): PyNode[] | null {
    if (node.type !== 'identifier') return null;
    const name = ident(node.text);
    const bindings = this.r.bindings.get(name) ?? [];
    if (!bindings.length || !bindings.every((b) => b.kind === 'expr' && ['dictionary', 'list', 'tuple'].includes(b.node.type))) return null;
    for (const u of this.usesOf(name)) {
      const p = u.parent as PyNode;
      const target = p.parent && ['assignment', 'augmented_assignment'].includes(p.parent.type) && p.field === 'left';
      if (p.type !== 'subscript' || u.field !== 'value' || target || p.parent?.type === 'delete_statement') return null;
    }
    const out: PyNode[] = [];
    for (const b of bindings) {
      if (b.kind !== 'expr') continue;
      for (const c of namedChildren(b.node)) {
        const v = c.type === 'pair' ? field(c, 'value') : c.type === 'dictionary_splat' || c.type === 'list_splat' ? null : c;
        if (v === null) return null;
        out.push(v);
      }
    }
    return out;
  }

  /** Literal containers under a leaf key: their `"()"`/`"class"` entries are still judged. */
  private leafEntries(node: PyNode): Entry[] | null {
    if (node.type === 'dictionary') return this.dictEntries(node);
    if (['list', 'tuple', 'set'].includes(node.type)) return namedChildren(node).map((c) => ({ key: '', value: c }));
    return null;
  }

  private dictEntries(node: PyNode): Entry[] {
    return namedChildren(node).flatMap((c): Entry[] => {
      if (c.type === 'dictionary_splat') return [{ splat: true }];
      if (c.type !== 'pair') return [{ splat: true }];
      const key = field(c, 'key') as PyNode;
      const value = field(c, 'value') as PyNode;
      const k = this.r.fold(key);
      // a number, True or None is not the string "()"
      return [{ key: k ?? (['integer', 'float', 'true', 'false', 'none'].includes(key.type) ? '#' : null), value }];
    });
  }

  /** The entries a configuration may hold: a dict literal, `dict(k=v)`, or a name bound only to those and used only as a configuration. */
  private entries(node: PyNode, depth: number): Entry[] | null {
    if (depth > 24) return null;
    if (node.type === 'parenthesized_expression') return namedChildren(node)[0] ? this.entries(namedChildren(node)[0], depth + 1) : null;
    if (node.type === 'dictionary') return this.dictEntries(node);
    if (node.type === 'call' && this.isDictCall(node)) {
      return namedChildren(field(node, 'arguments') as PyNode).map((c): Entry => (c.type === 'keyword_argument' ? { key: ident((field(c, 'name') as PyNode).text), value: field(c, 'value') as PyNode } : { splat: true }));
    }
    if (node.type !== 'identifier' || !this.nameInspectable(ident(node.text), new Set())) return null;
    const out: Entry[] = [];
    for (const b of this.r.bindings.get(ident(node.text)) ?? []) {
      const e = b.kind === 'expr' ? this.entries(b.node, depth + 1) : null;
      if (e === null) return null;
      out.push(...e);
    }
    return out;
  }

  private isDictCall(node: PyNode): boolean {
    const fn = field(node, 'function');
    return !!fn && fn.type === 'identifier' && ident(fn.text) === 'dict' && this.r.qualify(fn).every((q) => q === 'dict');
  }

  private isConfigCall(node: PyNode | null): boolean {
    const fn = node && node.type === 'call' ? field(node, 'function') : null;
    return !!fn && this.r.qualify(fn).some((q) => DICT_CONFIG.has(q) || CONFIGURE_ONE.test(q));
  }

  /**
   * A name whose every binding is a configuration literal and whose every use hands it to
   * dictConfig (directly or inside another such literal): then nothing else can add a `"()"` entry
   * to it (`CFG['handlers']['h'] = {…}`, `CFG.update(…)`, passing it elsewhere all make it unknown).
   */
  private nameInspectable(name: string, visiting: Set<string>): boolean {
    const memo = this.inspectable.get(name);
    if (memo !== undefined) return memo;
    if (visiting.has(name)) return false;
    visiting.add(name);
    const bindings = this.r.bindings.get(name) ?? [];
    const literal = (n: PyNode): boolean => n.type === 'dictionary' || (n.type === 'call' && this.isDictCall(n));
    const ok = bindings.length > 0 && bindings.every((b) => b.kind === 'expr' && literal(b.node)) && this.usesOf(name).every((u) => this.configUse(u, visiting));
    this.inspectable.set(name, ok);
    return ok;
  }

  /** A use of a name that only hands its value to a configuration. */
  private configUse(x: PyNode, visiting: Set<string>): boolean {
    let c = x;
    let p = x.parent;
    while (p && ((p.type === 'pair' && c.field === 'value') || ['dictionary', 'list', 'tuple', 'parenthesized_expression'].includes(p.type))) {
      c = p;
      p = p.parent;
    }
    if (p && p.type === 'keyword_argument' && c.field === 'value') {
      c = p;
      p = p.parent;
    }
    if (p && p.type === 'argument_list') return this.isConfigCall(p.parent) || (this.isDictCall(p.parent as PyNode) && this.configUse(p.parent as PyNode, visiting));
    const left = p && p.type === 'assignment' && c.field === 'right' ? field(p, 'left') : null;
    return !!left && left.type === 'identifier' && this.nameInspectable(ident(left.text), visiting);
  }

  private usesOf(name: string): PyNode[] {
    if (!this.uses) {
      this.uses = new Map();
      for (const n of this.nodes) {
        if (n.type !== 'identifier' || !n.parent) continue;
        const p = n.parent;
        // not a read of the variable: an attribute name, a keyword, a binding target, a declaration
        if ((p.type === 'attribute' && n.field === 'attribute') || (p.type === 'keyword_argument' && n.field === 'name')) continue;
        if ((p.type === 'assignment' && n.field === 'left') || p.type === 'global_statement' || p.type === 'nonlocal_statement') continue;
        const key = ident(n.text);
        const list = this.uses.get(key);
        if (list) list.push(n);
        else this.uses.set(key, [n]);
      }
    }
    return this.uses.get(name) ?? [];
  }
}
