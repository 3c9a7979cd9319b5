import { type PyNode, field, initPython, parsePythonSync } from './parser.js';
import { typeId, typeSet } from './pynode.js';
import { AnalysisLimitError, NAMESPACE, Resolver, ident } from './resolve.js';
import { type CallCtx, checkCall } from './rules.js';
import { DataFindings } from './findings.js';
import { CompileChecker } from './compile-check.js';
import { ModuleNamespace } from './namespace.js';
import { ModuleValues } from './module-values.js';
import { EnvWrites } from './env.js';
import { WrittenCode } from './written.js';
import { pythonSourceText } from './source.js';
import { HiddenCode, runsHiddenCode } from './hidden-code.js';
import { ProcessLibraries, runsProgramByName } from './runners.js';
import { isCredentialValue, isSecretName } from '../secrets.js';
import type { Analysis, Finding, Severity } from '../types.js';
import { normaliseFindings } from '../types.js';
import { flowFindings } from './flow/index.js';
import { SinkNames, isAscii, mayNameSink } from './flow/prefilter.js';
import { ModuleIndex } from './flow/module-index.js';

/**
 * Dunder attributes that walk from an ordinary object to builtins, globals or other classes. A Map,
 * not an object literal: the key is source text, and `x.constructor` or `x.__proto__` must not
 * find Object.prototype's members.
 */
const DUNDERS = new Map<string, Severity>([
  ['__subclasses__', 'CRITICAL'],
  ['__globals__', 'CRITICAL'],
  ['__builtins__', 'CRITICAL'],
  ['__mro__', 'HIGH'],
  ['__bases__', 'HIGH'],
  ['__base__', 'HIGH'],
  ['__getattribute__', 'HIGH'],
  ['__code__', 'MEDIUM'],
  ['__class__', 'MEDIUM'],
]);
/** Frame attributes that hand out another scope's globals or builtins. */
const FRAME_ATTRS = new Set(['f_globals', 'f_builtins', 'f_locals']);
/** doctest, logging.config and third-party process runners (hidden-code.ts, runners.ts). */
const LIBRARY_HEADS = new Set(['doctest', 'logging', 'invoke', 'fabric', 'delegator', 'envoy', 'pexpect', 'wexpect', 'ptyprocess', 'sh']);
const DANGEROUS_HEADS = new Set(['eval', 'exec', 'compile', '__import__', 'os', 'subprocess', 'popen2', 'pty', 'pickle', 'marshal', 'ctypes', 'distutils', '_winapi']);
/**
 * Callables that are dangerous when merely passed along (`Thread(target=os.system, args=(c,))`,
 * `map(eval, xs)`, a pickle `__reduce__` returning `os.system`): the call happens out of sight.
 */
function isDangerousCallable(q: string): boolean {
  // every name below starts with one of these modules or builtins: most names are rejected here
  const dot = q.indexOf('.');
  const head = dot < 0 ? q : q.slice(0, dot);
  if (LIBRARY_HEADS.has(head)) return runsHiddenCode(q) || runsProgramByName(q);
  if (!DANGEROUS_HEADS.has(head)) return false;
  return (
    CODE_BUILTINS.has(q) ||
    /^os\.(system|popen[234]?|exec[lvpe]*|spawn[lvpe]*|posix_spawnp?|startfile)$/.test(q) ||
    /^subprocess\.(run|call|check_call|check_output|Popen|getoutput|getstatusoutput|getstatus|fork_exec)$/.test(q) ||
    /^popen2\.(popen[234]|Popen[34])$/.test(q) ||
    ['pty.spawn', '_winapi.CreateProcess', 'distutils.spawn.spawn', 'pickle.loads', 'pickle.load', 'marshal.loads', 'ctypes.memmove', 'ctypes.memset'].includes(q)
  );
}
const DANGEROUS_IMPORTS = new Set(['subprocess', 'importlib', 'ctypes', 'pty', 'popen2', 'commands']);
const CODE_BUILTINS = new Set(['eval', 'exec', 'compile', '__import__']);

/**
 * Identifier positions that name something being defined or an attribute, not a value being read.
 * What an identifier under each parent type is: a read of a value unless it is under the field
 * named (`x.attr`'s attribute, a definition's or keyword's name, an assignment's left side, a
 * call's function, which the call rules read), or never one (parameters, imports, declarations,
 * patterns). A table by PyNode.kind, as this runs for every identifier of a module.
 */
