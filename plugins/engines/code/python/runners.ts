import { type PyNode, field, namedChildren } from './parser.js';
import { ident, keywordArg, positionalArgs } from './resolve.js';
import { argvFinding, commandOf, markedItem, shellFinding } from './process-rules.js';
import { Plumbum } from './plumbum.js';
import { classifyShellCommand, splitCommandLine } from '../shell.js';
import { COMPUTED_TAIL } from '../git-options.js';
import type { CallCtx } from './rules.js';

/**
 * Third-party libraries that run programs, judged as subprocess is: a command handed to a shell
 * (invoke, fabric — on this host or a remote one —, delegator) is a shell command; a command line
 * split into argv without a shell (pexpect, envoy) or an argv (ptyprocess, sh, plumbum) is a
 * program with arguments, so a fixed program with fixed arguments stays admitted.
 */

const SHELL_RUNNERS = new Set([
  'invoke.run', 'invoke.sudo', 'fabric.api.run', 'fabric.api.sudo', 'fabric.api.local', 'fabric.operations.run', 'fabric.operations.sudo', 'fabric.operations.local',
  'delegator.run', 'delegator.chain', 'delegator.Command',
]);
/** Objects whose run/sudo/local methods hand a command to a shell (fabric's on a remote host). */
const SHELL_OBJECTS = /^(invoke(\.context)?\.Context|invoke(\.runners)?\.Local|fabric(\.connection)?\.Connection|fabric(\.group)?\.(Serial|Threading)?Group)(\(\))?$/;
const SHELL_METHODS = new Set(['run', 'sudo', 'local']);
/** Task decorators: the task's first parameter is a Context/Connection (`@task def build(c): c.run(…)`). */
const TASK_DECORATORS = /^(invoke|fabric)(\.tasks?)?\.task$|^fabric\.(api|decorators)\.task$/;
/** pexpect and its relatives split a command line into argv (no shell); `args=` makes the string the program. */
const SPLIT_RUNNERS = new Set(['pexpect.spawn', 'pexpect.spawnu', 'pexpect.run', 'pexpect.runu', 'pexpect.pty_spawn.spawn', 'pexpect.popen_spawn.PopenSpawn', 'pexpect.replwrap.REPLWrapper', 'wexpect.spawn', 'wexpect.run']);
const ARGV_RUNNERS = new Set(['ptyprocess.PtyProcess.spawn', 'ptyprocess.PtyProcessUnicode.spawn']);
const REPL_SHELLS = new Set(['pexpect.replwrap.bash', 'pexpect.replwrap.zsh', 'pexpect.replwrap.python']);
/** Attributes of the sh module that are not programs. */
const SH_OBJECTS = /^(Command|glob|pushd|RunningCommand|OProc|CommandNotFound|ErrorReturnCode.*|SignalException.*|TimeoutException|ForkException|args|__\w+__)$/;
const HEADS = new Set(['invoke', 'fabric', 'delegator', 'envoy', 'pexpect', 'wexpect', 'ptyprocess', 'sh']);

const headOf = (q: string): string => {
  const dot = q.indexOf('.');
  return dot < 0 ? q : q.slice(0, dot);
};

/** Names of these libraries that run what they are later given, for the rule on dangerous callables passed as values. */
export function runsProgramByName(q: string): boolean {
  return SHELL_RUNNERS.has(q) || SPLIT_RUNNERS.has(q) || ARGV_RUNNERS.has(q) || q === 'envoy.run' || q === 'sh.Command';
}

/**
 * The call's callee starts at a bare name `sh` that no import or module value binds (a parameter or
 * a global named sh): not the sh module. `importlib.import_module('sh').bash(…)` is.
 */
function bareSh(ctx: CallCtx, call: PyNode): boolean {
  let n = field(call, 'function');
  while (n && (n.type === 'attribute' || n.type === 'call')) n = field(n, n.type === 'attribute' ? 'object' : 'function');
  if (!n || n.type !== 'identifier' || ident(n.text) !== 'sh') return false;
  return !(ctx.r.bindings.get('sh') ?? []).some((b) => b.kind === 'expr' && ctx.r.qualify(b.node).includes('sh'));
}

export class ProcessLibraries {
  private readonly plumbum: Plumbum | null;
  private readonly sh: boolean;
  private readonly tasks: boolean;

  constructor(private readonly ctx: CallCtx) {
    const mods = [...ctx.r.importedModules];
    this.sh = ctx.r.importedModules.has('sh');
    this.tasks = mods.some((m) => m === 'invoke' || m === 'fabric' || m.startsWith('invoke.') || m.startsWith('fabric.'));
    this.plumbum = mods.some((m) => m === 'plumbum' || m.startsWith('plumbum.')) ? new Plumbum(ctx) : null;
  }

  call(n: PyNode, quals: readonly string[]): void {
    this.plumbum?.call(n, quals);
    for (const q of quals) {
      if (!HEADS.has(headOf(q))) continue;
      if (this.judge(n, q)) return;
    }
    if (this.tasks && this.contextCall(n)) this.shell(n, 'a task context .run');
  }

