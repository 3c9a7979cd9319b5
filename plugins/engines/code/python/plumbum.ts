import { type PyNode, field, namedChildren } from './parser.js';
import { ident, positionalArgs } from './resolve.js';
import { argvFinding, commandOf, markedItem, shellFinding } from './process-rules.js';
import type { CallCtx } from './call-ctx.js';

/**
 * plumbum builds a command object from a machine and a program name — `local['ls']`,
 * `local.get('ls')`, `local.cmd.ls`, `from plumbum.cmd import ls`, an `SshMachine(…)['ls']` —
 * binds arguments with `[…]` (`ls['-l', path]`) and runs it by a call, `.run()`, `& FG`, `| other`.
 * The program and the arguments in sight are judged as an argv: where the command is made (or, when
 * arguments follow, where they are bound or it is called). `machine.session().run(cmd)` is a shell.
 */
const MACHINE = /^plumbum(\.machines(\.\w+)*)?\.(local|LocalMachine\(\)|SshMachine\(\)|ParamikoMachine\(\)|PuttyMachine\(\))$/;
const CMD_MODULE = /^plumbum(\.machines(\.\w+)*)?(\.local)?\.cmd$/;
/** Methods returning the same command with more arguments or settings. */
const BINDERS = new Set(['bound_command', 'with_env', 'with_cwd', 'setenv']);
/** Methods that run the command, the first argument adding arguments. */
const RUNNERS = new Set(['run', 'popen', 'run_fg', 'run_bg', 'run_tee', 'run_tf', 'run_retcode', 'run_nohup', 'nohup', 'bgrun']);

interface Cmd {
  program: string | null;
  args: PyNode[];
}

export class Plumbum {
  private readonly names = new Map<string, Cmd[]>();

  constructor(private readonly ctx: CallCtx) {}

  private isMachine(node: PyNode): boolean {
    return this.ctx.r.qualify(node).some((q) => MACHINE.test(q));
  }

  /** The commands an expression may be (empty when it is none); `budget` bounds the walk through bindings. */
  commands(node: PyNode, depth = 0, budget = { left: 256 }): Cmd[] {
    if (depth > 12 || budget.left-- <= 0) return [];
    switch (node.type) {
      case 'parenthesized_expression':
        return namedChildren(node)[0] ? this.commands(namedChildren(node)[0], depth + 1, budget) : [];
      case 'subscript': {
        const value = field(node, 'value') as PyNode;
        const keys = node.children.filter((c) => c.field === 'subscript');
        if (this.isMachine(value)) return [{ program: keys.length === 1 ? this.ctx.r.fold(keys[0]) : null, args: [] }];
        const more = keys.flatMap((k) => (k.type === 'tuple' ? namedChildren(k) : [k]));
        return this.commands(value, depth + 1, budget).map((c) => ({ program: c.program, args: [...c.args, ...more] }));
      }
      case 'attribute': {
        const attr = ident((field(node, 'attribute') as PyNode).text);
        const obj = field(node, 'object') as PyNode;
        const quals = this.ctx.r.qualify(obj);
        if (quals.some((q) => CMD_MODULE.test(q) || (q.endsWith('.cmd') && MACHINE.test(q.slice(0, -4))))) return [{ program: attr, args: [] }];
        if (attr === 'python' && quals.some((q) => MACHINE.test(q))) return [{ program: 'python', args: [] }];
        return [];
      }
      case 'call': {
        const fn = field(node, 'function') as PyNode;
        if (fn.type !== 'attribute') return [];
        const attr = ident((field(fn, 'attribute') as PyNode).text);
        const obj = field(fn, 'object') as PyNode;
        const a0 = positionalArgs(node)[0];
        if (attr === 'get' && this.isMachine(obj)) return [{ program: a0 ? this.ctx.r.fold(a0) : null, args: [] }];
        if (!BINDERS.has(attr)) return [];
        return this.commands(obj, depth + 1, budget).map((c) => ({ program: c.program, args: attr === 'bound_command' ? [...c.args, ...positionalArgs(node)] : c.args }));
      }
      case 'identifier': {
        // memoised per name (`x = x['a']` rebinding chains are otherwise walked from every use)
        const name = ident(node.text);
        const memo = this.names.get(name);
        if (memo) return memo;
        this.names.set(name, []);
        const out: Cmd[] = [];
        for (const b of this.ctx.r.bindings.get(name) ?? []) {
          if (b.kind === 'module' && CMD_MODULE.test(b.qual.slice(0, b.qual.lastIndexOf('.')))) out.push({ program: b.qual.slice(b.qual.lastIndexOf('.') + 1), args: [] });
          else if (b.kind === 'expr') out.push(...this.commands(b.node, depth + 1, budget));
          if (out.length > 64) break;
        }
        this.names.set(name, out);
        return out;
      }
    }
    return [];
  }

