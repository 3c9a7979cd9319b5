import { type PyNode, field, namedChildren } from './parser.js';
import { type Resolver, NAMESPACE, NAME_RESOLVERS, ident, intValue, keywordArg, positionalArgs } from './resolve.js';
import { isCriticalPath } from '../shell.js';
import { commandOf, shellFinding, subprocessFinding } from './process-rules.js';
import type { Severity } from '../types.js';
import type { CallCtx } from './call-ctx.js';
export type { CallCtx, Report } from './call-ctx.js';

const NETWORK_PREFIXES = ['requests.', 'httpx.', 'urllib.request.', 'urllib.urlopen', 'urllib2.', 'urllib3.', 'http.client.', 'aiohttp.', 'pycurl.', 'smtplib.', 'ftplib.', 'telnetlib.', 'websocket.', 'websockets.'];
const SOCKET_PREFIXES = ['socket.socket()', 'socket.create_connection()', 'socket.fromfd()', 'socket.socketpair()'];
const DECODERS = new Set(['base64.b64decode', 'base64.standard_b64decode', 'base64.urlsafe_b64decode', 'base64.b32decode', 'base64.b16decode', 'base64.a85decode', 'base64.b85decode', 'base64.decodebytes', 'codecs.decode', 'zlib.decompress', 'bz2.decompress', 'lzma.decompress', 'gzip.decompress', 'bytes.fromhex', 'binascii.unhexlify', 'binascii.a2b_base64', 'marshal.loads']);
/** Loaders that run code embedded in the data (pickle's `__reduce__`, marshal'd code objects). */
const DESERIALIZERS = new Set([
  'pickle.loads', 'pickle.load', 'pickle.Unpickler', 'pickle._loads', 'pickle._load', 'pickle._Unpickler',
  'dill.loads', 'dill.load', 'dill.Unpickler', 'cloudpickle.loads', 'cloudpickle.load',
  'jsonpickle.decode', 'jsonpickle.loads', 'jsonpickle.unpickler.decode', 'jsonpickle.Unpickler', 'jsonpickle.unpickler.Unpickler',
  'marshal.loads', 'marshal.load', 'shelve.open', 'shelve.Shelf', 'shelve.DbfilenameShelf', 'shelve.BsdDbShelf',
  'pandas.read_pickle', 'joblib.load', 'sklearn.externals.joblib.load', 'dask.dataframe.read_pickle',
]);
/** Modules that reach programs, code or the network: named by an assembled string, or read through their namespace, they are not an ordinary lookup. */
export const RISKY_MODULES = new Set(['os', 'subprocess', 'pty', 'ctypes', 'builtins', 'sys', 'importlib', 'shutil', 'socket', 'posix', 'nt', 'marshal', 'pickle', 'runpy', 'code']);
const SAFE_YAML_LOADERS = /(^|\.)(C?SafeLoader|C?BaseLoader)$/;
// `commands` is canonicalised to `subprocess` (commands.getstatus too); popen2 is the Python 2 module
const SHELL_STRING_EXEC = new Set(['os.system', 'os.popen', 'os.popen2', 'os.popen3', 'os.popen4', 'subprocess.getoutput', 'subprocess.getstatusoutput', 'subprocess.getstatus', 'asyncio.create_subprocess_shell', 'platform.popen', 'popen2.popen2', 'popen2.popen3', 'popen2.popen4', 'popen2.Popen3', 'popen2.Popen4']);
// distutils.spawn.spawn(argv) runs argv[0] as subprocess does without a shell (setuptools ships it as setuptools._distutils)
const SUBPROCESS_ARGV = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output', 'subprocess.Popen', 'asyncio.create_subprocess_exec', 'distutils.spawn.spawn']);
/**
 * The private primitives subprocess itself is built on: `_posixsubprocess.fork_exec` (canonically
 * `subprocess.fork_exec`) forks and execs an argv, `_winapi.CreateProcess` starts a command line.
 */
