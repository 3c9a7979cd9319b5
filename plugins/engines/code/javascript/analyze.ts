import { type JsNode, type JsParse, linkParents, parentOf, parseJavaScript, parseTypeScript } from './parser.js';
import { JsLimitError, JsResolver, MODULE_COMPILE, isRequire, propName } from './resolve.js';
import { ARGV_EXEC, CHILD, JsReferences, SHELL_EXEC, VM_EXEC } from './references.js';
import { envHookFinding, isEnvHookName } from '../env-hooks.js';
import { JsWrittenCode } from './written.js';
import { JsDataUrls } from './data-urls.js';
import { withMemberCalls } from './with-scope.js';
import { classifyArgv, classifyShellCommand, isCriticalPath, isInterpreter, isReconProgram, shellSyntaxInArgv } from '../shell.js';
import { gitFinding, launchedProgram } from '../launchers.js';
import { markedItem, mayBeString } from './strings.js';
import { isCredentialValue, isKeyLiteral, isSecretName, secretByValue } from '../secrets.js';
import { jsFlowFindings } from './flow/index.js';
import { type Analysis, type Finding, type Language, type Severity, normaliseFindings } from '../types.js';

/** crypto functions and the position of their key argument (a literal there is a hard-coded key) */
const JS_KEY_ARG = new Map<string, number>([
  ['crypto.createHmac', 1],
  ['crypto.createCipheriv', 1],
  ['crypto.createDecipheriv', 1],
  ['crypto.createSecretKey', 0],
  ['jsonwebtoken.sign', 1],
  ['jsonwebtoken.verify', 1],
]);

const TIMERS = new Set(['setTimeout', 'setInterval', 'setImmediate', 'execScript']);
/**
 * A function of a module whose name is computed (`require(m)`, `import(m)`), called by a name that
 * child_process or vm gives to what runs a program or code, or by a computed name: the module may be
 * child_process (`import('child_' + p).then((cp) => cp.exec(cmd))` with p unknown).
 */
/** A member of child_process or vm looked up by a computed name and called (`cp[name](cmd)`). */
const RUN_COMPUTED_MEMBER = /^(child_process|vm)\.<dynamic>$/;
const RUN_ON_COMPUTED_MODULE = /^(require|import)\(\)\.(default\.)?(exec|execSync|execFile|execFileSync|spawn|spawnSync|fork|runInNewContext|runInThisContext|runInContext|compileFunction|Script|<dynamic>)$/;
/**
 * A debugger or REPL that runs whatever code a client sends: inspector.open() listens for DevTools
 * (Runtime.evaluate), process._debugProcess(pid) opens that in another node process, repl.start()
 * evaluates the lines of its input stream (a socket, given one).
 */
const DEBUGGERS = new Set(['inspector.open', 'inspector/promises.open', 'process._debugProcess', 'repl.start', 'repl.REPLServer']);
/** inspector Session methods that compile or run source in this process. */
const INSPECTOR_EVAL = new Set(['Runtime.evaluate', 'Runtime.compileScript', 'Runtime.runScript', 'Runtime.callFunctionOn', 'Debugger.evaluateOnCallFrame', 'Debugger.setScriptSource']);
const NETWORK = /^(fetch|axios(\..*)?|got(\..*)?|superagent\..*|needle\..*|(http|https|http2)\.(request|get)|navigator\.sendBeacon|XMLHttpRequest\(\)\.send|WebSocket\(\)\.send|net\.connect|net\.createConnection|net\.Socket\(\)\.write)$/;
const FS_DELETE = /^(fs|fs\/promises|fs\.promises|fsPromises)\.(rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync)$/;
const HTML_SINK_PROPS = new Set(['innerHTML', 'outerHTML']);
const BUILTIN_PROTOTYPES = new Set(['Object', 'Array', 'Function', 'String', 'Number', 'Boolean', 'Promise', 'RegExp', 'Map', 'Set']);