  private judge(at: PyNode, c: Cmd, extra: PyNode[]): void {
    if (c.program === null) {
      this.ctx.report(at, 'HIGH', 'command_injection', 'process.dynamic_program', 'a plumbum command runs a program chosen at run time');
      return;
    }
    const nodes = [...c.args, ...extra];
    const items = nodes.map((x) => (x.type === 'list_splat' ? null : this.ctx.r.fold(x)));
    argvFinding(this.ctx, at, `plumbum ${JSON.stringify(c.program)}`, c.program, items, { marked: nodes.map((x) => (x.type === 'list_splat' ? null : markedItem(this.ctx, x))) });
  }

  /**
   * A call: `machine.session().run(cmd)` (a shell), a command called (`ls('-l')`) or run
   * (`ls.run(['-l'])`) with its arguments, or `machine.get(p)` / `bound_command(…)` making one.
   */
  call(n: PyNode, quals: readonly string[]): void {
    const session = quals.find((q) => /\.session\(\)\.(run|popen)$/.test(q) && MACHINE.test(q.replace(/\.session\(\)\.(run|popen)$/, '')));
    if (session !== undefined) {
      shellFinding(this.ctx, n, `${session}()`, commandOf(this.ctx, positionalArgs(n)[0]), true);
      return;
    }
    const fn = field(n, 'function') as PyNode;
    const args = positionalArgs(n);
    const called = this.commands(fn);
    if (called.length) {
      for (const c of called) this.judge(n, c, args);
      return;
    }
    const method = fn.type === 'attribute' ? ident((field(fn, 'attribute') as PyNode).text) : '';
    if (RUNNERS.has(method)) {
      const a0 = args[0];
      const extra = a0 && (a0.type === 'list' || a0.type === 'tuple') ? namedChildren(a0) : a0 ? [a0] : [];
      for (const c of this.commands(field(fn, 'object') as PyNode)) this.judge(n, c, extra);
      return;
    }
    this.expression(n);
  }

  /**
   * A command expression whose parent does not extend it (bind more arguments, call or run it):
   * `cmd = local['bash']`, `local['ls'] | local['sh']`, `local['ls'] & FG`.
   */
  expression(n: PyNode): void {
    const p = n.parent;
    if (p && p.type === 'subscript' && n.field === 'value') return;
    if (p && p.type === 'call' && n.field === 'function') return;
    if (p && p.type === 'attribute' && n.field === 'object' && (BINDERS.has(ident((field(p, 'attribute') as PyNode).text)) || RUNNERS.has(ident((field(p, 'attribute') as PyNode).text)))) return;
    if (n.type === 'attribute' && p && p.type === 'attribute' && n.field === 'object') return;
    for (const c of this.commands(n)) this.judge(n, c, []);
  }

  /** `from plumbum.cmd import bash`: the name is that program's command. */
  importStatement(n: PyNode): void {
    const mod = field(n, 'module_name');
    if (n.type !== 'import_from_statement' || !mod || !CMD_MODULE.test(mod.text.replace(/\s+/g, ''))) return;
    for (const c of n.children.filter((x) => x.field === 'name')) {
      const name = c.type === 'aliased_import' ? (field(c, 'name') as PyNode) : c;
      this.judge(n, { program: ident(name.text), args: [] }, []);
    }
  }
}
