import { type PyNode, field, namedChildren } from '../parser.js';
import type { Resolver } from '../resolve.js';
import { lineOf, source } from './expr.js';
import { CallEval, type Frame } from './calls.js';
import { type Queued, joinWaiting } from './entry-queue.js';
import { dropAttrs } from './classes.js';
import { checkSinks, isQuery, sessionStore } from './sinks.js';
import { judgeAnswer, jsonRoute, recordReturn } from './answers.js';
import { refine } from './guards.js';
import { joinMaybe, lastReturn, matchStmt, tryStmt } from './statements.js';
import { configParser } from './config-parser.js';
import { routeDef } from './routes.js';
import type { SinkNames } from './prefilter.js';
import type { ModuleIndex } from './module-index.js';
import { forget, listMethod, rootName, share } from './lists.js';
import { sameShape, widen, type Cat, type Env, type Flow, type V, UNKNOWN, allFlow, carried, join, joinEnv, konst, mix, nested, raw, truthy, unknownOrigin } from './value.js';
import { NON_MUTATING, OWN_VALUES, REDIRECTS, ALL_CATS, CONVERTERS, DATA_METHODS, DECODERS, PURE_CALLS, PATH_CTORS, READ_METHODS, SANITISERS, SOURCE_CALLS, WEAK_RANDOM, namedSanitiser } from './tables.js';

const LIBRARY_PARAM_CLEAN: ReadonlySet<Cat> = new Set(ALL_CATS.filter((c) => !['cmdi', 'codeinj', 'deserialization', 'sqli'].includes(c)));
const STR_KEEP = new Set(['lower', 'upper', 'strip', 'lstrip', 'rstrip', 'encode', 'decode', 'replace', 'format', 'title', 'capitalize', 'casefold', 'split', 'rsplit', 'splitlines', 'partition', 'center', 'ljust', 'rjust', 'zfill', 'expandtabs', 'translate', 'removeprefix', 'removesuffix', 'get', 'getlist', 'get_all', 'keys', 'values', 'items', 'copy', 'pop', 'getvalue']);

const KEEPS_EXCEPTIONS = new Set([
  'open', 'io.open', 'codecs.open', 'contextlib.nullcontext', 'contextlib.closing', 'tempfile.TemporaryFile', 'tempfile.NamedTemporaryFile',
  'tempfile.SpooledTemporaryFile', 'tempfile.TemporaryDirectory', 'threading.Lock', 'threading.RLock', 'zipfile.ZipFile', 'tarfile.open', 'os.scandir',
  'socket.socket', 'urllib.request.urlopen', 'sqlite3.connect', 'gzip.open', 'bz2.open', 'lzma.open',
]);

/** A try body being run: the join of the states any of its statements started or ended in. */
interface TryCtx {
  frame: number;
  at: Env | null;
}

/** The states a loop's `break`s and `continue`s left it in. */
interface LoopCtx {
  breaks: Env[];
  continues: Env[];
}

/**
 * Statement-by-statement abstract interpretation of one Python module: each entry point (module
 * body, route handlers, functions no other code in the file calls) runs with its parameters as
 * untrusted data; calls to functions of the same file are interpreted in place (their summary for
 * these arguments), branches whose condition folds to a constant run alone.
 */
export class FlowInterp extends CallEval {
  private loops: LoopCtx[] = [];
  private tries: TryCtx[] = [];
  private readonly queue: Queued[] = [];

  /** `entries`: which entry points can visit a sink (prefilter.ts); null runs them all */
  constructor(r: Resolver, private readonly calledNames: ReadonlySet<string>, private readonly entries: SinkNames | null = null) {
    super(r);
  }

