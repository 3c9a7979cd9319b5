import type { JsNode } from '../parser.js';
import type { JsResolver } from '../resolve.js';
import { type V, carried, join, konst, mix, unknownOrigin } from '../../python/flow/index.js';
import { JsExprEval } from './expr.js';
import { JsCalls } from './calls.js';
import { JEnv, type JV, joinJ, lineOf, source } from './value.js';
import { Jumps } from './jumps.js';
import { type TryCtx, seen } from './try.js';
import { bodyOf, statement } from './statements.js';
import { SECRET_NAMES } from './tables.js';
import { sink } from './sinks.js';
import { type HandlerKind, calleeOnlyNames, entryCall, escapes } from './entry-points.js';
import { type SharedNames, sharedNames, sharedScope, widenHeld } from './shared-state.js';

const MAX_DEPTH = 4;
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

interface Frame {
  returns: V | null;
  plainResponse: boolean;
}

/**
 * Statement-by-statement abstract interpretation of one JavaScript module: the module body runs
 * first; route handlers (Express, Koa, node:http) run where they are registered, with the request as
 * the source; calls to functions of the same file are interpreted in place (depth ≤ 4), callbacks given
 * to library functions run where they are given; every function that never ran is then an entry
 * point of its own. Branches whose condition folds to a constant run alone.
 */
export class JsFlowInterp extends JsExprEval {
  readonly frames: Frame[] = [];
  private depth = 0;
  /** loops being run, innermost included (statements.ts: nested deeper than two, one pass each) */
  loopDepth = 0;
  readonly jumps = new Jumps();
  readonly tries: TryCtx[] = [];
  private readonly active = new Set<JsNode>();
  readonly ran = new Set<JsNode>();
  /** every scope a function value was made in: a nested function of a function called twice has two */
  private readonly scopes = new Map<JsNode, JEnv[]>();
  private readonly calls: JsCalls;
  private shared: SharedNames = { rebound: new Set(), changed: new Set(), inner: new Set() };
  /** route handlers and callbacks that run after the code registering them went on: run again from where it ended */
  private readonly later: Array<{ fv: JV; args: V[]; kind?: HandlerKind }> = [];

  constructor(r: JsResolver, private readonly order: readonly JsNode[]) {
    super(r);
    this.calls = new JsCalls(this);
  }

  run(program: JsNode): void {
    this.shared = sharedNames(this.order);
    const env = new JEnv();
    this.frames.push({ returns: null, plainResponse: false });
    this.block(program.body as JsNode[], env);
    this.frames.pop();
    const held = (): JEnv[] => [env, ...[...this.scopes.values()].flat(), ...this.later.map((l) => l.fv.scope as JEnv)];
    // every function nothing ran is an entry point (an export, a handler registered elsewhere), and so
    // is one that ran but other code may call too (exported, stored, returned): its callers are not all
    // here; it runs from every scope it was made in (a nested function of a function called twice closes
    // over either call's names); a handler or callback registered runs again from the state its registrar
    // left, since a request or an event comes after that code finished (the step budget bounds the runs)
    const entered = new Map<JsNode, Set<JEnv>>();
    const callees = calleeOnlyNames(this.order);
    for (let again = 0, any = true; any; ) {
      any = false;
      widenHeld(held(), this.shared, 1);
      for (; again < this.later.length; again++) {
        const { fv, args, kind } = this.later[again];
        const scope = sharedScope((fv.scope as JEnv).later(), this.shared, lineOf(fv.jfn as JsNode));
        if (kind) this.handler({ ...fv, scope }, kind, scope, false);
        else this.invoke({ ...fv, scope }, args);
        any = true;
      }
      for (const fn of this.order) {
        if (!FUNCTIONS.has(fn.type) || (this.ran.has(fn) && !escapes(fn, callees))) continue;
        const done = entered.get(fn) ?? entered.set(fn, new Set()).get(fn) as Set<JEnv>;
        for (const scope of this.scopes.get(fn) ?? [env]) {
          if (done.has(scope)) continue;
          any = true;
          done.add(scope);
          this.entry(fn, sharedScope(scope.later(), this.shared, lineOf(fn)).child());
        }
      }
    }
  }

  private entry(fn: JsNode, env: JEnv): void {
    const how = entryCall(fn);
    if (Array.isArray(how)) this.invoke({ jfn: fn, scope: env }, how);
    else this.handler({ jfn: fn, scope: env }, how, env, false);
  }