const NOT_UNDER = new Map<string, string | null>([
  ['attribute', 'attribute'],
  ...['keyword_argument', 'default_parameter', 'typed_default_parameter', 'function_definition', 'class_definition', 'named_expression'].map((t) => [t, 'name'] as const),
  ...['assignment', 'augmented_assignment', 'for_statement', 'for_in_clause'].map((t) => [t, 'left'] as const),
  ['call', 'function'],
  ...[
    'parameters', 'lambda_parameters', 'typed_parameter', 'list_splat_pattern', 'dictionary_splat_pattern', 'dotted_name', 'aliased_import', 'import_statement',
    'import_from_statement', 'global_statement', 'nonlocal_statement', 'as_pattern_target', 'pattern_list', 'tuple_pattern', 'list_pattern', 'keyword_pattern',
  ].map((t) => [t, null] as const),
]);
const PARENT_RULE: Array<string | null | undefined> = new Array(Math.max(...[...NOT_UNDER.keys()].map(typeId)) + 1).fill(undefined);
for (const [type, f] of NOT_UNDER) PARENT_RULE[typeId(type)] = f;

function isValueUse(n: PyNode): boolean {
  const p = n.parent;
  if (!p) return false;
  const f = PARENT_RULE[p.kind];
  return f === undefined || (f !== null && n.field !== f);
}

/** every type the switch of PythonAnalysis.run has a case for: other nodes skip it with one table read */
const RULED = typeSet(['call', 'string', 'concatenated_string', 'attribute', 'identifier', 'subscript', 'import_statement', 'import_from_statement', 'class_definition', 'assignment', 'augmented_assignment', 'keyword_argument', 'pair']);

class PythonAnalysis {
  readonly findings: Finding[] = [];
  readonly r: Resolver;
  private readonly ctx: CallCtx;
  private readonly data: DataFindings;
  private readonly ns: ModuleNamespace;
  private readonly modules: ModuleValues;
  private readonly env: EnvWrites;
  private readonly written: WrittenCode;
  private readonly hidden: HiddenCode;
  private readonly libraries: ProcessLibraries;
  readonly compile: CompileChecker;

  constructor(nodes: readonly PyNode[], code: string) {
    this.compile = new CompileChecker(code);
    this.r = new Resolver(nodes);
    this.ctx = { r: this.r, report: (n, s, t, rule, m) => this.report(n, s, t, rule, m) };
    this.data = new DataFindings(this.r, this.ctx.report);
    this.ns = new ModuleNamespace(this.r, this.ctx.report);
    this.modules = new ModuleValues(this.r, this.ctx.report);
    this.env = new EnvWrites(this.r, this.ctx.report);
    this.written = new WrittenCode(this.r, this.ctx.report);
    this.hidden = new HiddenCode(this.r, this.ctx.report, nodes);
    this.libraries = new ProcessLibraries(this.ctx);
  }

  report(node: PyNode, severity: Severity, type: string, rule: string, message: string): void {
    this.findings.push({ type, severity, line: node.row + 1, column: node.col + 1, message, rule_id: `python.${rule}` });
  }

  /**
   * One pass over the module's nodes in document order feeds every rule and the compile check.
   * Comments and string contents (with their escape sequences) match no rule: they are data, and
   * only the f-string interpolations beside them are code.
   */
  run(nodes: readonly PyNode[]): void {
    for (const n of nodes) {
      this.compile.visit(n);
      if (!RULED[n.kind]) continue;
      switch (n.type) {
        case 'call': {
          const fn = field(n, 'function');
          const quals = fn ? this.r.qualify(fn) : [];
          checkCall(this.ctx, n, quals);
          this.data.call(n, quals);
          // vars(os) and getattr(os, '__dict__') are where a module's namespace enters as a value
          if (quals.includes('vars') || quals.includes('getattr')) this.ns.check(n, this.r.qualify(n));
          this.ns.getmembers(n, quals);
          this.env.call(n, quals);
          this.written.call(n, quals);
          this.hidden.call(n, quals);
          this.libraries.call(n, quals);
          break;
        }
        case 'string':
        case 'concatenated_string':
          this.data.stringValue(n);
          break;
        case 'attribute':
          this.attribute(n);
          this.libraries.expression(n);
          break;
        case 'identifier':
          if (isValueUse(n)) this.reference(n);
          break;
        case 'subscript':
          this.subscript(n);
          this.libraries.expression(n);
          break;
        case 'import_statement':
        case 'import_from_statement':
          this.imports(n);
          this.written.importStatement(n);
          this.libraries.importStatement(n);
          break;
        case 'class_definition':
          this.hidden.classDefinition(n);
          break;
        case 'assignment':
          this.credentialAssignment(field(n, 'left'), field(n, 'right'));
          this.env.assignment(n);
          break;
        case 'augmented_assignment':
          this.env.assignment(n);
          break;
        case 'keyword_argument':
          this.credentialAssignment(field(n, 'name'), field(n, 'value'));
          this.env.keyword(n);
          break;
        case 'pair':
          this.credentialAssignment(field(n, 'key'), field(n, 'value'));
          this.env.pair(n);
          break;
      }
    }
    this.written.finish();
  }

