import { type PyNode, field, namedChildren } from './parser.js';
import { type Resolver, ident, keywordArg, positionalArgs } from './resolve.js';
import type { Report } from './rules.js';
import { type PathTail, isPythonStartupFile, pythonModuleName } from '../path-tail.js';

const OPENERS = new Set(['open', 'io.open', 'codecs.open', 'os.fdopen']);
/** Calls that create a file at their second argument. */
const PLACERS = new Set(['shutil.copy', 'shutil.copy2', 'shutil.copyfile', 'shutil.move', 'os.rename', 'os.replace', 'os.link', 'os.symlink']);
const JOINS = new Set(['os.path.join', 'pathlib.Path', 'pathlib.PurePath', 'pathlib.PosixPath', 'pathlib.WindowsPath']);
const RUNNERS = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output', 'subprocess.Popen', 'asyncio.create_subprocess_exec', 'distutils.spawn.spawn']);

interface Write {
  at: PyNode;
  /** source texts naming the file: the target, and the path inside `Path(p)` */
  texts: string[];
  value: string | null;
  tail: PathTail | null;
}

const squash = (n: PyNode): string => n.text.replace(/\s+/g, '');

/**
 * A file this program writes and then imports or runs is code the program made, whatever the rules
 * proved about the import statement or the fixed program path: `open('gen.py', 'w').write(src)` then
 * `import gen`; `Path(p).write_text(script)` then `subprocess.run([p])`. Proven when the module name
 * is the written file's name, or the program is the same constant path or the same expression
 * (a variable) as the write's target. Order is not required: resolution is scope-insensitive, and a
 * loop or a function may run the load after the write. Writing a `.pth` file or
 * sitecustomize/usercustomize.py is a finding on its own: Python's site module runs them at every
 * start. Writing any other file, `.py` included, is not: generating code is not running it.
 */
export class WrittenCode {
  private readonly writes: Write[] = [];
  private readonly imports: Array<[PyNode, string]> = [];
  private readonly programs: Array<[PyNode, PyNode]> = [];

  constructor(
    private readonly r: Resolver,
    private readonly report: Report,
  ) {}

  /** The constant end of a path expression (see path-tail.ts), following names bound to one value. */
  private tail(n: PyNode, depth = 0): PathTail | null {
    const whole = this.r.fold(n);
    if (whole !== null) return { text: whole, whole: true };
    if (depth > 8) return null;
    switch (n.type) {
      case 'binary_operator': {
        const op = n.children.find((c) => c.field === 'operator')?.text;
        const right = field(n, 'right');
        const t = right && (op === '+' || op === '/') ? this.tail(right, depth + 1) : null;
        return t && op === '/' ? { text: t.text, whole: true } : t && { text: t.text, whole: false };
      }
      case 'string': {
        const last = n.children.filter((c) => c.type === 'string_content' || c.type === 'interpolation').pop();
        return last && last.type === 'string_content' ? { text: last.text, whole: false } : null;
      }
      case 'call': {
        const fn = field(n, 'function') as PyNode;
        const args = positionalArgs(n);
        const last = args[args.length - 1];
        const isJoin = this.r.qualify(fn).some((q) => JOINS.has(q)) || (fn.type === 'attribute' && ['joinpath', 'with_name'].includes(ident((field(fn, 'attribute') as PyNode).text)));
        const t = isJoin && last ? this.tail(last, depth + 1) : null;
        return t && { text: t.text, whole: true };
      }
      case 'parenthesized_expression': {
        const inner = namedChildren(n)[0];
        return inner ? this.tail(inner, depth + 1) : null;
      }
      case 'identifier': {
        const bs = this.r.bindings.get(ident(n.text)) ?? [];
        const b = bs.length === 1 ? bs[0] : undefined;
        return b && b.kind === 'expr' ? this.tail(b.node, depth + 1) : null;
      }
    }
    return null;
  }