  /** A subscript or attribute that builds a plumbum command. */
  expression(n: PyNode): void {
    this.plumbum?.expression(n);
  }

  importStatement(n: PyNode): void {
    this.plumbum?.importStatement(n);
  }

  private judge(n: PyNode, q: string): boolean {
    const dot = q.lastIndexOf('.');
    if (SHELL_RUNNERS.has(q) || (dot > 0 && SHELL_METHODS.has(q.slice(dot + 1)) && SHELL_OBJECTS.test(q.slice(0, dot)))) {
      this.shell(n, q);
    } else if (SPLIT_RUNNERS.has(q)) {
      this.split(n, q);
    } else if (ARGV_RUNNERS.has(q)) {
      this.argv(n, q, positionalArgs(n)[0] ?? keywordArg(n, 'argv'), []);
    } else if (REPL_SHELLS.has(q)) {
      this.ctx.report(n, 'HIGH', 'process_execution', 'process.interpreter', `${q}() starts an interpreter and runs the commands sent to it`);
    } else if (q === 'envoy.run' || q === 'envoy.connect') {
      this.envoy(n, q);
    } else if ((q.startsWith('sh.') || q.startsWith('sh().')) && (this.sh || !bareSh(this.ctx, n))) {
      return this.shModule(n, q);
    } else {
      return false;
    }
    return true;
  }

  private shell(n: PyNode, fname: string): void {
    const cmd = positionalArgs(n)[0] ?? keywordArg(n, 'command') ?? keywordArg(n, 'cmd') ?? undefined;
    shellFinding(this.ctx, n, `${fname}()`, commandOf(this.ctx, cmd), true);
  }

  /**
   * `c.run(cmd)` on a task's first parameter (`@task def deploy(c)`), or on a parameter annotated
   * as a Connection or Context: invoke and fabric hand the command to a shell.
   */
  private contextCall(n: PyNode): boolean {
    const fn = field(n, 'function');
    const obj = fn && fn.type === 'attribute' ? field(fn, 'object') : null;
    if (!fn || !obj || obj.type !== 'identifier' || !SHELL_METHODS.has(ident((field(fn, 'attribute') as PyNode).text))) return false;
    const name = ident(obj.text);
    for (let p = n.parent; p; p = p.parent) {
      if (p.type !== 'function_definition') continue;
      const params = namedChildren(field(p, 'parameters') as PyNode);
      for (const [i, param] of params.entries()) {
        const id = param.type === 'identifier' ? param : param.type === 'typed_parameter' ? namedChildren(param)[0] : field(param, 'name');
        if (!id || ident(id.text) !== name) continue;
        const type = field(param, 'type');
        if (type && namedChildren(type).some((t) => this.ctx.r.qualify(t).some((q) => SHELL_OBJECTS.test(q)))) return true;
        if (i === 0 && this.isTask(p)) return true;
      }
    }
    return false;
  }

  private isTask(def: PyNode): boolean {
    if (def.parent?.type !== 'decorated_definition') return false;
    for (const d of def.parent.children) {
      if (d.type !== 'decorator') continue;
      const e = namedChildren(d)[0];
      const target = e && e.type === 'call' ? field(e, 'function') : e;
      if (target && this.ctx.r.qualify(target).some((q) => TASK_DECORATORS.test(q))) return true;
    }
    return false;
  }

  /** pexpect.spawn(command) / run(command): the command line split into argv; with `args`, the command is the program. */
  private split(n: PyNode, q: string): void {
    const [a0, a1] = positionalArgs(n);
    const cmd = a0 ?? keywordArg(n, 'command') ?? keywordArg(n, 'cmd') ?? keywordArg(n, 'cmd_or_spawn');
    const args = q === 'pexpect.spawn' || q === 'pexpect.spawnu' || q === 'pexpect.pty_spawn.spawn' || q === 'wexpect.spawn' ? (a1 ?? keywordArg(n, 'args')) : null;
    // REPLWrapper given a spawn object: the spawn was judged where it was made
    if (q === 'pexpect.replwrap.REPLWrapper' && cmd && this.ctx.r.fold(cmd) === null && this.ctx.r.qualify(cmd).some((x) => /^(pexpect|wexpect)\./.test(x))) return;
    if (args && args.type !== 'none') {
      const program = cmd ? this.ctx.r.fold(cmd) : null;
      const list = commandOf(this.ctx, args);
      if (program === null) this.ctx.report(n, 'HIGH', 'command_injection', 'process.dynamic_program', `${q}() runs a program chosen at run time`);
      else if (list.kind === 'argv') argvFinding(this.ctx, n, `${q}()`, program, list.items, { marked: list.nodes.map((x) => markedItem(this.ctx, x)) });
      else argvFinding(this.ctx, n, `${q}()`, program, [null]);
      return;
    }
    if (cmd && (cmd.type === 'list' || cmd.type === 'tuple')) return this.argv(n, q, cmd, []);
    this.line(n, `${q}()`, cmd ? this.ctx.r.fold(cmd) : null);
  }