const PRIVATE_SPAWN = new Set(['subprocess.fork_exec', '_winapi.CreateProcess']);
/**
 * Standard-library entry points that compile and run a string of Python source, as exec() does:
 * `pdb.run("__import__('os').system('id')")` runs the command. Instance forms (`cProfile.Profile().run`)
 * are reached through the resolver's `()` qualification.
 */
const CODE_STRING_RUNNERS = new Set([
  'pdb.run', 'pdb.runeval', 'pdb.Pdb().run', 'pdb.Pdb().runeval', 'bdb.Bdb().run', 'bdb.Bdb().runeval',
  'profile.run', 'profile.runctx', 'profile.Profile().run', 'profile.Profile().runctx',
  'cProfile.run', 'cProfile.runctx', 'cProfile.Profile().run', 'cProfile.Profile().runctx',
  'trace.Trace().run', 'trace.Trace().runctx',
]);
/**
 * Debuggers that stop and run whatever Python is typed at them (pdb's `!stmt`), on the terminal or a
 * socket (remote_pdb, rpdb, web_pdb, debugpy). breakpoint() is pdb.set_trace() unless
 * PYTHONBREAKPOINT names another callable, which it then calls with breakpoint's arguments.
 */
const DEBUGGERS = new Set([
  'breakpoint', 'sys.breakpointhook', 'pdb.set_trace', 'pdb.post_mortem', 'pdb.pm', 'pdb.Pdb().set_trace', 'pdb.Pdb().interaction', 'bdb.Bdb().set_trace',
  'pytest.set_trace', 'ipdb.set_trace', 'ipdb.post_mortem', 'ipdb.pm', 'pudb.set_trace', 'pudb.post_mortem', 'IPython.embed', 'IPython.start_ipython',
  'remote_pdb.set_trace', 'remote_pdb.RemotePdb', 'rpdb.set_trace', 'rpdb.Rpdb', 'web_pdb.set_trace', 'web_pdb.WebPdb', 'debugpy.listen', 'ptvsd.enable_attach',
]);
/** timeit runs its stmt/setup as source when they are strings (a callable is merely called). */
const TIMEIT = new Set(['timeit.timeit', 'timeit.repeat', 'timeit.Timer']);
const DANGEROUS_ATTR_NAMES = new Set(['eval', 'exec', 'compile', '__import__', 'system', 'popen', 'execv', 'execve', 'execvp', 'spawnv', 'loads', '__subclasses__', '__globals__', '__builtins__', '__bases__', '__mro__', '__code__', '__class__', '__base__', '__getattribute__']);

function isNetwork(q: string): boolean {
  return NETWORK_PREFIXES.some((p) => q.startsWith(p)) || (SOCKET_PREFIXES.some((p) => q.startsWith(p)) && /\.(send|sendall|sendto|sendmsg|sendfile)\(\)$/.test(q + '()'));
}

/** Searches an expression (following simple variable bindings) for a sub-expression matching `pred`. */
function reaches(ctx: CallCtx, node: PyNode, pred: (n: PyNode, quals: string[]) => boolean, budget = { left: 400 }, seen = new Set<PyNode>()): boolean {
  const stack = [node];
  while (stack.length && budget.left-- > 0) {
    const n = stack.pop() as PyNode;
    if (n.type === 'string' || n.type === 'comment') continue;
    const quals = ['identifier', 'attribute', 'call', 'subscript'].includes(n.type) ? ctx.r.qualify(n) : [];
    if (pred(n, quals)) return true;
    if (n.type === 'identifier') {
      for (const b of ctx.r.bindings.get(n.text.normalize('NFKC')) ?? []) {
        if (b.kind === 'expr' && !seen.has(b.node)) {
          seen.add(b.node);
          stack.push(b.node);
        }
      }
    }
    for (const c of n.children) if (c.named && !(n.type === 'lambda' && c.field === 'parameters')) stack.push(c);
  }
  return false;
}