  run(root: PyNode, index: ModuleIndex): void {
    this.index = index;
    this.frames.push({ returns: null, exit: null });
    this.closeDefs(this.frames[0], this.block(root, new Map()));
    this.frames.pop();
    // a function queued from several scopes (a nested function of a function inlined at several calls)
    // closes over the names of each: it runs once from the join of those waiting, and again from those
    // queued after it ran (the step budget bounds the runs: past it the analysis fails closed)
    while (this.queue.length) {
      const q = this.queue.shift() as Queued;
      this.entry(q.def, joinWaiting(q, this.queue, this.written));
    }
  }

  private enqueue(def: PyNode, env: Env): void {
    const f = this.frames[this.frames.length - 1];
    if (f) f.firstDef ??= def;
    // an entry point that cannot visit a sink is not queued: no copy of the scope it would run from
    if (this.entries && !this.entries.relevant(def)) return;
    const q: Queued = { def, env: new Map(env) };
    this.queue.push(q);
    if (f) (f.defs ??= []).push(q);
  }

  /** A lambda: a function value; other code may call it too, so it is an entry point as well. */
  lambdaValue(n: PyNode, env: Env): V {
    this.enqueue(n, env);
    return { fn: n };
  }

  private entry(def: PyNode, env: Env): void {
    const { params, decorators, view, isRoute } = routeDef(def);
    const local: Env = new Map(env);
    params.forEach((p, i) => {
      const id = p.type === 'identifier' ? p : (field(p, 'name') ?? namedChildren(p).find((c) => c.type === 'identifier'));
      if (!id) return;
      if (i === 0 && (id.text === 'self' || id.text === 'cls')) return local.set(id.text, unknownOrigin(`${id.text} (an instance built elsewhere)`, lineOf(id)));
      // a plain function's caller is other code, not a client: its parameters count for the code-running sinks only
      const v = source(`parameter ${id.text}`, id);
      local.set(id.text, isRoute ? v : { flow: { ...(v.flow as Flow), clean: LIBRARY_PARAM_CLEAN } });
    });
    const prevRoute = this.routeFixed;
    this.routeFixed = !view && !decorators.some((d) => d.includes('<'));
    this.frames.push({ returns: null, exit: null });
    const end = def.type === 'lambda' ? (this.ev(field(def, 'body'), local), local) : this.block(field(def, 'body') as PyNode, local);
    const frame = this.frames.pop() as Frame;
    this.closeDefs(frame, end);
    this.routeFixed = prevRoute;
    if (isRoute && frame.returns) {
      // a FastAPI route's return is serialised as JSON unless its decorator names another response class
      const at = lastReturn(field(def, 'body') as PyNode) ?? def;
      judgeAnswer(this.hits, frame as Frame & { returns: V }, at, jsonRoute(def, decorators, this.r, this.index?.words ?? ['default_response_class']));
    }
  }

  /** Runs a block; null when every path through it returned or raised. */
  block(n: PyNode, env: Env): Env | null {
    let cur: Env | null = env;
    // inside a try body of this function, any statement may raise: the handlers start from each state
    const t = this.tries[this.tries.length - 1];
    const seen = t && t.frame === this.frames.length ? t : null;
    for (const s of namedChildren(n)) {
      if (!cur) return null;
      if (seen) seen.at = seen.at ? joinEnv(seen.at, cur) : new Map(cur);
      cur = this.stmt(s, cur);
    }
    if (seen && cur) seen.at = seen.at ? joinEnv(seen.at, cur) : new Map(cur);
    return cur;
  }

  /** Where the `break`s and `continue`s recorded so far end: those after it jumped from inside what runs next. */
  jumpMark(): number[] {
    return this.loops.flatMap((l) => [l.breaks.length, l.continues.length]);
  }

  /** A `finally` runs on the way out of every `break`/`continue` recorded since `mark`. */
  throughFinally(mark: number[], fin: (e: Env) => Env | null): void {
    this.loops.forEach((l, i) => {
      for (const list of [l.breaks, l.continues]) {
        const from = mark[2 * i + (list === l.breaks ? 0 : 1)] ?? 0;
        const moved = list.splice(from).map((e) => fin(new Map(e)));
        for (const e of moved) if (e) list.push(e);
      }
    });
  }