class JsAnalysis {
  readonly findings: Finding[] = [];
  private readonly refs: JsReferences;

  constructor(
    private readonly r: JsResolver,
    private readonly prefix: string,
  ) {
    this.refs = new JsReferences(r, (n, s, t, rule, m) => this.report(n, s, t, rule, m));
  }

  report(n: JsNode, severity: Severity, type: string, rule: string, message: string): void {
    const loc = n.loc?.start ?? { line: 1, column: 0 };
    this.findings.push({ type, severity, line: loc.line, column: loc.column + 1, message, rule_id: `${this.prefix}.${rule}` });
  }

  private isConst(n: JsNode | undefined): boolean {
    return !!n && (this.r.fold(n) !== null || (n.type === 'Literal' && typeof n.value !== 'object'));
  }

  /** Searches an expression for a sub-expression matching `pred` (following simple bindings). */
  private reaches(node: JsNode, pred: (n: JsNode, quals: string[]) => boolean): boolean {
    const stack = [node];
    const seen = new Set<JsNode>();
    let budget = 400;
    while (stack.length && budget-- > 0) {
      const n = stack.pop() as JsNode;
      const quals = ['Identifier', 'MemberExpression', 'CallExpression', 'NewExpression'].includes(n.type) ? this.r.qualify(n) : [];
      if (pred(n, quals)) return true;
      if (n.type === 'Identifier') {
        for (const b of this.r.bindings.get(n.name as string) ?? []) {
          if (b.kind === 'expr' && !seen.has(b.node)) {
            seen.add(b.node);
            stack.push(b.node);
          }
        }
      }
      for (const k of Object.keys(n)) {
        if (k === 'parent' || k === 'loc') continue;
        const v = n[k];
        if (Array.isArray(v)) for (const x of v) if (x && typeof x === 'object' && typeof (x as JsNode).type === 'string') stack.push(x as JsNode);
        if (v && !Array.isArray(v) && typeof v === 'object' && typeof (v as JsNode).type === 'string') stack.push(v as JsNode);
      }
    }
    return false;
  }

  visit(n: JsNode): void {
    switch (n.type) {
      case 'CallExpression':
      case 'NewExpression':
        this.call(n);
        break;
      case 'ImportDeclaration':
        if (String((n.source as JsNode).value).replace(/^node:/, '') === CHILD) this.report(n, 'LOW', 'dangerous_import', 'import.child_process', 'imports child_process');
        break;
      case 'ImportExpression':
        if (!this.isConst(n.source as JsNode)) this.report(n, 'MEDIUM', 'dynamic_import', 'import.dynamic', 'import() of a computed module name');
        else if (this.r.fold(n.source as JsNode)?.replace(/^node:/, '') === CHILD) this.report(n, 'LOW', 'dangerous_import', 'import.child_process', 'imports child_process');
        break;
      case 'AssignmentExpression':
        this.assignment(n);
        break;
      case 'WithStatement':
        for (const [call, q] of withMemberCalls(n, this.r.qualify(n.object as JsNode))) this.qualified(call, q, call.arguments as JsNode[], (call.arguments as JsNode[])[0]);
        break;
      case 'VariableDeclarator':
        if ((n.id as JsNode).type === 'Identifier' && n.init) this.credential(n.init as JsNode, (n.id as JsNode).name as string);
        break;
      case 'Property':
      case 'PropertyDefinition': {
        const key = n.key as JsNode;
        const name = !n.computed && key.type === 'Identifier' ? (key.name as string) : this.r.fold(key);
        if (name !== null && n.value) this.credential(n.value as JsNode, name);
        // { ...process.env, LD_PRELOAD: '/tmp/x.so' } given to spawn, or Object.assign(process.env, {…})
        if (name !== null && n.value && n.type === 'Property') this.envHook(n, name, n.value as JsNode);
        if (name === 'dangerouslySetInnerHTML' && (n.value as JsNode)?.type === 'ObjectExpression') {
          const html = ((n.value as JsNode).properties as JsNode[]).find((p) => p.type === 'Property' && propKey(p) === '__html');
          if (html && !this.isConst(html.value as JsNode)) this.report(n, 'HIGH', 'xss', 'xss.dangerously_set_inner_html', 'dangerouslySetInnerHTML with a computed __html');
        }
        break;
      }
      case 'Identifier':
        this.refs.reference(n);
        break;
      case 'MemberExpression':
        this.refs.globalLookup(n);
        // globalThis.eval.call(null, src) / Reflect.apply(window.eval, …): eval taken as a value through a member
        this.refs.reference(n);
        break;
      case 'Literal':
      case 'TemplateLiteral': {
        // secrets recognised by value (AKIA…, PEM private keys), whatever they are named
        const v = n.type === 'Literal' ? (typeof n.value === 'string' ? n.value : null) : this.r.fold(n);
        const hit = v !== null ? secretByValue(v) : null;
        if (hit) this.report(n, 'HIGH', 'hardcoded_credential', hit.rule, hit.message);
        break;
      }
    }
  }