/** A lambda, or a name every binding of which is a lambda or a def: called by timeit, not compiled. */
function isCallableValue(ctx: CallCtx, node: PyNode): boolean {
  if (node.type === 'lambda') return true;
  return node.type === 'identifier' && ctx.r.isFunctionName(node.text);
}

function fetchesContent(ctx: CallCtx, node: PyNode): boolean {
  return reaches(ctx, node, (n, qs) => n.type === 'call' && qs.some((q) => isNetwork(q) || /^socket\..*\.recv/.test(q)));
}

function decodesContent(ctx: CallCtx, node: PyNode): boolean {
  return reaches(ctx, node, (n, qs) => n.type === 'call' && qs.some((q) => DECODERS.has(q.replace(/\(\)$/, ''))));
}

/** The whole environment mapping (not one variable read with `[...]` or `.get`). */
function wholeEnviron(ctx: CallCtx, node: PyNode): boolean {
  return reaches(ctx, node, (n, qs) => {
    if (!qs.some((q) => q === 'os.environ' || q === 'os.environb')) return false;
    const p = n.parent;
    if (p && p.type === 'subscript' && field(p, 'value') === n) return false;
    if (p && p.type === 'attribute' && field(p, 'object') === n) {
      const attr = (field(p, 'attribute') as PyNode).text;
      return !['get', 'setdefault', 'pop', '__getitem__'].includes(attr);
    }
    return true;
  });
}

function isConstant(ctx: CallCtx, node: PyNode): boolean {
  return ctx.r.fold(node) !== null || ['integer', 'float', 'true', 'false', 'none'].includes(node.type);
}

const headOf = (q: string): string => {
  const dot = q.indexOf('.');
  return dot < 0 ? q : q.slice(0, dot);
};
/**
 * The first segment of every name `checkQualified` reacts to: the names it tests one by one, and
 * those of its tables. A call whose names all start elsewhere (`len`, `self.x`, `str.join`) matches
 * no call rule, and most calls are rejected by this one lookup instead of the whole chain.
 */
const RULE_HEADS = new Set([
  'eval', 'exec', 'compile', '__import__', 'importlib', 'pydoc', 'pkgutil', 'logging', 'getattr', 'setattr', 'delattr', 'runpy', 'types', 'code', 'torch', 'numpy',
  'os', 'yaml', 'pty', NAMESPACE, 'builtins', 'ctypes', 'shutil', 'operator',
  ...[...CODE_STRING_RUNNERS, ...TIMEIT, ...DEBUGGERS].map(headOf),
  ...[...DESERIALIZERS, ...SHELL_STRING_EXEC, ...SUBPROCESS_ARGV, ...NETWORK_PREFIXES, ...SOCKET_PREFIXES, ...PRIVATE_SPAWN].map(headOf),
]);

/** imp's loaders read a file of Python source or bytecode and run it as a module. */
const IMP_LOADERS = new Set(['imp.load_source', 'imp.load_compiled', 'imp.load_package', 'imp.load_module', 'importlib._bootstrap._load', 'importlib._bootstrap._exec']);

/**
 * The import loader protocol: `loader.exec_module(m)` runs the module's code whatever made the loader
 * (`spec_from_file_location(name, path).loader` runs that file), so it is matched by name on any
 * receiver, even one the resolver cannot name. `load_module` is a common method name outside import
 * machinery, so it counts only on a loader the resolver traces to the import modules or a spec.
 */
function runsModuleCode(q: string): boolean {
  if (q.endsWith('.exec_module') || IMP_LOADERS.has(q)) return true;
  return q.endsWith('.load_module') && (/^(importlib|imp|zipimport|pkgutil)\./.test(q) || /\.(loader|find_module\(\))\.load_module$/.test(q));
}

