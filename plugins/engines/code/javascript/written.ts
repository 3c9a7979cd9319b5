import type { JsNode } from './parser.js';
import { type JsResolver, propName } from './resolve.js';
import { type PathTail, scriptStem } from '../path-tail.js';
import type { Severity } from '../types.js';

type Report = (n: JsNode, severity: Severity, type: string, rule: string, message: string) => void;

const FS = String.raw`(?:fs|fs\/promises|fs\.promises|fsPromises)`;
/** fs calls that put content at their first argument. */
const WRITERS = new RegExp(String.raw`^${FS}\.(?:writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|open|openSync)$`);
/** fs calls that put a file at their second argument. */
const PLACERS = new RegExp(String.raw`^${FS}\.(?:copyFile|copyFileSync|cp|cpSync|rename|renameSync|link|linkSync|symlink|symlinkSync)$`);
const RUNNERS = new Set(['child_process.execFile', 'child_process.execFileSync', 'child_process.spawn', 'child_process.spawnSync']);
/** require() of JSON parses data; it runs nothing. */
const DATA = /\.(json|txt|md|csv|html?)$/i;
const JOINS = new Set(['path.join', 'path.resolve', 'path.posix.join', 'path.win32.join', 'path.posix.resolve']);

interface Write {
  at: JsNode;
  key: string;
  value: string | null;
  tail: PathTail | null;
}

/**
 * The JavaScript side of "a file written, then run" (python/written.ts): `fs.writeFileSync(p, src)`
 * then `require(p)`, `import(p)`, `new Worker(p)` or `execFile(p)`. Proven when the load names the
 * same constant path, the same expression (a variable), or a relative/absolute path whose file name
 * (without .js/.mjs/.cjs/.ts) is the written one's. `fs.open(p, 'r')` and data files (JSON, text)
 * are not writes of code.
 */
export class JsWrittenCode {
  private readonly writes: Write[] = [];
  private readonly loads: Array<[JsNode, JsNode, string]> = [];

  constructor(
    private readonly r: JsResolver,
    private readonly report: Report,
  ) {}

  /** A structural key of an expression: two loads of the same variable or call spelled alike compare equal. */
  private key(n: JsNode, depth = 0): string {
    if (depth > 12) return '?';
    switch (n.type) {
      case 'Identifier':
        return n.name as string;
      case 'MemberExpression':
        return `${this.key(n.object as JsNode, depth + 1)}.${propName(n, (x) => this.r.fold(x)) ?? '?'}`;
      case 'CallExpression':
        return `${this.key(n.callee as JsNode, depth + 1)}(${(n.arguments as JsNode[]).map((a) => this.key(a, depth + 1)).join(',')})`;
      default: {
        const v = this.r.fold(n);
        return v !== null ? JSON.stringify(v) : `@${n.start}`;
      }
    }
  }

  private tail(n: JsNode, depth = 0): PathTail | null {
    const whole = this.r.fold(n);
    if (whole !== null) return { text: whole, whole: true };
    if (depth > 8) return null;
    if (n.type === 'BinaryExpression' && n.operator === '+') {
      const t = this.tail(n.right as JsNode, depth + 1);
      return t && { text: t.text, whole: false };
    }
    if (n.type === 'TemplateLiteral') {
      const quasis = n.quasis as JsNode[];
      const cooked = (quasis[quasis.length - 1].value as { cooked: string | null }).cooked;
      return cooked ? { text: cooked, whole: false } : null;
    }
    if (n.type === 'CallExpression' && this.r.qualify(n.callee as JsNode).some((q) => JOINS.has(q))) {
      const args = n.arguments as JsNode[];
      const t = args.length ? this.tail(args[args.length - 1], depth + 1) : null;
      return t && { text: t.text, whole: true };
    }
    if (n.type === 'Identifier') {
      const bs = this.r.bindings.get(n.name as string) ?? [];
      return bs.length === 1 && bs[0].kind === 'expr' ? this.tail(bs[0].node, depth + 1) : null;
    }
    return null;
  }

  private write(at: JsNode, target: JsNode | undefined): void {
    if (target) this.writes.push({ at, key: this.key(target), value: this.r.fold(target), tail: this.tail(target) });
  }

  visit(n: JsNode): void {
    if (n.type === 'ImportExpression') {
      this.loads.push([n, n.source as JsNode, 'import()']);
      return;
    }
    if (n.type !== 'CallExpression' && n.type !== 'NewExpression') return;
    const args = n.arguments as JsNode[];
    for (const q of this.r.qualify(n.callee as JsNode)) {
      if (WRITERS.test(q)) {
        // fs.open(p, 'r') reads; any other flag (or a computed one) may write
        const flags = /open(Sync)?$/.test(q) ? (args[1] ? this.r.fold(args[1]) : 'r') : 'w';
        if (flags === null || /[wa+]/.test(flags)) this.write(n, args[0]);
      } else if (PLACERS.test(q)) this.write(n, args[1]);
      else if ((q === 'require' || q.endsWith('.require')) && n.type === 'CallExpression' && args[0]) this.loads.push([n, args[0], 'require()']);
      else if (q === 'worker_threads.Worker' && n.type === 'NewExpression' && args[0]) this.loads.push([n, args[0], 'new Worker()']);
      else if (RUNNERS.has(q) && args[0]) this.loads.push([n, args[0], `${q}()`]);
    }
  }

  finish(): void {
    if (!this.writes.length) return;
    for (const [at, target, how] of this.loads) {
      const value = this.r.fold(target);
      const key = this.key(target);
      // a relative or absolute path (not a package name) is matched by its file name
      const stem = value !== null && /^(\.{1,2}[\\/]|[\\/]|[a-z]:\\|file:)/i.test(value) ? scriptStem({ text: value, whole: true }) : null;
      if (value !== null && DATA.test(value)) continue;
      const w = this.writes.find((x) => !(x.tail && DATA.test(x.tail.text)) && ((value !== null && x.value === value) || x.key === key || (stem !== null && x.tail !== null && scriptStem(x.tail) === stem)));
      if (w) this.report(at, 'HIGH', 'code_execution', 'dangerous_call.written_code', `${how} loads ${value !== null ? JSON.stringify(value) : 'a path'} that this program writes (line ${w.at.loc?.start.line ?? '?'})`);
    }
  }
}
