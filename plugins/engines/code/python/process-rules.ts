import { type PyNode, field, namedChildren } from './parser.js';
import { hasSplat, keywordArg } from './resolve.js';
import { stringParts } from './literals.js';
import { classifyArgv, classifyShellCommand, isInterpreter, isReconProgram, shellSyntaxInArgv } from '../shell.js';
import { gitFinding, launchedProgram } from '../launchers.js';
import { COMPUTED_TAIL } from '../git-options.js';
import type { CallCtx } from './call-ctx.js';

/**
 * Process-running calls: the command a shell or exec call is given, classified by what it runs
 * (shell string, argv, program behind a launcher, computed parts).
 */
export type Command = { kind: 'string'; text: string } | { kind: 'argv'; items: Array<string | null>; nodes: PyNode[] } | { kind: 'dynamic' };

/**
 * An argv item as git's option check reads it: its value, or its known prefix ended by
 * COMPUTED_TAIL (`'user.name=' + n`, `f'user.name={n}'`, `'k=%s' % v`, `'k={}'.format(v)`), or null.
 */
export function markedItem(ctx: CallCtx, node: PyNode, depth = 0): string | null {
  const v = ctx.r.fold(node);
  if (v !== null || depth > 8) return v;
  if (node.type === 'parenthesized_expression') return namedChildren(node)[0] ? markedItem(ctx, namedChildren(node)[0], depth + 1) : null;
  if (node.type === 'string') {
    const sp = stringParts(node);
    if (!sp || sp.prefix.includes('b')) return null;
    let out = '';
    for (const part of sp.parts) {
      if (typeof part !== 'string') return out + COMPUTED_TAIL;
      out += part;
    }
    return out;
  }
  const left = field(node, 'left');
  const op = node.type === 'binary_operator' ? node.children.find((c) => c.field === 'operator')?.text : undefined;
  if (op === '+' && left) {
    const l = markedItem(ctx, left, depth + 1);
    return l === null || l.includes(COMPUTED_TAIL) ? l : l + COMPUTED_TAIL;
  }
  const fn = node.type === 'call' ? field(node, 'function') : null;
  const template = op === '%' && left ? ctx.r.fold(left) : fn?.type === 'attribute' && field(fn, 'attribute')?.text === 'format' ? ctx.r.fold(field(fn, 'object') as PyNode) : null;
  if (template === null) return null;
  const at = template.search(op === '%' ? /%/ : /\{/);
  return (at < 0 ? template : template.slice(0, at)) + COMPUTED_TAIL;
}

export function commandOf(ctx: CallCtx, node: PyNode | undefined): Command {
  if (!node) return { kind: 'dynamic' };
  const s = ctx.r.fold(node);
  if (s !== null) return { kind: 'string', text: s };
  if (node.type === 'list' || node.type === 'tuple') {
    const items = namedChildren(node);
    if (items.some((i) => i.type === 'list_splat')) return { kind: 'dynamic' };
    return { kind: 'argv', items: items.map((i) => ctx.r.fold(i)), nodes: items };
  }
  return { kind: 'dynamic' };
}

export function shellFinding(ctx: CallCtx, call: PyNode, fname: string, cmd: Command, viaShell: boolean): void {
  const text = cmd.kind === 'string' ? cmd.text : cmd.kind === 'argv' ? cmd.items.map((i) => i ?? '').join(' ') : null;
  const shape = text !== null ? classifyShellCommand(text) : null;
  if (shape) {
    ctx.report(call, shape.severity, shape.type, shape.rule, `${fname}: ${shape.message}`);
    return;
  }
  if (cmd.kind === 'dynamic' || (cmd.kind === 'argv' && cmd.items.some((i) => i === null))) {
    ctx.report(call, 'CRITICAL', 'command_injection', viaShell ? 'process.shell_injection' : 'process.exec_dynamic', `${fname} runs a command built from computed values`);
    return;
  }
  ctx.report(call, 'HIGH', 'process_execution', viaShell ? 'process.shell_exec' : 'process.exec', `${fname} runs a ${viaShell ? 'shell command' : 'program'}`);
}

/** Popen(args, bufsize, executable, stdin, stdout, stderr, preexec_fn, close_fds, shell, …): run/call/check_* pass positionals through */
const POPEN_EXECUTABLE = 2;
const POPEN_SHELL = 8;

export function subprocessFinding(ctx: CallCtx, call: PyNode, fname: string, args: PyNode[]): void {
  const popen = fname.startsWith('subprocess.');
  const shellArg = keywordArg(call, 'shell') ?? (popen ? (args[POPEN_SHELL] ?? null) : null);
  const cmd = commandOf(ctx, args[0] ?? keywordArg(call, 'args') ?? undefined);
  const shellOn = fname === 'asyncio.create_subprocess_shell' || (shellArg !== null && shellArg.type !== 'false' && shellArg.type !== 'none') || hasSplat(call, 'dictionary_splat');
  if (shellOn) {
    shellFinding(ctx, call, fname, cmd, true);
    return;
  }
  const argv = fname === 'asyncio.create_subprocess_exec' ? { kind: 'argv' as const, items: args.map((a) => ctx.r.fold(a)), nodes: args } : cmd;
  // executable= is the program that runs; argv[0] is then only the name it is shown under
  const exe = keywordArg(call, 'executable') ?? (popen ? (args[POPEN_EXECUTABLE] ?? null) : null);
  const named = argv.kind === 'string' ? argv.text : argv.kind === 'argv' ? argv.items[0] : null;
  const program = exe && exe.type !== 'none' ? ctx.r.fold(exe) : named;
  if (program === null || program === undefined || hasSplat(call, 'list_splat')) {
    ctx.report(call, 'HIGH', 'command_injection', 'process.dynamic_program', `${fname} runs a program chosen at run time`);
    return;
  }
  // no shell: a string command is the program path itself (`run("ls -l")` looks for a file of that name)
  const rest = argv.kind === 'argv' ? argv.items.slice(1) : [];
  const marked = argv.kind === 'argv' ? argv.nodes.slice(1).map((n) => markedItem(ctx, n)) : [];
  argvFinding(ctx, call, fname, program, rest, { computed: argv.kind === 'argv' && argv.items.some((i) => i === null), marked });
}

/**
 * Judges a program run without a shell: `program rest…` through any launchers. `computed`: some
 * argument is computed (default: one of `rest` is null); `marked`: the items with known prefixes
 * (markedItem), for git's options.
 */
export function argvFinding(ctx: CallCtx, call: PyNode, fname: string, program: string, rest: Array<string | null>, opts: { computed?: boolean; marked?: Array<string | null> } = {}): void {
  const run = launchedProgram(program, rest);
  const through = run.via.length ? ` (through ${run.via.join(', ')})` : '';
  if (run.program === null) {
    ctx.report(call, 'HIGH', 'command_injection', 'process.dynamic_program', `${fname} runs a program chosen at run time${through}`);
    return;
  }
  const shape = classifyArgv(run.program, run.items) ?? classifyArgv(program, rest);
  const syntax = shellSyntaxInArgv(rest);
  const asText = syntax !== null ? ` (${JSON.stringify(syntax)} is an argument of ${JSON.stringify(program)}, not shell syntax: no shell runs)` : '';
  const git = gitFinding(program, opts.marked ?? rest);
  if (shape) ctx.report(call, shape.severity, shape.type, shape.rule, `${fname}: ${shape.message}${through}`);
  else if (isInterpreter(run.program)) ctx.report(call, 'HIGH', 'process_execution', 'process.interpreter', `${fname} starts the interpreter ${JSON.stringify(run.program)}${through}`);
  else if (isReconProgram(run.program)) ctx.report(call, 'HIGH', 'reconnaissance', 'process.host_recon', `${fname} runs ${JSON.stringify(run.program)}${through}, which reports the host's identity or environment`);
  else if (git !== null) ctx.report(call, 'HIGH', 'process_execution', 'process.git_option', `${fname}: git ${git}`);
  else if (opts.computed ?? rest.some((i) => i === null)) {
    ctx.report(call, 'MEDIUM', 'argument_injection', 'process.dynamic_arguments', `${fname} passes computed arguments to ${JSON.stringify(program)} (no shell)${asText}`);
  } else if (syntax !== null) {
    ctx.report(call, 'LOW', 'process_execution', 'process.argv_shell_syntax', `${fname}${asText}`);
  }
  // a fixed program with fixed arguments and no shell is the corpus's safe `subprocess.run([...])`
}