/** Applies every call rule to one call node. */
export function checkCall(ctx: CallCtx, call: PyNode, quals?: string[]): void {
  const fn = field(call, 'function');
  if (!fn) return;
  let args: PyNode[] | null = null;
  const qs = quals ?? ctx.r.qualify(fn);
  const attr = fn.type === 'attribute' ? field(fn, 'attribute') : null;
  const loader = qs.find(runsModuleCode) ?? (attr && ident(attr.text) === 'exec_module' ? 'exec_module' : undefined);
  if (loader !== undefined) ctx.report(call, 'HIGH', 'code_execution', 'dangerous_call.code_object', `${loader}() runs a module's code from a file or loader, outside the import statement`);
  for (const q of qs) if (RULE_HEADS.has(headOf(q))) checkQualified(ctx, call, q, (args ??= positionalArgs(call)));
}

function checkQualified(ctx: CallCtx, call: PyNode, q: string, args: PyNode[]): void {
  const { r, report } = ctx;
  const a0 = args[0];
  if (q === 'eval' || q === 'exec') {
    if (a0 && fetchesContent(ctx, a0)) report(call, 'CRITICAL', 'remote_code_execution', 'rce.exec_fetched', `${q}() of content fetched over the network`);
    else if (a0 && decodesContent(ctx, a0)) report(call, 'CRITICAL', 'code_execution', `dangerous_call.${q}_decoded`, `${q}() of decoded (obfuscated) content`);
    else if (!a0 || !isConstant(ctx, a0)) report(call, 'CRITICAL', 'code_execution', `dangerous_call.${q}`, `${q}() of a computed value`);
    else report(call, 'HIGH', 'code_execution', `dangerous_call.${q}`, `${q}() of a constant string`);
  } else if (q === 'compile') {
    if (!a0 || !isConstant(ctx, a0)) report(call, 'HIGH', 'code_execution', 'dangerous_call.compile', 'compile() of a computed value');
    else report(call, 'LOW', 'code_execution', 'dangerous_call.compile', 'compile() of a constant string');
  } else if (q === '__import__' || q === 'importlib.import_module' || q === 'importlib.__import__' || NAME_RESOLVERS.has(q)) {
    const mod = a0 ? r.fold(a0)?.replace(':', '.') ?? null : null;
    // a module name spelled as a plain literal is an ordinary (if unusual) import; a computed or
    // assembled one ('o' + 's', base64, …) is hiding what it loads
    const plain = !!a0 && a0.type === 'string' && mod !== null && !RISKY_MODULES.has(mod.split('.')[0]);
    const sev: Severity = mod === null ? (q === '__import__' ? 'CRITICAL' : 'HIGH') : plain ? 'MEDIUM' : 'HIGH';
    report(call, sev, 'dynamic_import', q === '__import__' ? 'dangerous_call.__import__' : 'import.dynamic', mod === null ? `${q}() of a computed module name` : `${q}(${JSON.stringify(mod)})`);
  } else if (q === 'getattr' || q === 'setattr' || q === 'delattr') {
    checkAttrAccess(ctx, call, q, args);
  } else if (q === 'runpy.run_path' || q === 'runpy.run_module' || q === 'types.FunctionType' || q === 'types.CodeType' || q === 'code.InteractiveInterpreter' || q === 'code.InteractiveConsole' || q === 'code.interact') {
    report(call, 'HIGH', 'code_execution', 'dangerous_call.code_object', `${q}() builds or runs code outside the normal import path`);
  } else if (DEBUGGERS.has(q)) {
    report(call, 'HIGH', 'code_execution', 'dangerous_call.debugger', `${q}() opens a debugger that runs the statements sent to it`);
  } else if (CODE_STRING_RUNNERS.has(q)) {
    const src = a0 ?? keywordArg(call, 'cmd') ?? keywordArg(call, 'statement') ?? keywordArg(call, 'expression');
    const computed = !src || !isConstant(ctx, src);
    report(call, computed ? 'CRITICAL' : 'HIGH', 'code_execution', 'dangerous_call.code_string', `${q}() runs ${computed ? 'a computed' : 'a constant'} string as Python source, as exec() does`);
  } else if (TIMEIT.has(q)) {
    for (const src of [a0 ?? keywordArg(call, 'stmt'), args[1] ?? keywordArg(call, 'setup')]) {
      if (!src || isCallableValue(ctx, src)) continue;
      report(call, 'HIGH', 'code_execution', 'dangerous_call.code_string', `${q}() runs ${isConstant(ctx, src) ? 'a constant string' : 'a value that may be a string'} as Python source, as exec() does`);
      break;
    }
  } else if (q === 'operator.attrgetter' || q === 'operator.methodcaller') {
    // attrgetter('system')(os) and methodcaller('system', 'id')(os) are getattr by another name
    for (const a of q === 'operator.attrgetter' ? args : args.slice(0, 1)) {
      const name = ctx.r.fold(a);
      if (name === null) {
        report(call, 'MEDIUM', 'reflection', 'dangerous_call.getattr_dynamic', `${q}() with a computed attribute name`);
        break;
      }
      const bad = name.split('.').map((part) => part.normalize('NFKC')).find((part) => DANGEROUS_ATTR_NAMES.has(part) || /^(exec|spawn)[lvpe]+$/.test(part));
      if (bad !== undefined) {
        report(call, 'CRITICAL', 'code_execution', 'dangerous_call.getattr_dangerous_name', `${q}() looks up ${JSON.stringify(bad)} by name`);
        break;
      }
    }
  } else if (DESERIALIZERS.has(q)) {
    // shelve unpickles every value it reads: HIGH (a constant path is still a file someone may write)
    report(call, q.startsWith('shelve.') ? 'HIGH' : 'CRITICAL', 'unsafe_deserialization', q.startsWith('marshal') ? 'deserialization.marshal' : 'deserialization.pickle', `${q}() can execute code embedded in the data`);
  } else if (q === 'torch.load') {
    // torch.load unpickles unless weights_only=True (the default changed only in torch 2.6)
    const wo = keywordArg(call, 'weights_only');
    if (!wo || wo.type !== 'true') report(call, 'CRITICAL', 'unsafe_deserialization', 'deserialization.pickle', 'torch.load() without weights_only=True unpickles the file');
  } else if (q === 'numpy.load') {
    const ap = keywordArg(call, 'allow_pickle');
    if (ap && ap.type !== 'false' && ap.type !== 'none') report(call, 'CRITICAL', 'unsafe_deserialization', 'deserialization.pickle', 'numpy.load() with allow_pickle unpickles object arrays');
  } else if (q === 'os.startfile') {
    const computed = !a0 || !isConstant(ctx, a0);
    report(call, computed ? 'CRITICAL' : 'HIGH', computed ? 'command_injection' : 'process_execution', 'process.startfile', `os.startfile() opens ${computed ? 'a computed path' : 'a file'} with its associated program (runs executables)`);
  } else if (q === 'yaml.load' || q === 'yaml.load_all') {
    const loader = keywordArg(call, 'Loader') ?? args[1] ?? null;
    const names = loader ? r.qualify(loader) : [];
    if (!loader) report(call, 'HIGH', 'unsafe_deserialization', 'deserialization.yaml', `${q}() without an explicit SafeLoader`);
    else if (!names.length || !names.every((n) => SAFE_YAML_LOADERS.test(n))) report(call, 'CRITICAL', 'unsafe_deserialization', 'deserialization.yaml', `${q}() with a loader that can construct arbitrary objects`);
  } else if (q === 'yaml.unsafe_load' || q === 'yaml.unsafe_load_all' || q === 'yaml.full_load' || q === 'yaml.full_load_all') {
    report(call, q.includes('unsafe') ? 'CRITICAL' : 'HIGH', 'unsafe_deserialization', 'deserialization.yaml', `${q}() can construct arbitrary objects`);
  } else if (SHELL_STRING_EXEC.has(q)) {
    shellFinding(ctx, call, q, commandOf(ctx, a0), true);
  } else if (/^os\.(exec|spawn)[lvpe]*$/.test(q) || q === 'os.posix_spawn' || q === 'os.posix_spawnp' || q === 'pty.spawn' || PRIVATE_SPAWN.has(q)) {
    const tail = args.slice(1).map((a) => commandOf(ctx, a));
    const literal = a0 && r.fold(a0) !== null && tail.every((c) => c.kind !== 'dynamic' && !(c.kind === 'argv' && c.items.some((i) => i === null)));
    report(call, 'CRITICAL', 'process_execution', q === 'pty.spawn' ? 'process.pty_spawn' : 'process.exec_replace', `${q}() ${literal ? 'replaces or spawns a process' : 'runs a program with computed arguments'}`);
  } else if (SUBPROCESS_ARGV.has(q)) {
    subprocessFinding(ctx, call, q, args);
  } else if (q === `${NAMESPACE}.get` || q === 'builtins.__dict__.get' || q === 'builtins.get') {
    // globals().get('__builtins__'), vars(builtins).get(name)
    const key = a0 ? r.fold(a0) : null;
    if (key !== null && (DANGEROUS_ATTR_NAMES.has(key.normalize('NFKC')) || key === 'getattr')) {
      report(call, 'CRITICAL', 'sandbox_escape', 'dangerous_call.namespace_lookup', `looks up ${JSON.stringify(key)} in a namespace dictionary`);
    } else if (key === null) {
      report(call, q === `${NAMESPACE}.get` ? 'MEDIUM' : 'HIGH', 'reflection', 'dangerous_call.namespace_dynamic', 'computed key looked up in a namespace dictionary');
    }
  } else if (q === 'os.dup2') {
    checkDup2(ctx, call, args);
  } else if (q === 'ctypes.memmove' || q === 'ctypes.memset' || /^ctypes\..*\.from_address\(\)$/.test(q + '()') || q.startsWith('ctypes.pythonapi.')) {
    report(call, q.startsWith('ctypes.pythonapi.') ? 'HIGH' : 'CRITICAL', 'raw_memory_write', 'memory.ctypes_write', `${q}() writes raw process memory`);
  } else if (/^ctypes\.(CDLL|PyDLL|WinDLL|OleDLL|cdll|windll|oledll|pydll|LibraryLoader)/.test(q)) {
    // ctypes.CDLL(None).system(b'id') calls libc directly, past every Python-level rule
    const viaLibrary = /^ctypes\.(CDLL|PyDLL|WinDLL|OleDLL)\(\)\.|^ctypes\.(cdll|windll|oledll|pydll)\.(?!LoadLibrary$)|^ctypes\.(cdll|windll|oledll|pydll)\.LoadLibrary\(\)\./.test(q);
    if (viaLibrary) report(call, 'HIGH', 'native_code_execution', 'memory.ctypes_native_call', `${q}() calls a native library function directly`);
    else report(call, 'MEDIUM', 'native_code_execution', 'memory.ctypes_load_library', `${q}() loads a native library`);
  } else if (['shutil.rmtree', 'os.remove', 'os.unlink', 'os.rmdir', 'os.removedirs'].includes(q)) {
    checkDelete(ctx, call, q, a0 ?? keywordArg(call, 'path'));
  }
  if (isNetwork(q) && namedChildrenOfArgs(call).some((a) => wholeEnviron(ctx, a))) {
    report(call, 'CRITICAL', 'environment_exfiltration', 'exfiltration.environ', `${q}() sends the whole process environment over the network`);
  }
}

