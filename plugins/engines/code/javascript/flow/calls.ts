import { isBuiltin } from 'node:module';
import type { JsNode } from '../parser.js';
import { type V, join, konst, mix, unknownOrigin, namedSanitiser, type Cat } from '../../python/flow/index.js';
import { share } from './expr.js';
import { allowlistPattern } from './guards.js';
import { checkSinks, isMarker, sink } from './sinks.js';
import { type JEnv, type JV, type JsHit, lineOf, source } from './value.js';
import type { JsResolver } from '../resolve.js';
import {
  CONVERTERS, DATA_METHODS, ELEMENT_CALLBACKS, FILE_READS, NORMALISING_PATH, PREDICATE_METHODS, PURE_CALLS, REQUEST_METHODS, ROUTE_METHODS, SANITISERS, SQL_ESCAPE_METHODS,
} from './tables.js';

/** Methods that move, drop or add an array's (or a Set's) items in place. */
const REORDERING = new Set(['pop', 'shift', 'splice', 'reverse', 'sort', 'fill', 'copyWithin', 'add', 'delete', 'clear']);
const SYNC_CALLBACKS = new Set(['map', 'forEach', 'filter', 'find', 'some', 'every', 'flatMap', 'findIndex', 'reduce', 'sort']);
const SERVERS = new Set(['http.createServer', 'https.createServer', 'http2.createServer', 'http2.createSecureServer']);
const SAFE_RANDOM = /^crypto\.(randomBytes|randomUUID|randomInt|getRandomValues|webcrypto\.getRandomValues)$/;
/** Response methods that answer the response itself, so calls chain (`res.status(404).send(…)`). */
const CHAINED = new Set(['status', 'code', 'type', 'set', 'header', 'cookie', 'clearCookie', 'append', 'vary', 'location', 'links', 'attachment', 'contentType', 'setHeader', 'writeHead']);

const normalise = (q: string): string => q.replace(/^node:/, '').replace(/\.default(?=\.|$)/g, '');

/** What the calls need of the interpreter (interp.ts), named here so neither module imports the other. */
export interface CallHost {
  readonly r: JsResolver;
  readonly hits: JsHit[];
  readonly frames: ReadonlyArray<{ plainResponse: boolean }>;
  ev(n: JsNode | null | undefined, env: JEnv): V;
  prop(n: JsNode, env: JEnv): string | null;
  read(obj: V, p: string | null, n: JsNode): V;
  element(v: V, at: JsNode): V;
  sanitised(v: V, cats: Iterable<Cat>, n: JsNode): V;
  invoke(fv: JV, args: V[], writeBack?: boolean): V | null;
  handler(fv: JV, kind: 'express' | 'koa', env: JEnv): void;
  callback(fv: JV, args: V[], env: JEnv, later: boolean): void;
}

/** Calls: same-file functions, route registrations, callbacks, sinks, sources, sanitisers. */
export class JsCalls {
  constructor(private readonly i: CallHost) {}

  private readonly memo = new Map<JsNode, { qs: string[]; pairs: Array<[string, JsNode[]]> }>();

  /** The resolver's callees of a call node, asked once: loops, entries and inlined calls visit a node many times. */
  private callees(n: JsNode): { qs: string[]; pairs: Array<[string, JsNode[]]> } {
    let m = this.memo.get(n);
    if (!m) {
      const pairs = this.i.r.calls(n);
      m = { qs: [...new Set(pairs.map(([q]) => normalise(q)))], pairs };
      this.memo.set(n, m);
    }
    return m;
  }

  private get plain(): boolean {
    return this.i.frames[this.i.frames.length - 1]?.plainResponse ?? false;
  }

  koaBody(n: JsNode, v: V, plain: boolean): void {
    sink(this.i.hits, 'xss', n, plain || v.keys || v.items ? undefined : v);
  }