  /** A context manager of the standard library known to let every exception through (a file, a lock, a temporary file…). */
  private keepsExceptions(expr: PyNode | null, v: V): boolean {
    if (v.q?.includes('<file>')) return true;
    const fn = expr?.type === 'call' ? field(expr, 'function') : null;
    return !!fn && this.r.qualify(fn).some((q) => KEEPS_EXCEPTIONS.has(q));
  }

  anyTry(): boolean {
    return this.tries.length > 0;
  }

  /** A try body: where it ends, and the join of every state an exception may leave it in. */
  tryBody(n: PyNode, env: Env): { end: Env | null; raised: Env } {
    const t: TryCtx = { frame: this.frames.length, at: null };
    this.tries.push(t);
    let end: Env | null;
    try {
      end = this.block(n, env);
    } finally {
      this.tries.pop();
    }
    const raised = t.at ?? new Map(env);
    // an exception no handler here catches goes on to the enclosing try of this function
    const outer = this.tries[this.tries.length - 1];
    if (outer && outer.frame === t.frame) outer.at = outer.at ? joinEnv(outer.at, raised) : new Map(raised);
    return { end, raised };
  }

  private stmt(s: PyNode, env: Env): Env | null {
    this.tick();
    switch (s.type) {
      case 'expression_statement':
        for (const c of namedChildren(s)) this.exprStmt(c, env);
        return env;
      case 'return_statement': {
        const e = namedChildren(s)[0] ?? null;
        const v = this.ev(e, env);
        const f = this.frames[this.frames.length - 1];
        recordReturn(f, s, e, v, (n) => this.ev(n, env));
        f.returns = f.returns ? join(f.returns, v) : this.stepped(v, s);
        if (f.exit !== undefined) f.exit = f.exit ? joinEnv(f.exit, env) : new Map(env);
        return null;
      }
      case 'raise_statement':
        return null;
      case 'delete_statement':
        for (const x of namedChildren(s).flatMap((c) => (c.type === 'expression_list' ? namedChildren(c) : [c]))) if (x.type === 'subscript') forget(env, rootName(x) ?? '', [], lineOf(s));
        return env;
      case 'if_statement':
        return this.ifStmt(s, env);
      case 'for_statement': {
        const it = this.ev(field(s, 'right'), env);
        // a literal's items are known one by one, so a non-empty one runs the body at least once
        const runs = !!it.items?.length && !it.flow && !it.unk;
        return this.loop(s, env, (e) => this.bindTarget(field(s, 'left'), this.element(it, lineOf(s)), e, lineOf(s)), null, runs);
      }
      case 'while_statement': {
        const cond = field(s, 'condition');
        const t = truthy(this.ev(cond, env));
        // `while` … `else`: the else runs when the condition is false, the body never
        if (t === false) return this.loopElse(s, env);
        return this.loop(s, env, () => undefined, cond, t === true);
      }
      case 'break_statement':
      case 'continue_statement': {
        const l = this.loops[this.loops.length - 1];
        if (!l) return env;
        (s.type === 'break_statement' ? l.breaks : l.continues).push(env);
        return null;
      }
      case 'try_statement':
        return tryStmt(this, s, env);
      case 'with_statement': {
        let swallows = false;
        for (const item of namedChildren(namedChildren(s).find((c) => c.type === 'with_clause') ?? s)) {
          const value = field(item, 'value');
          const expr = value?.type === 'as_pattern' ? namedChildren(value)[0] : value;
          const v = this.ev(expr, env);
          if (value?.type === 'as_pattern') this.bindTarget(field(value, 'alias') && namedChildren(field(value, 'alias') as PyNode)[0], v, env, lineOf(s));
          swallows ||= !this.keepsExceptions(expr, v);
        }
        // a context manager's __exit__ may swallow the exception (contextlib.suppress): what follows may start from any state of the body
        if (!swallows) return this.block(field(s, 'body') as PyNode, env);
        const { end, raised } = this.tryBody(field(s, 'body') as PyNode, env);
        return joinMaybe(end, raised);
      }
      case 'match_statement':
        return matchStmt(this, s, env);
      case 'function_definition':
        return this.define(s, env);
      case 'decorated_definition': {
        const d = field(s, 'definition');
        for (const c of namedChildren(s)) if (c.type === 'decorator') this.ev(namedChildren(c)[0] ?? null, env);
        if (d?.type === 'function_definition') return this.define(d, env, true);
        if (d?.type === 'class_definition') this.classDef(d, env);
        return env;
      }
      case 'class_definition':
        this.classDef(s, env);
        return env;
      case 'block':
        return this.block(s, env);
    }
    return env;
  }