  private attribute(n: PyNode): void {
    const attr = field(n, 'attribute');
    if (!attr) return;
    const name = ident(attr.text);
    const sev = DUNDERS.get(name);
    if (sev) this.report(attr, sev, 'sandbox_escape', `dunder.${name.slice(2, -2)}`, `attribute ${name} reaches interpreter internals`);
    if (FRAME_ATTRS.has(name)) this.report(attr, 'HIGH', 'sandbox_escape', 'dunder.frame_scope', `frame attribute ${name} exposes another scope`);
    const p = n.parent;
    // `f.__code__ = compile(src, …)` then `f()` runs src: replacing a code object is not introspection
    if (name === '__code__' && p && p.type === 'assignment' && n.field === 'left') {
      this.report(n, 'HIGH', 'code_execution', 'dangerous_call.code_object', 'assigning __code__ replaces what a function runs');
    }
    // `os.system` passed around as a value (the call itself is reported by the call rules)
    if (!(p && p.type === 'call' && n.field === 'function')) {
      const quals = this.r.qualify(n);
      for (const q of quals) if (isDangerousCallable(q)) this.report(n, 'HIGH', 'code_execution', 'dangerous_call.reference', `${q} is taken as a value`);
      this.ns.check(n, quals);
      this.modules.check(n, quals);
    }
  }

  private reference(n: PyNode): void {
    const name = ident(n.text);
    if (name === '__builtins__') {
      this.report(n, 'CRITICAL', 'sandbox_escape', 'dunder.builtins', '__builtins__ is accessed directly');
      return;
    }
    const quals = this.r.qualify(n);
    for (const q of quals) {
      if (isDangerousCallable(q)) this.report(n, 'HIGH', 'code_execution', 'dangerous_call.reference', `${q} is taken as a value (${name})`);
    }
    this.ns.check(n, quals);
    this.modules.check(n, quals);
  }

  private subscript(n: PyNode): void {
    const value = field(n, 'value');
    const key = field(n, 'subscript');
    if (!value || !key) return;
    const quals = this.r.qualify(value);
    // sys.modules['os'] handed on is the os module handed on
    if (quals.includes('sys.modules')) this.modules.check(n, this.r.qualify(n), false);
    const ns = quals.filter((q) => q === NAMESPACE || q === 'builtins' || q === 'builtins.__dict__');
    const k = this.r.fold(key);
    if (k === '__builtins__' && !ns.length) {
      this.report(n, 'CRITICAL', 'sandbox_escape', 'dangerous_call.namespace_lookup', 'looks up "__builtins__" by key');
      return;
    }
    if (!ns.length) return;
    if (k !== null) {
      const name = k.normalize('NFKC');
      if (CODE_BUILTINS.has(name) || DUNDERS.has(name) || name === 'getattr') {
        this.report(n, 'CRITICAL', name === '__builtins__' ? 'sandbox_escape' : 'code_execution', 'dangerous_call.namespace_lookup', `looks up ${JSON.stringify(name)} in a namespace dictionary`);
      }
    } else {
      const onBuiltins = ns.some((q) => q !== NAMESPACE);
      this.report(n, onBuiltins ? 'HIGH' : 'MEDIUM', 'reflection', 'dangerous_call.namespace_dynamic', `computed key looked up in ${onBuiltins ? 'builtins' : 'globals()/locals()/vars()'}`);
    }
  }

  private imports(n: PyNode): void {
    const mods: string[] = [];
    if (n.type === 'import_statement') {
      for (const c of n.children.filter((x) => x.field === 'name')) mods.push((c.type === 'aliased_import' ? (field(c, 'name') as PyNode) : c).text);
    } else {
      const m = field(n, 'module_name');
      if (m) mods.push(m.text);
    }
    for (const m of mods) {
      const top = ident(m.replace(/\s+/g, '')).split('.')[0];
      if (DANGEROUS_IMPORTS.has(top)) this.report(n, 'LOW', 'dangerous_import', `import.${top}`, `imports ${top}`);
    }
  }