  /** A command line run without a shell: split as the shell would quote it, the first word is the program. */
  private line(n: PyNode, fname: string, text: string | null): void {
    const words = text === null ? null : splitCommandLine(text);
    if (words === null || !words.length) {
      this.ctx.report(n, 'HIGH', 'command_injection', 'process.dynamic_program', `${fname} runs a command line chosen at run time`);
      return;
    }
    argvFinding(this.ctx, n, fname, words[0], words.slice(1));
  }

  private argv(n: PyNode, q: string, node: PyNode | null | undefined, before: string[]): void {
    const cmd = commandOf(this.ctx, node ?? undefined);
    const items = cmd.kind === 'argv' ? cmd.items : null;
    if (items === null || !items.length || items[0] === null) {
      this.ctx.report(n, 'HIGH', 'command_injection', 'process.dynamic_program', `${q}() runs a program chosen at run time`);
      return;
    }
    const marked = cmd.kind === 'argv' ? cmd.nodes.slice(1).map((x) => markedItem(this.ctx, x)) : [];
    argvFinding(this.ctx, n, `${q}()`, items[0], [...before, ...items.slice(1)], { marked: [...before, ...marked] });
  }

  /** envoy runs `a | b` as a pipeline of argv commands (no shell): each part is judged, and the whole as a pipeline. */
  private envoy(n: PyNode, q: string): void {
    const cmd = positionalArgs(n)[0] ?? keywordArg(n, 'command');
    const text = cmd ? this.ctx.r.fold(cmd) : null;
    if (text === null) {
      this.ctx.report(n, 'HIGH', 'command_injection', 'process.dynamic_program', `${q}() runs a command line chosen at run time`);
      return;
    }
    const shape = classifyShellCommand(text);
    if (shape) {
      this.ctx.report(n, shape.severity, shape.type, shape.rule, `${q}(): ${shape.message}`);
      return;
    }
    for (const part of q === 'envoy.run' ? text.split('|') : [text]) this.line(n, `${q}()`, part);
  }

  /**
   * The sh module: every other attribute is a program (`sh.ls('-l')`, `from sh import git` then
   * `git.status()`), sub-attributes are subcommands, `bake` adds arguments, `sh.Command(path)` names
   * the program. Keywords other than `_options` become `--key=value` arguments.
   */
  private shModule(n: PyNode, q: string): boolean {
    const args = positionalArgs(n);
    if (q === 'sh.Command') {
      const program = args[0] ? this.ctx.r.fold(args[0]) : null;
      if (program === null) this.ctx.report(n, 'HIGH', 'command_injection', 'process.dynamic_program', 'sh.Command() runs a program chosen at run time');
      else argvFinding(this.ctx, n, 'sh.Command()', program, []);
      return true;
    }
    const segs = q.replace(/^sh(\(\))?\./, '').split('.');
    while (segs.length && (segs[0] === 'bake()' || segs[0] === 'contrib')) segs.shift();
    const program = segs.shift();
    if (program === undefined || program.endsWith(')') || SH_OBJECTS.test(program)) return false;
    const sub: string[] = [];
    for (const s of segs) {
      if (s === 'bake' || s === 'bake()') continue;
      // a method of what a run returned (`sh.ls().wait()`): not a run
      if (s.endsWith(')')) return false;
      sub.push(s);
    }
    const items: Array<string | null> = [...sub];
    const marked: Array<string | null> = [...sub];
    for (const a of args) {
      const parts = a.type === 'list' || a.type === 'tuple' ? namedChildren(a) : [a];
      for (const p of parts) {
        items.push(p.type === 'list_splat' ? null : this.ctx.r.fold(p));
        marked.push(p.type === 'list_splat' ? null : markedItem(this.ctx, p));
      }
    }
    const list = field(n, 'arguments');
    for (const c of list ? namedChildren(list) : []) {
      if (c.type === 'list_splat' || c.type === 'dictionary_splat') {
        items.push(null);
        marked.push(null);
      }
      if (c.type !== 'keyword_argument') continue;
      const key = ident((field(c, 'name') as PyNode).text);
      if (key.startsWith('_')) continue;
      const v = field(c, 'value') as PyNode;
      const flag = key.length === 1 ? `-${key}` : `--${key.replace(/_/g, '-')}`;
      const value = v.type === 'true' ? '' : this.ctx.r.fold(v);
      items.push(value === null ? null : value === '' ? flag : `${flag}=${value}`);
      marked.push(value === null ? `${flag}=${markedItem(this.ctx, v) ?? COMPUTED_TAIL}` : items[items.length - 1]);
    }
    argvFinding(this.ctx, n, `sh.${program}()`, program, items, { marked });
    return true;
  }
}