  /** An options object whose `eval` is not literally false/absent (a computed value may be true). */
  private evalOption(opts: JsNode | undefined): boolean {
    if (!opts) return false;
    if (opts.type !== 'ObjectExpression') return true;
    return (opts.properties as JsNode[]).some((p) => p.type === 'SpreadElement' || (p.type === 'Property' && propKey(p) === 'eval' && !((p.value as JsNode).type === 'Literal' && !(p.value as JsNode).value)));
  }

  /** A Session.post whose method compiles or runs source, or is computed (and may). */
  private inspectorEval(method: JsNode | undefined, params: JsNode | undefined): boolean {
    const m = method ? this.r.fold(method) : null;
    return m === null || (INSPECTOR_EVAL.has(m) && params !== undefined);
  }

  private call(n: JsNode): void {
    const callee = n.callee as JsNode;
    const args = n.arguments as JsNode[];
    const a0 = args[0];
    if (callee.type === 'MemberExpression' && propName(callee, (x) => this.r.fold(x)) === 'constructor' && args.length) {
      const chained = (callee.object as JsNode).type === 'MemberExpression' && propName(callee.object as JsNode, (x) => this.r.fold(x)) === 'constructor';
      this.report(n, chained ? 'CRITICAL' : 'HIGH', 'code_execution', 'dangerous_call.function_constructor', 'calls a constructor with source text (Function constructor reached through .constructor)');
    }
    if (callee.type === 'MemberExpression' && propName(callee, (x) => this.r.fold(x)) === 'insertAdjacentHTML' && args[1] && !this.isConst(args[1])) {
      this.report(n, 'HIGH', 'xss', 'xss.insert_adjacent_html', 'insertAdjacentHTML() with a computed value');
    }
    // f.call(t, a), f.apply(t, [a]) and Reflect.apply(f, t, [a]) are calls of f with a
    for (const [q, qArgs] of this.r.calls(n)) {
      this.qualified(n, q, qArgs, qArgs[0]);
      this.refs.reflectedGlobal(n, q, qArgs);
      const keyAt = JS_KEY_ARG.get(q);
      const key = keyAt !== undefined ? qArgs[keyAt] : undefined;
      const v = key ? this.r.fold(key) : null;
      if (v !== null && isKeyLiteral(v)) this.report(n, 'HIGH', 'hardcoded_credential', 'secrets.literal_crypto_key', `${q}() is given a literal key`);
    }
    this.refs.moduleValue(n);
  }