  private define(def: PyNode, env: Env, decorated = false): Env {
    const name = (field(def, 'name') as PyNode).text;
    env.set(name, { fn: def, q: [name] });
    if (decorated || !this.calledNames.has(name)) this.enqueue(def, env);
    return env;
  }

  private classDef(c: PyNode, env: Env): void {
    const body = field(c, 'body');
    if (!body) return;
    const name = (field(c, 'name') as PyNode).text;
    dropAttrs(env, name);
    // whether its instances can be followed is judged where it is called (classes.ts), so a file that
    // only defines classes pays nothing; as data the class is of unknown origin
    if (c.parent?.type !== 'decorated_definition') env.set(name, { cls: c, ...unknownOrigin(`the class ${name}`, lineOf(c)) });
    else env.delete(name);
    for (const s of namedChildren(body)) {
      const d = s.type === 'decorated_definition' ? field(s, 'definition') : s;
      if (d?.type === 'function_definition') this.enqueue(d, env);
    }
  }

  private exprStmt(c: PyNode, env: Env): void {
    if (c.type === 'assignment') {
      const right = field(c, 'right');
      if (!right) return;
      let v = right.type === 'assignment' ? (this.exprStmt(right, env), this.ev(field(right, 'left'), env)) : this.ev(right, env);
      // a list or dict bound to a second name is one object: a change through either is out of this map's sight
      if ((right.type === 'identifier' || right.type === 'attribute') && (v.items || v.keys || v.inst)) v = share(right.text, v, `shared with ${(field(c, 'left') as PyNode).text}`, env, lineOf(c));
      this.bindTarget(field(c, 'left'), this.stepped(v, c), env, lineOf(c));
    } else if (c.type === 'augmented_assignment') {
      const left = field(c, 'left') as PyNode;
      const op = (field(c, 'operator') as PyNode).text.slice(0, -1);
      const v = this.binary(op, this.ev(left, env), this.ev(field(c, 'right'), env), c);
      this.bindTarget(left, v, env, lineOf(c));
    } else this.ev(c, env);
  }

  bindTarget(t: PyNode | null, v: V, env: Env, line: number): void {
    if (!t) return;
    switch (t.type) {
      case 'identifier':
      case 'attribute':
        // what was known of the old value's attributes is not the new one's
        dropAttrs(env, t.text);
        env.set(t.text, v);
        return;
      case 'pattern_list':
      case 'tuple_pattern':
      case 'list_pattern':
      case 'tuple':
      case 'list': {
        const targets = namedChildren(t);
        targets.forEach((x, i) => this.bindTarget(x, v.items && v.items.length === targets.length ? v.items[i] : mix([v], line), env, line));
        return;
      }
      case 'subscript': {
        const objNode = field(t, 'value') as PyNode;
        const obj = this.ev(objNode, env);
        const keyNode = field(t, 'subscript');
        const key = keyNode && keyNode.type !== 'slice' ? this.ev(keyNode, env) : UNKNOWN;
        sessionStore(this.hits, t, obj, key, v);
        const name = objNode.type === 'identifier' || objNode.type === 'attribute' ? objNode.text : null;
        const root = name ? null : rootName(objNode);
        if (root) forget(env, root, [v], line);
        if (!name) return;
        if (obj.keys && key.known && typeof key.k === 'string') {
          env.set(name, { ...obj, keys: new Map(obj.keys).set(key.k, nested(v, line)) });
        } else if (obj.items && key.known && typeof key.k === 'number' && obj.items[key.k]) {
          const items = [...obj.items];
          items[key.k] = nested(v, line);
          env.set(name, { ...obj, items });
        } else env.set(name, { ...mix([obj, v], line), q: obj.q });
        return;
      }
    }
  }