  call(n: JsNode, env: JEnv): V {
    const i = this.i;
    const callee = n.callee as JsNode;
    const line = lineOf(n);
    let recv: V | null = null;
    let method: string | null = null;
    let fv: JV;
    if (callee.type === 'MemberExpression') {
      recv = i.ev(callee.object as JsNode, env);
      method = i.prop(callee, env);
      fv = i.read(recv, method, callee) as JV;
      if (recv.keys && method !== null && recv.keys.has(method)) fv = recv.keys.get(method) as JV;
    } else fv = i.ev(callee, env) as JV;
    // an object handed to a call may be changed by it
    const args = (n.arguments as JsNode[]).map((a) => share(i.ev(a, env)));
    const { qs, pairs } = this.callees(n);
    // f.call(t, a) / f.apply(t, [a]) / Reflect.apply(f, t, [a]): the sinks see f's own arguments
    const viaCall = pairs.find(([, a]) => a !== n.arguments);
    const sinkArgs = viaCall ? viaCall[1].map((a) => i.ev(a, env)) : args;
    if (fv.jfn) {
      const r = i.invoke(fv, args);
      return r ?? { ...mix(args, line), ...unknownOrigin('the result of a recursive or deeply nested call', line) };
    }
    if (n.type === 'NewExpression' && callee.type === 'Identifier' && (fv as V).q?.includes('<class>')) {
      return unknownOrigin(`an instance of ${callee.name as string}`, line);
    }
    const fnArgs = args.filter((a) => (a as JV).jfn) as JV[];
    // an application or router: its routes start with a path ('/…', '*', a pattern, a list); a database's
    // all/get/run take SQL and a callback, and are not routes
    const a0 = args[0];
    const routePath = !!a0 && (a0.known ? typeof a0.k === 'string' && /^[/*]/.test(a0.k) : true);
    const recvIsApp = !!recv && !recv.known && !recv.keys && !recv.items && !recv.q?.some(isMarker) && !recv.q?.some((q) => /sqlite/i.test(q)) && (method === 'use' || routePath);
    if (fnArgs.length && ((method !== null && ROUTE_METHODS.has(method) && recvIsApp) || qs.some((q) => SERVERS.has(q)) || (method === 'on' && args[0]?.known && args[0].k === 'request'))) {
      for (const f of fnArgs) {
        const p0 = ((f.jfn as JsNode).params as JsNode[])[0];
        const koa = (p0?.type === 'Identifier' && /^(ctx|context)$/.test(p0.name as string)) || ((f.jfn as JsNode).params as JsNode[]).length === 1 && method === 'use';
        i.handler(f, koa ? 'koa' : 'express', env);
      }
      return recv ?? {};
    }
    // a sink is decided only where the callee's own value names it: one reached by reflection
    // (`.constructor`, a computed global, a callback's parameter) keeps its presence finding
    // (and a sanitiser is one only where the callee's value is it, not a parameter that shares its name)
    const own = new Set((fv.q ?? []).map(normalise).flatMap((q) => [q, q.replace(/\.(call|apply)$/, '')]));
    const ownQs = qs.filter((q) => own.has(q));
    checkSinks(i.hits, { node: n, qs: ownQs, method, recv, args: sinkArgs, plainResponse: this.plain });
    if (recv?.q?.includes('<response>') && method !== null) this.contentType(method, args);
    // an array method runs its callback before it returns; a timer, an event or a promise later, when
    // other code (a request's handler) may have changed what it reads
    const later = !(recv && method !== null && SYNC_CALLBACKS.has(method) && !recv.q?.some(isMarker));
    for (const f of fnArgs) i.callback(f, this.callbackArgs(f, ownQs, method, recv, args, n), env, later);
    return this.result(n, env, ownQs, method, recv, args, line);
  }

  /** A content type declared before the body: text or JSON is not parsed as HTML by the browser. */
  private contentType(method: string, args: V[]): void {
    let type: V | undefined;
    if (method === 'type' || method === 'contentType') type = args[0];
    else if ((method === 'set' || method === 'setHeader' || method === 'header') && args[0]?.known && String(args[0].k).toLowerCase() === 'content-type') type = args[1];
    else if ((method === 'set' || method === 'header' || method === 'headers') && args[0]?.keys) type = [...args[0].keys].find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    else if (method === 'writeHead') type = [...(args.find((a) => a.keys)?.keys ?? [])].find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    const f = this.i.frames[this.i.frames.length - 1];
    if (type?.known && typeof type.k === 'string' && !/html|xml|svg/i.test(type.k) && f) f.plainResponse = true;
  }

  /** What a library passes to a callback: each element for array methods, the file for fs reads, the body for a request's data events. */
  private callbackArgs(f: JV, qs: string[], method: string | null, recv: V | null, args: V[], n: JsNode): V[] {
    const fn = f.jfn as JsNode;
    const params = fn.params as JsNode[];
    const what = qs[0] ? `${qs[0]}()` : `.${method ?? '?'}()`;
    const other = (): V => unknownOrigin(`a parameter of a callback given to ${what}`, lineOf(fn));
    if (recv?.q?.includes('<request>') && method === 'on') return [source('the request body', n)];
    if (qs.some((q) => FILE_READS.test(q))) return [konst(null), source('a file read', n)];
    if (recv && method !== null && ELEMENT_CALLBACKS.has(method)) {
      const el = this.i.element(recv, n);
      if (method === 'reduce') return [args[1] ?? el, el];
      return [el, {}, recv];
    }
    return params.map(other);
  }

  private result(n: JsNode, env: JEnv, qs: string[], method: string | null, recv: V | null, args: V[], line: number): V {
    const i = this.i;
    const all = recv ? [recv, ...args] : args;
    if (recv?.q?.includes('<request>') && method !== null && REQUEST_METHODS.has(method)) return source(`req.${method}()`, n);
    if (recv?.q?.includes('<koa>') && method === 'get') return source('ctx.get()', n);
    if (recv?.q?.includes('<koa-cookies>') && method === 'get') return source('ctx.cookies.get()', n);
    if (recv?.q?.includes('<response>') && method !== null && CHAINED.has(method)) return recv;
    if (qs.some((q) => FILE_READS.test(q))) return source('a file read', n);
    // promisify(f) / callbackify(f) is f by another calling convention: its sinks are f's
    if ((qs.includes('util.promisify') || qs.includes('util.callbackify')) && args[0]) return { ...args[0], q: args[0].q };
    if (qs.includes('Math.random')) return { weak: { what: 'Math.random()', lines: [line], clean: new Set() } };
    // a hash holds what it is fed only as a digest (hex, base64 or bytes: no markup, no quote), but a weak
    // random value hashed stays guessable
    if (qs.includes('crypto.createHash') || qs.includes('crypto.createHmac') || (recv?.q?.includes('<hash>') && method === 'update')) {
      const weak = mix(recv ? [recv, ...args] : args, line).weak;
      return { q: ['<hash>'], ...(weak ? { weak } : {}) };
    }
    if (recv?.q?.includes('<hash>') && method === 'digest') return recv.weak ? { weak: recv.weak } : {};
    if (qs.some((q) => SAFE_RANDOM.test(q))) return {};
    if (qs.some((q) => CONVERTERS.has(q))) {
      const w = mix(args, line).weak;
      return w ? { weak: w } : {};
    }
    const san = qs.map((q) => SANITISERS.get(q)).find((c) => c);
    if (san) return i.sanitised(mix(args, line), san, n);
    if (method !== null && SQL_ESCAPE_METHODS.has(method) && recv && !recv.known) return i.sanitised(mix(args, line), ['sqli'], n);
    if (qs.some((q) => NORMALISING_PATH.has(q))) return { ...mix(args, line), q: ['<normalised-path>'] };
    if (qs.some((q) => PURE_CALLS.has(q))) return { ...mix(args, line), ...(qs.includes('Array.from') && args[0]?.items ? { items: args[0].items } : {}) };
    if (n.type === 'NewExpression' && (qs.includes('Set') || qs.includes('Array'))) return args[0]?.items ? { items: args[0].items } : mix(args, line);
    if (n.type === 'NewExpression' && (qs.includes('URL') || qs.includes('url.URL'))) {
      const a0 = (n.arguments as JsNode[])[0];
      return { ...mix(args, line), q: ['<url>'], ...(a0?.type === 'Identifier' ? { of: a0.name as string } : {}) };
    }
    if (qs.some((q) => q === 'require' || q.endsWith('.require'))) {
      const mod = i.r.qualify(n).map(normalise);
      // Node's own modules hold functions and constants, not data; any other module's values are its own
      return isBuiltin(mod[0] ?? '') ? { q: mod } : { q: mod, ...unknownOrigin(`the module ${mod[0] ?? '(computed)'}`, line) };
    }
    if (recv && method !== null && !recv.q?.some(isMarker)) {
      if (PREDICATE_METHODS.has(method)) return {};
      if (method === 'push' || method === 'unshift') return this.push(n, env, recv, args);
      if (recv.items && REORDERING.has(method)) this.forget(n, env, recv, args);
      if ((method === 'replace' || method === 'replaceAll') && (n.arguments as JsNode[])[0]) {
        const cleaned = this.stripped(n, args);
        if (cleaned) return i.sanitised(recv, cleaned, n);
      }
      if (DATA_METHODS.has(method) && (recv as JV).esc) return { ...mix(all, line), ...unknownOrigin('the contents of an object other code may change', line) };
      if (DATA_METHODS.has(method) && (recv.flow || recv.weak || recv.known || recv.items || recv.keys || recv.q?.some((q) => q.startsWith('<')))) return mix(all, line);
      if (recv.known) return mix(all, line);
    }
    // a callee outside the file: what it returns is its own (a name that promises a sanitiser is taken at its word)
    const last = (qs[0] ?? method ?? '').split('.').pop() ?? '';
    const named = (qs.length || method) ? namedSanitiser(last) : null;
    if (named) return i.sanitised(mix(args, line), named, n);
    const carriedArgs = mix(all, line);
    const unk = unknownOrigin(`the result of ${qs[0] ?? (method ? `.${method}` : 'a computed callee')}()`, line).unk;
    const flows = [carriedArgs.flow, carriedArgs.unk].filter((f) => f);
    return { unk: flows.length ? join({ unk }, { unk: flows[0] }).unk : unk, weak: carriedArgs.weak, q: qs.map((q) => `${q}()`) };
  }

  /** `arr.push(x)` adds x to the array the name holds. */
  private push(n: JsNode, env: JEnv, recv: V, args: V[]): V {
    const obj = (n.callee as JsNode).object as JsNode;
    if (obj.type === 'Identifier' && env.has(obj.name as string)) {
      const next: V = recv.items ? { items: (n.callee as JsNode).property && ((n.callee as JsNode).property as JsNode).name === 'unshift' ? [...args, ...recv.items] : [...recv.items, ...args] } : join(recv, mix(args, lineOf(n)));
      env.set(obj.name as string, next);
    }
    return {};
  }

  /**
   * `arr.reverse()`, `arr.shift()`, `set.add(x)`, …: the array a name holds is no longer known item by
   * item (`a.reverse(); a[0]` is the former last item), only what its items carry together.
   */
  private forget(n: JsNode, env: JEnv, recv: V, args: V[]): void {
    const obj = (n.callee as JsNode).object as JsNode;
    if (obj.type === 'Identifier' && env.has(obj.name as string)) env.set(obj.name as string, mix([recv, ...args], lineOf(n)));
  }

  /** `s.replace(/[^a-z0-9]/g, '')`: a global removal of everything outside a safe class. */
  private stripped(n: JsNode, args: V[]): ReturnType<typeof allowlistPattern> {
    const re = ((n.arguments as JsNode[])[0] as { regex?: { pattern: string; flags: string } }).regex;
    if (!re || !re.flags.includes('g') || !args[1]?.known || /[^A-Za-z0-9_ -]/.test(String(args[1].k))) return null;
    const m = /^\[\^(.*)\]\+?$/.exec(re.pattern);
    return m ? allowlistPattern(`^[${m[1]}]*$`) : null;
  }
}