  private qualified(n: JsNode, q: string, args: JsNode[], a0: JsNode | undefined): void {
    if (q === 'eval' || q === 'Function' || VM_EXEC.has(q)) {
      const src = q === 'Function' ? args[args.length - 1] : a0;
      const name = q === 'Function' ? (n.type === 'NewExpression' ? 'new Function' : 'Function') : q;
      const rule = q.startsWith('vm.') ? 'dangerous_call.vm' : q === 'eval' ? 'dangerous_call.eval' : 'dangerous_call.function';
      if (src && this.reaches(src, (_x, qs) => qs.some((s) => NETWORK.test(s.replace(/\(\)$/, ''))))) this.report(n, 'CRITICAL', 'remote_code_execution', 'rce.eval_fetched', `${name} of content fetched over the network`);
      else if (!src && q === 'Function') this.report(n, 'LOW', 'code_execution', rule, `${name} with no source`);
      else if (!src || !this.isConst(src)) this.report(n, 'CRITICAL', 'code_execution', rule, `${name} of a computed value`);
      else this.report(n, 'HIGH', 'code_execution', rule, `${name} of a constant string`);
    } else if (TIMERS.has(q) && a0 && (this.r.fold(a0) !== null || mayBeString(this.r, a0))) {
      this.report(n, this.isConst(a0) ? 'HIGH' : 'CRITICAL', 'code_execution', 'dangerous_call.string_timer', `${q}() with ${this.isConst(a0) ? 'a string' : 'a computed value that may be a string'} evaluates it as code`);
    } else if ((isRequire(q) || q === 'process.getBuiltinModule') && n.type === 'CallExpression') {
      if (!a0 || !this.isConst(a0)) this.report(n, 'MEDIUM', 'dynamic_import', 'import.dynamic', 'require() of a computed module name');
      else if (this.r.fold(a0)?.replace(/^node:/, '') === CHILD) this.report(n, 'LOW', 'dangerous_import', 'import.child_process', 'requires child_process');
    } else if (RUN_ON_COMPUTED_MODULE.test(q)) {
      this.report(n, 'HIGH', 'dynamic_import', 'import.dynamic', `${q.replace(/^(\w+)\(\)/, '$1(<computed>)')}: a module named at run time is asked to run something, and may be child_process or vm`);
    } else if (RUN_COMPUTED_MEMBER.test(q)) {
      this.report(n, 'HIGH', 'reflection', 'dangerous_call.module_dynamic', `${q.replace('<dynamic>', '[<computed>]')}(): a function of ${q.split('.')[0]} chosen at run time is called, and may be exec or runInThisContext`);
    } else if (SHELL_EXEC.has(q)) {
      this.command(n, q, a0, true);
    } else if (ARGV_EXEC.has(q)) {
      const opts = args.find((a) => a.type === 'ObjectExpression');
      const shell = opts && (opts.properties as JsNode[]).some((p) => p.type === 'Property' && propKey(p) === 'shell' && !((p.value as JsNode).type === 'Literal' && !(p.value as JsNode).value));
      if (shell) this.command(n, q, a0, true, args[1]);
      else this.argv(n, q, a0, args[1]);
    } else if (q === 'document.write' || q === 'document.writeln') {
      if (args.some((a) => !this.isConst(a))) this.report(n, 'HIGH', 'xss', 'xss.document_write', `${q}() with a computed value`);
    } else if (q === 'worker_threads.Worker' && n.type === 'NewExpression' && this.evalOption(args[1])) {
      // new Worker(src, { eval: true }) runs src as a script in a new thread
      this.report(n, a0 && this.isConst(a0) ? 'HIGH' : 'CRITICAL', 'code_execution', 'dangerous_call.code_string', 'new Worker() with eval: true runs a string as code');
    } else if (DEBUGGERS.has(q) || (q === 'process.kill' && args[1] && this.r.fold(args[1]) === 'SIGUSR1')) {
      // SIGUSR1 is how node is told to start its inspector (process._debugProcess sends it)
      this.report(n, 'HIGH', 'code_execution', 'dangerous_call.debugger', `${q}() opens a debugger or REPL that runs the code sent to it`);
    } else if ((q === 'inspector.Session().post' || q === 'inspector/promises.Session().post') && this.inspectorEval(a0, args[1])) {
      const src = args[1]?.type === 'ObjectExpression' ? (args[1].properties as JsNode[]).find((p) => p.type === 'Property' && ['expression', 'functionDeclaration', 'scriptSource'].includes(propKey(p) ?? '')) : undefined;
      const constant = !!src && this.isConst(src.value as JsNode);
      this.report(n, constant ? 'HIGH' : 'CRITICAL', 'code_execution', 'dangerous_call.code_string', `inspector Session.post(${a0 ? (this.r.fold(a0) ?? 'a computed method') : ''}) runs ${constant ? 'a constant' : 'a computed'} string as code`);
    } else if (MODULE_COMPILE.test(q)) {
      // new Module()._compile(src, file): src is run as a CommonJS module's body
      const src = q.endsWith('.call') ? args[1] : q.endsWith('.apply') ? undefined : a0;
      this.report(n, src && this.isConst(src) ? 'HIGH' : 'CRITICAL', 'code_execution', 'dangerous_call.code_string', 'Module._compile() runs a string as a module\'s code');
    } else if (q === 'process.execve') {
      // Node 23.11+: replaces this process with the program, as os.execve does
      this.report(n, 'CRITICAL', 'process_execution', 'process.exec_replace', 'process.execve() replaces the process with another program');
    } else if (q === 'process.binding' || q === 'process.dlopen' || q === 'process._linkedBinding') {
      this.report(n, 'HIGH', 'code_execution', 'dangerous_call.native_binding', `${q}() loads native code or internal bindings`);
    } else if (FS_DELETE.test(q) && a0) {
      const path = this.r.fold(a0);
      if (path !== null && isCriticalPath(path)) this.report(n, 'CRITICAL', 'destructive_filesystem_operation', 'filesystem.destructive', `${q}() on a system or home path`);
    }
    if (NETWORK.test(q) && args.some((a) => this.wholeEnv(a))) {
      this.report(n, 'CRITICAL', 'environment_exfiltration', 'exfiltration.environ', `${q}() sends the whole process environment over the network`);
    }
  }