  private ifStmt(s: PyNode, env: Env): Env | null {
    const t = truthy(this.ev(field(s, 'condition'), env));
    const alts = namedChildren(s).filter((c) => c.field === 'alternative');
    if (t === true) return this.block(field(s, 'consequence') as PyNode, env);
    if (t === false) return this.ifRest(alts, env);
    // each side runs knowing what the condition proved (a guard that returns leaves the other side clean)
    const cond = field(s, 'condition');
    const yes = this.block(field(s, 'consequence') as PyNode, refine(this, cond, true, new Map(env)));
    const no = this.ifRest(alts, refine(this, cond, false, new Map(env)));
    return joinMaybe(yes, no);
  }

  private ifRest(alts: PyNode[], e: Env): Env | null {
    for (const a of alts) {
      if (a.type === 'else_clause') return this.block(field(a, 'body') as PyNode, e);
      const ct = truthy(this.ev(field(a, 'condition'), e));
      if (ct === true) return this.block(field(a, 'consequence') as PyNode, e);
      if (ct === null) {
        const cond = field(a, 'condition');
        return joinMaybe(this.block(field(a, 'consequence') as PyNode, refine(this, cond, true, new Map(e))), this.ifRest(alts.slice(alts.indexOf(a) + 1), refine(this, cond, false, new Map(e))));
      }
    }
    return e;
  }

  /**
   * A loop body runs until the state at its head has the same shape after a pass as before it (at least
   * two passes; up to four, two when nested deeper than one), each pass from the join of the states it
   * may start from; when that cap is reached first, every name the body changed may hold what any of
   * them held, and a last pass runs on that. The loop ends where the condition may be false at the head
   * (a `for`: wherever the items may run out; before the first pass only when it may run no pass) and at
   * each `break`; a `continue` goes back to the head. The `else` runs on the ends that are not breaks.
   */
  private loop(s: PyNode, env: Env, bind: (e: Env) => void, cond: PyNode | null, runs: boolean): Env | null {
    const ctx: LoopCtx = { breaks: [], continues: [] };
    let ends: Env | null = runs ? null : env;
    let head = env;
    const cap = this.loops.length < 2 ? 4 : 2;
    this.loops.push(ctx);
    try {
      for (let i = 0; i <= cap; i++) {
        const e = new Map(head);
        bind(e);
        let next = this.block(field(s, 'body') as PyNode, e);
        for (const c of ctx.continues.splice(0)) next = joinMaybe(next, c);
        if (!next) break;
        const t = cond ? truthy(this.ev(cond, next)) : null;
        if (t !== true) ends = joinMaybe(ends, next);
        if (t === false || i === cap) break;
        const nextHead = joinEnv(head, next);
        if (i > 0 && sameShape(head, nextHead)) break;
        head = nextHead;
        if (i === cap - 1) widen(head, env, lineOf(s));
      }
    } finally {
      this.loops.pop();
    }
    let out = ends && this.loopElse(s, ends);
    for (const b of ctx.breaks) out = joinMaybe(out, b);
    return out;
  }

  private loopElse(s: PyNode, env: Env): Env | null {
    const alt = field(s, 'alternative');
    return alt ? this.block(field(alt, 'body') ?? alt, env) : env;
  }

}