  /** Runs a route handler: Express/node:http (req, res, next) or Koa (ctx, next). */
  handler(fv: JV, kind: HandlerKind, env: JEnv, again = true): void {
    const fn = fv.jfn as JsNode;
    const params = fn.params as JsNode[];
    const first = params[0]?.type === 'Identifier' ? (params[0].name as string) : '';
    let args: V[];
    if (kind === 'koa') args = [{ q: ['<koa>'] }, unknownOrigin('next', lineOf(fn))];
    else {
      args = [{ q: ['<request>'] }, { q: ['<response>'] }, unknownOrigin('next', lineOf(fn))];
      if (params.length === 4 && /^err/i.test(first)) args.unshift(unknownOrigin('an error', lineOf(fn)));
    }
    const scope = fv.scope ?? env;
    if (again) this.later.push({ fv: { ...fv, scope }, args, kind });
    this.invoke({ ...fv, scope: sharedScope(scope, this.shared, lineOf(fn)) }, args);
  }

  /** Interprets a call of a function of this file; null when it is not interpreted (depth, recursion). */
  invoke(fv: JV, args: V[], writeBack = false): V | null {
    const fn = fv.jfn as JsNode;
    if (!FUNCTIONS.has(fn.type)) return null;
    if (this.active.has(fn) || this.depth >= MAX_DEPTH) return null;
    this.ran.add(fn);
    this.active.add(fn);
    this.depth++;
    const local = (fv.scope ?? new JEnv()).child();
    (fn.params as JsNode[]).forEach((p, i) => {
      if (p.type === 'RestElement') this.assignTo(p.argument as JsNode, { items: args.slice(i) }, local, lineOf(p));
      else this.assignTo(p, args[i] ?? konst(null), local, lineOf(p));
    });
    if (!local.ownHas('arguments') && fn.type !== 'ArrowFunctionExpression') local.set('arguments', { items: args });
    const frame: Frame = { returns: null, plainResponse: false };
    this.frames.push(frame);
    try {
      const body = fn.body as JsNode;
      if (body.type !== 'BlockStatement') frame.returns = this.ev(body, local);
      else this.block(body.body as JsNode[], local);
    } finally {
      this.frames.pop();
      this.depth--;
      this.active.delete(fn);
    }
    const name = fn.id ? ((fn.id as JsNode).name as string) : '';
    if (frame.returns?.weak && SECRET_NAMES.test(name.replace(/^(get|generate|gen|make|create|new)/i, ''))) {
      this.hits.push({ cat: 'weakrand', node: fn, flow: frame.returns.weak });
    }
    if (writeBack && fv.scope) {
      const params = new Set((fn.params as JsNode[]).flatMap((p) => (p.type === 'Identifier' ? [p.name as string] : [])));
      for (const [k, now] of local) {
        const old = fv.scope.get(k);
        if (old && now !== old && !params.has(k)) fv.scope.set(k, joinJ(old, now));
      }
    }
    // what a generator yields, or an async generator, is not its return value
    if (fn.generator) return { ...mix(args, lineOf(fn)), ...unknownOrigin('what a generator of this file yields', lineOf(fn)) };
    return frame.returns ?? konst(null);
  }

  /**
   * Runs a callback a library calls (`fs.readFile(p, (err, data) => …)`, `arr.forEach(…)`): it may
   * have run, so what it writes to the names it shares with the caller is joined into the caller's.
   */
  callback(fv: JV, args: V[], env: JEnv, later: boolean): void {
    const scope = fv.scope ?? env;
    if (!later) return void this.invoke({ ...fv, scope }, args, true);
    this.later.push({ fv: { ...fv, scope }, args });
    const shared = sharedScope(scope, this.shared, lineOf(fv.jfn as JsNode));
    const before = new Map(shared);
    this.invoke({ ...fv, scope: shared }, args, true);
    // what it wrote back landed on the shared view of the caller's names: the caller's own take it
    if (shared !== scope) for (const [k, v] of shared) if (v !== before.get(k)) scope.set(k, joinJ(scope.get(k) ?? v, v));
  }

  call(n: JsNode, env: JEnv): V {
    return this.calls.call(n, env);
  }

  functionValue(n: JsNode, env: JEnv): JV {
    if (n.type === 'ClassExpression' || n.type === 'ClassDeclaration') {
      this.classBody(n, env);
      return { q: ['<class>'] };
    }
    const list = this.scopes.get(n) ?? this.scopes.set(n, []).get(n) as JEnv[];
    if (!list.includes(env)) list.push(env);
    return { jfn: n, scope: env };
  }

  private classBody(n: JsNode, env: JEnv): void {
    for (const m of ((n.body as JsNode).body as JsNode[]) ?? []) {
      if (m.type === 'MethodDefinition' && m.value) this.functionValue(m.value as JsNode, env);
      else if (m.type === 'PropertyDefinition' && m.value) this.ev(m.value as JsNode, env);
    }
  }