  private wholeEnv(node: JsNode): boolean {
    return this.reaches(node, (x, qs) => {
      if (!qs.includes('process.env')) return false;
      const p = parentOf(x);
      return !(p && p.type === 'MemberExpression' && x.parentKey === 'object');
    });
  }

  private command(n: JsNode, q: string, cmdNode: JsNode | undefined, viaShell: boolean, argvNode?: JsNode): void {
    const base = cmdNode ? this.r.fold(cmdNode) : null;
    const extra = argvNode && argvNode.type === 'ArrayExpression' ? (argvNode.elements as Array<JsNode | null>).map((e) => (e ? this.r.fold(e) : null)) : [];
    if (base === null || extra.some((e) => e === null)) {
      const shape = base !== null ? classifyShellCommand(base) : null;
      if (shape) this.report(n, shape.severity, shape.type, shape.rule, `${q}: ${shape.message}`);
      else this.report(n, 'CRITICAL', 'command_injection', viaShell ? 'process.shell_injection' : 'process.exec_dynamic', `${q}() runs a command built from computed values`);
      return;
    }
    const text = [base, ...extra].join(' ');
    const shape = classifyShellCommand(text);
    if (shape) this.report(n, shape.severity, shape.type, shape.rule, `${q}: ${shape.message}`);
    else this.report(n, 'HIGH', 'process_execution', 'process.shell_exec', `${q}() runs a shell command`);
  }