  private write(at: PyNode, target: PyNode | null | undefined): void {
    if (!target) return;
    const tail = this.tail(target);
    const texts = [squash(target)];
    const a0 = target.type === 'call' ? positionalArgs(target)[0] : undefined;
    if (a0 && this.r.qualify(field(target, 'function') as PyNode).some((q) => JOINS.has(q))) texts.push(squash(a0));
    this.writes.push({ at, texts, value: this.r.fold(target), tail });
    if (tail && isPythonStartupFile(tail)) this.report(at, 'HIGH', 'code_execution', 'dangerous_call.startup_file', `writes ${JSON.stringify(tail.text)}: Python's site module runs .pth import lines and sitecustomize/usercustomize at every interpreter start`);
  }

  call(n: PyNode, quals: readonly string[]): void {
    const fn = field(n, 'function') as PyNode;
    const args = positionalArgs(n);
    const method = fn.type === 'attribute' ? ident((field(fn, 'attribute') as PyNode).text) : null;
    // write_text/write_bytes are pathlib's whatever the receiver (Path(d) / 'x.pth' has no name)
    if (method === 'write_text' || method === 'write_bytes') this.write(n, field(fn, 'object'));
    for (const q of quals) {
      if (OPENERS.has(q) || q.endsWith('Path().open')) {
        const target = q.endsWith('Path().open') ? field(fn, 'object') : (args[0] ?? keywordArg(n, 'file'));
        const modeNode = q.endsWith('Path().open') ? args[0] : (args[1] ?? keywordArg(n, 'mode'));
        const mode = modeNode ? this.r.fold(modeNode) : 'r';
        if (mode === null || /[wax+]/.test(mode)) this.write(n, target);
      } else if (PLACERS.has(q)) this.write(n, args[1] ?? keywordArg(n, 'dst'));
      else if (q === 'importlib.import_module' || q === '__import__') {
        const name = args[0] ? this.r.fold(args[0]) : null;
        if (name !== null) this.imports.push([n, name]);
      } else if (RUNNERS.has(q)) {
        const exe = keywordArg(n, 'executable');
        const a0 = q === 'asyncio.create_subprocess_exec' ? args[0] : (args[0] ?? keywordArg(n, 'args'));
        const program = exe && exe.type !== 'none' ? exe : a0 && (a0.type === 'list' || a0.type === 'tuple') ? namedChildren(a0)[0] : a0;
        if (program) this.programs.push([n, program]);
      }
    }
  }

  importStatement(n: PyNode): void {
    if (n.type === 'import_statement') {
      for (const c of n.children.filter((x) => x.field === 'name')) this.imports.push([n, (c.type === 'aliased_import' ? (field(c, 'name') as PyNode) : c).text]);
      return;
    }
    const mod = field(n, 'module_name');
    if (mod) this.imports.push([n, mod.text]);
    // `from pkg import gen` imports pkg.gen when gen is a submodule
    for (const c of n.children.filter((x) => x.field === 'name')) this.imports.push([n, (c.type === 'aliased_import' ? (field(c, 'name') as PyNode) : c).text]);
  }

  /** Pairs every write with the imports and programs that load the same file (after the module's one pass). */
  finish(): void {
    if (!this.writes.length) return;
    const modules = new Map<string, Write>();
    for (const w of this.writes) {
      const name = w.tail ? pythonModuleName(w.tail) : null;
      if (name !== null) modules.set(ident(name), w);
    }
    for (const [at, dotted] of this.imports) {
      const hit = dotted.replace(/\s+/g, '').split('.').map(ident).find((seg) => modules.has(seg));
      if (hit !== undefined) this.report(at, 'HIGH', 'code_execution', 'dangerous_call.written_code', `imports ${JSON.stringify(hit)}, a module this program writes (line ${(modules.get(hit) as Write).at.row + 1})`);
    }
    for (const [at, program] of this.programs) {
      const value = this.r.fold(program);
      const text = squash(program);
      const w = this.writes.find((x) => (value !== null && x.value === value) || x.texts.includes(text));
      if (w) this.report(at, 'HIGH', 'code_execution', 'dangerous_call.written_code', `runs ${value !== null ? JSON.stringify(value) : program.text}, a file this program writes (line ${w.at.row + 1})`);
    }
  }
}