function namedChildrenOfArgs(call: PyNode): PyNode[] {
  const list = field(call, 'arguments');
  return list ? namedChildren(list) : [];
}

function checkAttrAccess(ctx: CallCtx, call: PyNode, q: string, args: PyNode[]): void {
  const name = args[1] ? ctx.r.fold(args[1]) : null;
  const targets = args[0] ? ctx.r.qualify(args[0]) : [];
  const onBuiltins = targets.some((t) => t === 'builtins' || t === 'builtins.__dict__');
  const onModule = targets.some((t) => ctx.r.importedModules.has(t));
  if (name !== null) {
    const n = name.normalize('NFKC');
    if (DANGEROUS_ATTR_NAMES.has(n) || /^(exec|spawn)[lvpe]+$/.test(n)) {
      ctx.report(call, 'CRITICAL', 'code_execution', `dangerous_call.${q}_dangerous_name`, `${q}() looks up ${JSON.stringify(n)} by name`);
    }
    return;
  }
  if (onBuiltins) ctx.report(call, 'CRITICAL', 'sandbox_escape', `dangerous_call.${q}_builtins`, `${q}() on builtins with a computed name`);
  else if (onModule) ctx.report(call, 'HIGH', 'code_execution', `dangerous_call.${q}_dynamic`, `${q}() on a module with a computed name`);
  else ctx.report(call, 'MEDIUM', 'reflection', `dangerous_call.${q}_dynamic`, `${q}() with a computed attribute name`);
}