  private credentialAssignment(target: PyNode | null, value: PyNode | null): void {
    if (!target || !value || (value.type !== 'string' && value.type !== 'concatenated_string')) return;
    let name: string | null = null;
    if (target.type === 'identifier') name = target.text;
    else if (target.type === 'attribute') name = (field(target, 'attribute') as PyNode).text;
    else if (target.type === 'string' || target.type === 'concatenated_string') name = this.r.fold(target);
    if (name === null || !isSecretName(name)) return;
    const v = this.r.fold(value);
    if (v !== null && isCredentialValue(v)) {
      this.report(value, 'HIGH', 'hardcoded_credential', 'secrets.hardcoded_credential', `a literal credential is assigned to ${JSON.stringify(ident(name))}`);
    }
  }
}

const CHECK_FILTER = process.env.PROOFGATE_FLOW_FILTER_CHECK === '1';

/**
 * The flow analysis of a module, run only where it can see a sink (flow/prefilter.ts). With
 * PROOFGATE_FLOW_FILTER_CHECK=1 (the test suite sets it) every answer is checked against the
 * analysis without the filters, and a difference throws: the filters must never change a finding.
 */
function flowOf(code: string, root: PyNode, nodes: PyNode[], r: Resolver, presence: Finding[]): Finding[] {
  // text without any word a sink needs is not indexed at all
  const ascii = isAscii(code);
  const index = mayNameSink(code, ascii) ? new ModuleIndex(nodes, ascii).keep() : null;
  const sinks = index && new SinkNames(index, r);
  const out = index && sinks?.anySink() ? flowFindings(root, index, r, presence, sinks) : presence;
  if (CHECK_FILTER) {
    const whole = index ?? new ModuleIndex(nodes, ascii).keep();
    if (!index && new SinkNames(whole, r).anySink()) throw new Error('the text filter passed over a module the name filter would analyse');
    const all = flowFindings(root, whole, r, presence, null);
    if (JSON.stringify(all) !== JSON.stringify(out)) throw new Error(`the flow filters changed the findings: ${JSON.stringify(all)} without them, ${JSON.stringify(out)} with them`);
  }
  return out;
}

let flowOn = true;
/** Turns the source-to-sink flow analysis on or off for this thread (the bench compares both); returns the previous setting. */
export function setPythonFlow(on: boolean): boolean {
  const was = flowOn;
  flowOn = on;
  return was;
}

/** Analyses Python source: parse into a syntax tree, then apply the rules to the tree. */
export async function analyzePython(code: string): Promise<Analysis> {
  await initPython();
  return analyzePythonSync(code);
}

/** Same as analyzePython once `initPython()` has resolved (used inside workers and the bench loop). */
export function analyzePythonSync(submitted: string): Analysis {
  const source = pythonSourceText(submitted);
  if ('error' in source) return { language: 'python', parseOk: false, parser: 'tree-sitter-python', parseError: source.error, findings: [] };
  const code = source.code;
  const parsed = parsePythonSync(code);
  if (parsed.error || !parsed.root) {
    const limit = parsed.limit ? { limitExceeded: true } : {};
    return { language: 'python', parseOk: false, parser: 'tree-sitter-python', parseError: parsed.error ?? undefined, findings: [], ...limit };
  }
  let a: PythonAnalysis | null = null;
  try {
    a = new PythonAnalysis(parsed.nodes, code);
    a.run(parsed.nodes);
    // code CPython would reject is never answered safe, whatever tree-sitter accepted
    if (a.compile.error) return { language: 'python', parseOk: false, parser: 'tree-sitter-python', parseError: a.compile.error, findings: [] };
    // a module that names no sink has nothing for the flow analysis to decide (flow/prefilter.ts)
    if (flowOn) return { language: 'python', parseOk: true, parser: 'tree-sitter-python', findings: normaliseFindings(flowOf(code, parsed.root, parsed.nodes, a.r, a.findings)) };
  } catch (err) {
    if (err instanceof AnalysisLimitError) {
      return { language: 'python', parseOk: true, parser: 'tree-sitter-python', findings: normaliseFindings(a?.findings ?? []), limitExceeded: true };
    }
    throw err;
  }
  return { language: 'python', parseOk: true, parser: 'tree-sitter-python', findings: normaliseFindings(a.findings) };
}