  assignTo(target: JsNode, v: V, env: JEnv, line: number): void {
    switch (target.type) {
      case 'Identifier': {
        const name = target.name as string;
        env.set(name, this.stepped(v, target));
        if (v.weak && SECRET_NAMES.test(name)) this.hits.push({ cat: 'weakrand', node: target, flow: v.weak });
        return;
      }
      case 'MemberExpression': {
        const objNode = target.object as JsNode;
        const obj = this.ev(objNode, env);
        const p = this.prop(target, env);
        if (p === 'body' && (obj.q?.includes('<koa>') || obj.q?.includes('<koa-response>'))) {
          this.calls.koaBody(target, v, this.frames[this.frames.length - 1]?.plainResponse ?? false);
        }
        if (p !== null && v.weak && (SECRET_NAMES.test(p) || obj.q?.includes('<session>'))) this.hits.push({ cat: 'weakrand', node: target, flow: v.weak });
        // `req.session.user = v` / `req.session[k] = v`: request data stored in the server-side session (CWE-501)
        if (obj.q?.includes('<session>')) sink(this.hits, 'trustbound', target, target.computed ? mix([this.ev(target.property as JsNode, env), v], line) : v);
        if (objNode.type === 'Identifier' && env.has(objNode.name as string) && !obj.q?.some((q) => q.startsWith('<'))) {
          // a member whose name is not known may be any of them: none is known one by one any more
          const next: V = p !== null ? { ...obj, keys: new Map(obj.keys ?? []).set(p, v) } : { ...join(carried(obj), carried(v)), ...(obj.q ? { q: obj.q } : {}) };
          env.set(objNode.name as string, next);
        }
        return;
      }
      case 'ObjectPattern':
        for (const prop of target.properties as JsNode[]) {
          if (prop.type === 'RestElement') this.assignTo(prop.argument as JsNode, carried(v), env, line);
          else {
            const key = prop.computed ? this.ev(prop.key as JsNode, env) : null;
            const name = prop.computed ? (key?.known ? String(key.k) : null) : (prop.key as JsNode).type === 'Identifier' ? ((prop.key as JsNode).name as string) : String((prop.key as JsNode).value);
            this.assignTo(prop.value as JsNode, this.read(v, name, prop), env, line);
          }
        }
        return;
      case 'ArrayPattern':
        (target.elements as Array<JsNode | null>).forEach((e, i) => {
          if (!e) return;
          if (e.type === 'RestElement') this.assignTo(e.argument as JsNode, v.items ? { items: v.items.slice(i) } : carried(v), env, line);
          else this.assignTo(e, v.items ? (v.items[i] ?? konst(null)) : this.element(v, e), env, line);
        });
        return;
      case 'AssignmentPattern': {
        const dflt = this.ev(target.right as JsNode, env);
        this.assignTo(target.left as JsNode, v.known && v.k === null ? dflt : v.known ? v : join(v, dflt), env, line);
        return;
      }
    }
  }

  /** One element of an iterable: of a request (node:http), a chunk of its body. */
  element(v: V, at: JsNode): V {
    if (v.q?.includes('<request>')) return source('the request body', at);
    if (v.items) {
      const all = v.items.length ? v.items.reduce((a, b) => join(a, b)) : konst(null);
      return (v as JV).esc ? join(all, unknownOrigin('an element of an array other code may change', lineOf(at))) : all;
    }
    return this.stepped(carried(v), at);
  }

  /** Runs statements; null when every path through them returned or threw. */
  block(stmts: readonly JsNode[], env: JEnv): JEnv | null {
    // function declarations are hoisted: calls before them see them
    for (const s of stmts) {
      const d = s.type === 'ExportNamedDeclaration' || s.type === 'ExportDefaultDeclaration' ? (s.declaration as JsNode | null) : s;
      if (d?.type === 'FunctionDeclaration' && d.id) env.set((d.id as JsNode).name as string, this.functionValue(d, env));
    }
    for (const s of stmts) {
      seen(this, env);
      const next = statement(this, s, env);
      if (!next) return null;
      // a branch or loop answers a joined copy: the block keeps its own map, which closures made here hold
      if (next !== env) {
        env.clear();
        for (const [k, v] of next) env.set(k, v);
      }
    }
    seen(this, env);
    return env;
  }

  loopBody(s: JsNode, env: JEnv): JEnv | null {
    return bodyOf(this, s.body as JsNode, env);
  }

  joinValues(a: V, b: V): V {
    return joinJ(a, b);
  }
}