function checkDup2(ctx: CallCtx, call: PyNode, args: PyNode[]): void {
  const target = args[1] ? intValue(args[1]) : null;
  if (target === null || target < 0 || target > 2 || !args[0]) return;
  const fromSocket = reaches(ctx, args[0], (_n, qs) => qs.some((q) => SOCKET_PREFIXES.some((p) => q.startsWith(p)) || /^socket\.socket\(\)\.accept\(\)/.test(q)));
  if (fromSocket) ctx.report(call, 'CRITICAL', 'reverse_shell', 'shell.reverse_dup2', 'os.dup2() wires a socket to standard input/output (reverse shell)');
  else if (ctx.r.importedModules.has('socket')) ctx.report(call, 'HIGH', 'reverse_shell', 'shell.stdio_redirect', 'os.dup2() redirects standard input/output in a module that opens sockets');
}

/** The home directory itself: `Path.home()`, `os.path.expanduser('~')`, `os.environ['HOME']`, `os.getenv('HOME')`. */
function isHomeDir(ctx: CallCtx, node: PyNode, depth = 0): boolean {
  if (depth > 4) return false;
  if (node.type === 'identifier') {
    const bs = ctx.r.bindings.get(node.text.normalize('NFKC')) ?? [];
    return bs.length > 0 && bs.every((b) => b.kind === 'expr' && isHomeDir(ctx, b.node, depth + 1));
  }
  if (node.type === 'call') {
    const qs = ctx.r.qualify(field(node, 'function') as PyNode);
    const a0 = positionalArgs(node)[0];
    const arg = a0 ? ctx.r.fold(a0) : null;
    return qs.some(
      (q) =>
        q === 'pathlib.Path.home' ||
        (q === 'os.path.expanduser' && arg !== null && isCriticalPath(arg)) ||
        ((q === 'os.getenv' || q === 'os.environ.get') && arg === 'HOME'),
    );
  }
  if (node.type === 'subscript') {
    const key = field(node, 'subscript');
    return ctx.r.qualify(field(node, 'value') as PyNode).includes('os.environ') && !!key && ctx.r.fold(key) === 'HOME';
  }
  return false;
}

function checkDelete(ctx: CallCtx, call: PyNode, q: string, target: PyNode | null | undefined): void {
  if (!target || q === 'shutil.move') return;
  const path = ctx.r.fold(target);
  if ((path !== null && isCriticalPath(path)) || isHomeDir(ctx, target)) {
    ctx.report(call, 'CRITICAL', 'destructive_filesystem_operation', 'filesystem.destructive', `${q}() on a system or home path`);
  } else if (path === null && q === 'shutil.rmtree') {
    ctx.report(call, 'LOW', 'destructive_filesystem_operation', 'filesystem.rmtree_dynamic', 'shutil.rmtree() on a computed path');
  }
}