  private argv(n: JsNode, q: string, programNode: JsNode | undefined, argvNode: JsNode | undefined): void {
    const program = programNode ? this.r.fold(programNode) : null;
    if (program === null) {
      this.report(n, 'HIGH', 'command_injection', 'process.dynamic_program', `${q}() runs a program chosen at run time`);
      return;
    }
    const items = argvNode && argvNode.type === 'ArrayExpression' ? (argvNode.elements as Array<JsNode | null>).map((e) => (e && e.type !== 'SpreadElement' ? this.r.fold(e) : null)) : argvNode ? [null] : [];
    const run = q.endsWith('.fork') ? { program, items, via: [] } : launchedProgram(program, items);
    const through = run.via.length ? ` (through ${run.via.join(', ')})` : '';
    if (run.program === null) {
      this.report(n, 'HIGH', 'command_injection', 'process.dynamic_program', `${q}() runs a program chosen at run time${through}`);
      return;
    }
    const shape = classifyArgv(run.program, run.items) ?? classifyArgv(program, items);
    const syntax = shellSyntaxInArgv(items);
    const asText = syntax !== null ? ` (${JSON.stringify(syntax)} is an argument of ${JSON.stringify(program)}, not shell syntax: no shell runs)` : '';
    const marked = argvNode && argvNode.type === 'ArrayExpression' ? (argvNode.elements as Array<JsNode | null>).map((e) => (e && e.type !== 'SpreadElement' ? markedItem(this.r, e) : null)) : items;
    const git = q.endsWith('.fork') ? null : gitFinding(program, marked);
    if (shape) this.report(n, shape.severity, shape.type, shape.rule, `${q}: ${shape.message}${through}`);
    else if (isInterpreter(run.program) || q.endsWith('.fork')) this.report(n, 'HIGH', 'process_execution', 'process.interpreter', `${q}() starts ${JSON.stringify(run.program)}${through}`);
    else if (isReconProgram(run.program)) this.report(n, 'HIGH', 'reconnaissance', 'process.host_recon', `${q}() runs ${JSON.stringify(run.program)}${through}, which reports the host's identity or environment`);
    else if (git !== null) this.report(n, 'HIGH', 'process_execution', 'process.git_option', `${q}(): git ${git}`);
    else if (items.some((i) => i === null)) this.report(n, 'MEDIUM', 'argument_injection', 'process.dynamic_arguments', `${q}() passes computed arguments to ${JSON.stringify(program)} (no shell)${asText}`);
    else if (syntax !== null) this.report(n, 'LOW', 'process_execution', 'process.argv_shell_syntax', `${q}()${asText}`);
  }

  private assignment(n: JsNode): void {
    const left = n.left as JsNode;
    if (left.type === 'Identifier') {
      this.credential(n.right as JsNode, left.name as string);
      return;
    }
    if (left.type !== 'MemberExpression') return;
    const prop = propName(left, (x) => this.r.fold(x));
    if (prop !== null && HTML_SINK_PROPS.has(prop) && !this.isConst(n.right as JsNode)) {
      this.report(n, 'HIGH', 'xss', 'xss.inner_html', `${prop} assigned a computed value`);
    }
    if (prop !== null) this.credential(n.right as JsNode, prop);
    // with += (or ||=, ??=) the right side is what this program adds: the old value was the caller's
    if (prop !== null) this.envHook(n, prop, n.right as JsNode);
    // walk the target chain: a.__proto__.x = …, a.constructor.prototype.x = …, Object.prototype.x = …
    let cur: JsNode = left;
    let prev: string | null = null;
    while (cur.type === 'MemberExpression') {
      const name = propName(cur, (x) => this.r.fold(x));
      const obj = cur.object as JsNode;
      // writing *through* __proto__ pollutes a shared prototype; assigning `o.__proto__ = p` only
      // re-parents one object (setPrototypeOf polyfills), so the assigned property itself is exempt
      if ((name === '__proto__' && cur !== left) || (name === 'constructor' && prev === 'prototype')) {
        this.report(n, 'HIGH', 'prototype_pollution', 'prototype_pollution.proto_write', `assignment through ${name === '__proto__' ? '__proto__' : 'constructor.prototype'}`);
        return;
      }
      if (name === 'prototype' && obj.type === 'Identifier' && BUILTIN_PROTOTYPES.has(obj.name as string)) {
        this.report(n, 'HIGH', 'prototype_pollution', 'prototype_pollution.builtin_prototype', `assignment to ${obj.name as string}.prototype`);
        return;
      }
      prev = name;
      cur = obj;
    }
    if (left.computed && (left.object as JsNode).type === 'MemberExpression' && (left.object as JsNode).computed && !this.isConst(left.property as JsNode) && !this.isConst((left.object as JsNode).property as JsNode)) {
      this.report(n, 'MEDIUM', 'prototype_pollution', 'prototype_pollution.dynamic_keys', 'assignment through two computed keys (obj[a][b] = v)');
    }
  }

  /** An environment variable that makes programs started later load code (env-hooks.ts). */
  private envHook(n: JsNode, name: string, value: JsNode): void {
    if (!isEnvHookName(name)) return;
    const hit = envHookFinding(name, this.r.fold(value));
    if (hit !== null) this.report(n, 'HIGH', 'code_execution', hit.rule, hit.message);
  }

  private credential(value: JsNode, name: string): void {
    if (!isSecretName(name) || (value.type !== 'Literal' && value.type !== 'TemplateLiteral')) return;
    const v = this.r.fold(value);
    if (v !== null && isCredentialValue(v)) this.report(value, 'HIGH', 'hardcoded_credential', 'secrets.hardcoded_credential', `a literal credential is assigned to ${JSON.stringify(name)}`);
  }
}

function propKey(p: JsNode): string | null {
  const k = p.key as JsNode;
  if (!p.computed && k.type === 'Identifier') return k.name as string;
  return k.type === 'Literal' && typeof k.value === 'string' ? k.value : null;
}

function analyze(parsed: JsParse, language: Language): Analysis {
  const prefix = language === 'typescript' ? 'typescript' : 'javascript';
  if (!parsed.ast || parsed.error) return { language, parseOk: false, parser: parsed.parser, parseError: parsed.error ?? undefined, findings: [] };
  const order = linkParents(parsed.ast);
  if (!order) {
    return { language, parseOk: false, parser: parsed.parser, parseError: { line: 1, column: 1, message: 'nesting too deep to analyse' }, findings: [] };
  }
  let a: JsAnalysis | null = null;
  try {
    const r = new JsResolver(order);
    const analysis = (a = new JsAnalysis(r, prefix));
    const report = (n: JsNode, s: Severity, t: string, rule: string, m: string) => analysis.report(n, s, t, rule, m);
    const written = new JsWrittenCode(r, report);
    const urls = new JsDataUrls(r, report);
    for (const n of order) {
      a.visit(n);
      written.visit(n);
      urls.visit(n);
    }
    written.finish();
    if (flowOn) return { language, parseOk: true, parser: parsed.parser, findings: normaliseFindings(jsFlowFindings(parsed.ast, order, r, prefix, a.findings)) };
  } catch (err) {
    if (err instanceof JsLimitError) return { language, parseOk: true, parser: parsed.parser, findings: normaliseFindings(a?.findings ?? []), limitExceeded: true };
    throw err;
  }
  return { language, parseOk: true, parser: parsed.parser, findings: normaliseFindings(a.findings) };
}

let flowOn = true;
/** Turns the source-to-sink flow analysis on or off for this thread (the bench compares both); returns the previous setting. */
export function setJsFlow(on: boolean): boolean {
  const was = flowOn;
  flowOn = on;
  return was;
}

export function analyzeJavaScript(code: string): Analysis {
  return analyze(parseJavaScript(code), 'javascript');
}

export function analyzeTypeScript(code: string): Analysis {
  return analyze(parseTypeScript(code), 'typescript');
}
