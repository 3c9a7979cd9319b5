import { type PyNode, field, namedChildren } from '../parser.js';
import { ExprEval, lineOf, source } from './expr.js';
import { checkSinks, isQuery, locationHeader } from './sinks.js';
import { mayUnescape, webValue } from './web-values.js';
import { configParser } from './config-parser.js';
import { forget, listMethod, rootName, share } from './lists.js';
import type { Late, Queued } from './entry-queue.js';
import { localsOf, moduleWrites, outerWrites, paramsOf, rebound } from './writes.js';
import type { ModuleIndex } from './module-index.js';
import { type Method, dropAttrs, instance, plainClass, settled } from './classes.js';
import { type Env, type V, carried, join, joinEnv, konst, mix, raw, truthy, unknownOrigin } from './value.js';
import { HASH_CTORS, NON_MUTATING, OWN_VALUES, CONVERTERS, DATA_METHODS, DECODERS, PURE_CALLS, PATH_CTORS, READ_METHODS, SANITISERS, SOURCE_CALLS, WEAK_RANDOM, namedSanitiser } from './tables.js';

const STR_KEEP = new Set(['lower', 'upper', 'strip', 'lstrip', 'rstrip', 'encode', 'decode', 'replace', 'format', 'title', 'capitalize', 'casefold', 'split', 'rsplit', 'splitlines', 'partition', 'center', 'ljust', 'rjust', 'zfill', 'expandtabs', 'translate', 'removeprefix', 'removesuffix', 'get', 'getlist', 'get_all', 'keys', 'values', 'items', 'copy', 'pop', 'getvalue']);

/** A call's argument nodes; `f(x for x in xs)` has one, the generator (its parentheses are the call's). */
function argsOf(n: PyNode): PyNode[] {
  const a = field(n, 'arguments');
  if (!a) return [];
  return a.type === 'generator_expression' ? [a] : namedChildren(a);
}

const DICT_READS = new Set(['get', 'keys', 'values', 'items', 'copy', '__getitem__', '__contains__', '__len__', '__iter__', 'fromkeys']);

export interface Frame {
  returns: V | null;
  /** for a method run on a known instance: the join of the scopes it returns in */
  exit?: Env | null;
  /** what a generator yields */
  yields?: V;
  /** functions and lambdas defined while it ran, queued as entry points */
  defs?: Queued[];
  /** the first function or lambda defined while it ran, queued or not (the line messages name) */
  firstDef?: PyNode;
  /** each `return body, status, {…}`'s header dicts, evaluated as written (a dict inside a tuple keeps no keys) */
  headers?: Array<{ at: PyNode; v: V }>;
  /** the join of what each return sends as a page (pageOf), read where it is written: `return {…}, 201` is JSON */
  pages?: V;
}

/**
 * Calls of the Python flow analysis: sources, sanitisers and library calls by their qualified names,
 * and functions, methods and classes of the same file interpreted in place with the arguments given
 * (their summary for these arguments). Statements are the subclass's (interp.ts).
 */
export abstract class CallEval extends ExprEval {
  protected frames: Frame[] = [];
  private writtenSet: ReadonlySet<string> | null = null;
  protected index: ModuleIndex | null = null;
  /**
   * Names some function of the file writes into or calls a method of the file's classes on (writes.ts),
   * made on first use: a module whose entry points the filter skipped needs none.
   */
  private unescapes: boolean | undefined;
  protected readonly written = (): ReadonlySet<string> => (this.writtenSet ??= this.index ? moduleWrites(this.index) : new Set());
  protected depth = 0;
  protected readonly active = new Set<PyNode>();

  abstract block(n: PyNode, env: Env): Env | null;

  /**
   * A function defined in a scope reads that scope's names when it is called, which may be after they
   * changed (`cmd = 'ls'; def run(): os.system(cmd)` then `cmd = request…`): it runs from the join of
   * the scope where it was defined and the scope where its definer ended.
   */
  protected closeDefs(f: Frame, end: Env | null): void {
    if (!f.defs?.length) return;
    const last = f.exit && end ? joinEnv(f.exit, end) : (f.exit ?? end);
    if (!last) return;
    // what one entry point writes into the state it shares with others outlives its call (a handler's
    // request): another may run after it, so that state is of unknown origin for them all
    const late: Late = { last: new Map(last), shared: null, line: lineOf(f.firstDef ?? f.defs[0].def) };
    for (const q of f.defs) q.late = late;
  }

  yielded(v: V): void {
    const f = this.frames[this.frames.length - 1];
    if (f) f.yields = f.yields ? join(f.yields, v) : v;
  }

  call(n: PyNode, env: Env): V {
    const v = this.callee(n, env);
    // a list or dict handed to a call may be changed by it (an inlined function's changes are not written back)
    const fn = field(n, 'function') as PyNode;
    const callName = fn.type === 'identifier' ? fn.text : fn.type === 'attribute' ? (field(fn, 'attribute') as PyNode).text : '';
    if (!NON_MUTATING.has(callName)) {
      for (const a of argsOf(n)) {
        const x = a.type === 'keyword_argument' ? field(a, 'value') : a;
        if (!x || (x.type !== 'identifier' && x.type !== 'attribute')) continue;
        // an instance held as another's attribute has no entry of its own: read it
        const cur = env.get(x.text) ?? (x.type === 'attribute' ? this.ev(x, env) : undefined);
        const why = `handed to ${callName || 'a call'}() at line ${lineOf(n)}`;
        if (cur && (cur.items || cur.keys || cur.inst)) share(x.text, cur, why, env, lineOf(n));
        // its attributes too (`setattr(o, 'x', v)`, `vars(o)['x'] = v`)
        for (const [k, v] of env) if (k.startsWith(`${x.text}.`)) share(k, v, why, env, lineOf(n));
      }
    }
    return v;
  }

  private callee(n: PyNode, env: Env): V {
    const fn = field(n, 'function') as PyNode;
    const argNodes = argsOf(n);
    const args: V[] = [];
    const kw = new Map<string, V>();
    let splat: V | null = null;
    for (const a of argNodes) {
      if (a.type === 'keyword_argument') kw.set((field(a, 'name') as PyNode).text, this.ev(field(a, 'value'), env));
      else if (a.type === 'list_splat' || a.type === 'dictionary_splat') splat = this.ev(namedChildren(a)[0] ?? null, env);
      else args.push(this.ev(a, env));
    }
    const all = [...args, ...kw.values(), ...(splat ? [splat] : [])];
    const line = lineOf(n);
    let recv: V | null = null;
    let method: string | null = null;
    let qs: string[];
    let callee: V;
    let taken: { recv: V; method: string } | null = null;
    const attrFn = fn.type === 'attribute' ? this.ev(field(fn, 'object'), env) : null;
    const own = attrFn?.inst ? attrFn.attrs?.get((field(fn, 'attribute') as PyNode).text) : undefined;
    if (own) {
      // an instance's attribute shadows its class's method: what is called is the value stored there (`self.read = open`)
      callee = own;
      qs = own.q ?? [];
    } else if (fn.type === 'attribute') {
      recv = attrFn as V;
      method = (field(fn, 'attribute') as PyNode).text;
      qs = recv.q ? recv.q.map((q) => `${q}.${method}`) : [];
      callee = { q: qs };
    } else {
      callee = this.ev(fn, env);
      qs = callee.q ?? [];
      // a sink method taken as a value is that method called on its receiver (for the sink rules)
      if (callee.bm) {
        const { recv: r, method: m } = callee.bm;
        taken = callee.bm;
        if (r.q) qs = r.q.map((q) => `${q}.${m}`);
      }
    }
    // a plain class of this file: its code is what runs, so it is interpreted, not matched as a sink
    if (callee.cls && plainClass(callee.cls)) return this.construct(callee.cls, args, kw, all, env, n);
    const cls = method && (recv?.inst ?? recv?.cls);
    const m = cls && method ? plainClass(cls)?.get(method) : undefined;
    if (m && recv && !(recv.cls && !m.isStatic)) return this.callMethod(m, recv, args, kw, all, env, n, field(fn, 'object') as PyNode);
    // past a `*splat` every position may be any of its elements
    checkSinks(this.hits, { node: n, qs, method: method ?? taken?.method ?? null, recv: recv ?? taken?.recv ?? null, args: splat ? [...args, splat, splat, splat] : args, kw });
    // make_response((body, 302, {'Location': url})): a tuple written at the call, its dict read as written
    // (a dict inside a container keeps no keys of its own: nested())
    if (qs.includes('flask.make_response') && argNodes.length === 1 && argNodes[0].type === 'tuple') {
      for (const d of namedChildren(argNodes[0]).slice(1)) if (d.type === 'dictionary') locationHeader(this.hits, n, this.ev(d, env));
    }
    if (callee.fn && !this.active.has(callee.fn) && this.depth < 4) return this.inline(callee.fn, [...(callee.bound ?? []), ...args], kw, env, n);
    // functools.partial of a function of this file: the function, with its first arguments given
    if (qs.includes('functools.partial') && args[0]?.fn && !kw.size && !splat) {
      const bound = [...(args[0].bound ?? []), ...args.slice(1)];
      // as data (handed to other code) it carries what it was given
      return { ...mix(bound, line), fn: args[0].fn, bound };
    }
    // what a query returns is the store's data, not the query text: of unknown origin, not the request's
    if (isQuery(qs, method ?? taken?.method ?? null, recv ?? taken?.recv ?? null)) return unknownOrigin(`the result of a query (line ${line})`, line);
    for (const q of qs) {
      const what = SOURCE_CALLS.get(q);
      if (what) return source(what, n);
      if (CONVERTERS.has(q)) return mix(all, line).weak ? { weak: mix(all, line).weak } : {}; // a number made of a weak random one is as guessable
      const san = SANITISERS.get(q);
      if (san || DECODERS.has(q)) return san ? this.clean(mix(all, line), san) : raw(mix(all, line));
      const web = webValue(q, { args, kw, all, splat: !!splat, line, clean: (v, cats) => this.clean(v, cats), stepped: (v) => this.stepped(v, n), unescapes: () => (this.unescapes ??= mayUnescape(this.index?.words ?? null)) });
      if (web) return web;
      if (q === 'str') return args[0] ? this.stepped(args[0], n) : konst('');
      if (q === 'open' || q === 'io.open' || q === 'codecs.open') return { q: ['<file>'] };
      // a temporary directory the standard library makes, the process id or working directory: the program's own, not of unknown origin
      if (OWN_VALUES.has(q)) return {};
      // what it is fed is kept (a weak random value hashed stays guessable), but only its digest comes out
      if (HASH_CTORS.test(q)) return { ...mix(all, line), q: ['<hash>'] };
      if (PATH_CTORS.has(q)) return { ...mix(all, line), q: ['<path>'] };
      if (q === 'os.path.realpath' || q === 'os.path.abspath') return { ...mix(all, line), q: ['<resolved>'] };
      if (WEAK_RANDOM.test(q)) return { weak: { what: `${q}()`, lines: [line], clean: new Set() } };
      if (q === 'xml.sax.make_parser') return { q: ['<sax-parser>'] };
      if (q === 'urllib.parse.urlparse' || q === 'urllib.parse.urlsplit') {
        const from = argNodes[0]?.type === 'identifier' ? argNodes[0].text : null;
        return { ...mix(all, line), q: ['<parsed-url>'], ...(from ? { of: from } : {}) };
      }
      // a deque without maxlen is a list that also grows and shrinks at its left end (lists.ts)
      // the next item of an iterator (a generator of this file gives what it yields), or the default
      if (q === 'next' && args.length >= 1 && !kw.size && !splat) return args[1] ? join(this.element(args[0], line), args[1]) : this.element(args[0], line);
      if (q === 'collections.deque') {
        if (!args.length && !kw.size && !splat) return { items: [] };
        if (args.length === 1 && !kw.size && !splat && args[0].items && !args[0].flow && !args[0].unk) return { items: [...args[0].items] };
        return mix(all, line);
      }
      if (q === 'configparser.ConfigParser' || q === 'configparser.RawConfigParser') return { q: ['<config>'], keys: new Map() };
      if (q === 'lxml.etree.XMLParser') {
        const re = kw.get('resolve_entities');
        return { q: [re && truthy(re) === false ? '<xml-parser>' : '<xml-external-entities>'] };
      }
    }
    const applied = this.higherOrder(qs, args, kw, env, n);
    if (applied) return applied;
    if (qs.some((q) => PURE_CALLS.has(q))) return mix(all, line);
    if (recv && method) return this.method(recv, method, args, all, fn, n, env);
    const last = qs[0]?.split('.').pop() ?? (fn.type === 'identifier' ? fn.text : '');
    const named = qs.length && last ? namedSanitiser(last) : null;
    if (named) return this.clean(mix(all, line), named);
    return mix([...all, unknownOrigin(`the result of ${qs[0] ?? fn.text}() (a callee outside this file)`, line)], line);
  }

  private method(recv: V, m: string, args: V[], all: V[], fn: PyNode, n: PyNode, env: Env): V {
    const line = lineOf(n);
    const objNode = field(fn, 'object') as PyNode;
    const name = objNode.type === 'identifier' || objNode.type === 'attribute' ? objNode.text : null;
    const root = name || !(recv.items || recv.keys) ? null : rootName(objNode);
    if (root) forget(env, root, all, line);
    if (recv.q?.includes('<file>') && READ_METHODS.has(m)) return source('a file read', n);
    if (READ_METHODS.has(m) && recv.q?.some((q) => /socket/.test(q))) return source('a socket read', n);
    if (recv.q?.includes('<sax-parser>') && m === 'setFeature' && args[1] && truthy(args[1]) !== false && (args[0]?.q ?? []).some((q) => /feature_external_(ges|pes)$/.test(q))) {
      if (name) env.set(name, { q: ['<sax-parser>', '<xml-external-entities>'] });
      return {};
    }
    // resolve() removes `..` and follows links; absolute() only prefixes the working directory, so `..` stays
    if (recv.q?.includes('<path>') && (m === 'resolve' || m === 'absolute')) return m === 'resolve' ? { ...recv, q: ['<path>', '<resolved>'] } : this.stepped({ ...recv, q: ['<path>'] }, n);
    if (m === 'SystemRandom') return {};
    if (recv.q?.includes('<hash>') && (m === 'hexdigest' || m === 'digest')) return recv.weak ? { weak: recv.weak } : {};
    if (recv.q?.includes('<markup>') && m === 'format') return { ...this.clean(mix(all, line), ['xss']), q: ['<markup>'] };
    if (recv.q?.includes('<config>') && recv.keys) return configParser(recv, m, args, name, env, line);
    const named = namedSanitiser(m);
    if (named) return this.clean(mix(all, line), named);
    if (recv.items && name) return listMethod(recv, m, args, all, name, env, line);
    if (recv.keys && name && m === 'get' && args[0]?.known && typeof args[0].k === 'string') return recv.keys.get(args[0].k) ?? args[1] ?? konst(null);
    if (name && ['append', 'extend', 'add', 'update', 'insert', 'setdefault', 'write'].includes(m) && all.length) {
      env.set(name, { ...mix([recv, ...all], line), q: recv.q });
      return {};
    }
    // any other method of a dict whose keys are known may change it (`__setitem__`, `pop`, `clear`, `__ior__`…)
    if (recv.keys && name && !DICT_READS.has(m)) env.set(name, { ...mix([recv, ...all], line), ...(recv.q ? { q: recv.q } : {}) });
    if (m === 'join') return mix([...all.map(carried), recv], line);
    if (STR_KEEP.has(m) && recv.known && typeof recv.k === 'string' && all.every((a) => a.known)) return { ...mix([recv, ...all], line), known: false };
    // a method this analysis does not model returns data of unknown origin (a file, a database, …)
    const parts = DATA_METHODS.has(m) ? [recv, ...all] : [recv, ...all, unknownOrigin(`the result of .${m}() (a method outside this file)`, line)];
    return { ...mix(parts, line), ...(recv.q ? { q: recv.q.map((q) => `${q}.${m}()`) } : {}) };
  }

  /** A same-file function interpreted with these arguments: its summary is the join of its returns. */
  protected inline(def: PyNode, args: V[], kw: Map<string, V>, env: Env, n: PyNode): V {
    return this.runFn(def, args, kw, env, n).ret;
  }

  /** Whether the current statement runs inside a try or with body of some function being run. */
  abstract anyTry(): boolean;
  abstract tryBody(n: PyNode, env: Env): { end: Env | null; raised: Env };

  /**
   * Runs a same-file function: its summary, and the scope it leaves (the join of its returns and end,
   * and under a try, of every state an exception may leave it in), from which a method's instance and
   * the caller's containers it wrote into are read back.
   */
  private runFn(def: PyNode, args: V[], kw: Map<string, V>, env: Env, n: PyNode): { ret: V; exit: Env | null } {
    const local: Env = new Map(env);
    const params = paramsOf(def);
    params.forEach((p, i) => {
      const id = p.type === 'identifier' ? p : (field(p, 'name') ?? namedChildren(p).find((c) => c.type === 'identifier'));
      if (!id) return;
      const dflt = field(p, 'value');
      dropAttrs(local, id.text);
      local.set(id.text, args[i] ?? kw.get(id.text) ?? (dflt ? this.ev(dflt, env) : unknownOrigin(`${id.text} (an argument not written out at line ${lineOf(n)})`, lineOf(n))));
    });
    // under a try anywhere up the calls, an exception from the middle of it may be caught and what it
    // changed so far seen: what it leaves is then the join of every state it passed through
    const partial = this.anyTry();
    this.active.add(def);
    this.depth++;
    this.frames.push({ returns: null, exit: null });
    let end: Env | null = null;
    let raised: Env | null = null;
    try {
      if (def.type === 'lambda') {
        (this.frames[this.frames.length - 1] as Frame).returns = this.ev(field(def, 'body'), local);
        end = local;
      } else if (partial) ({ end, raised } = this.tryBody(field(def, 'body') as PyNode, local));
      else end = this.block(field(def, 'body') as PyNode, local);
    } finally {
      this.depth--;
      this.active.delete(def);
    }
    const f = this.frames.pop() as Frame;
    let exit = f.exit ?? null;
    for (const e of [end, raised]) if (e) exit = exit ? joinEnv(exit, e) : e;
    this.closeDefs(f, exit);
    this.writeBack(def, exit, env, n);
    // a generator's caller gets what it yields (iterating it), not only what it returns
    const ret = f.yields ? mix([f.returns ?? {}, f.yields], lineOf(n)) : (f.returns ?? konst(null));
    // what its returns send as a page, should a view return this value in turn (interp.ts)
    return { ret: this.stepped(f.pages && !f.yields ? { ...ret, page: f.pages } : ret, n), exit };
  }

  /**
   * `map`, `filter`, `sorted`, `min`, `max` given a function or lambda of this file: it runs on an
   * element of the iterables (its sinks are visited), and `map` gives what it returns. Null when the
   * function is not one of the file's (the call is then judged as before).
   */
  private higherOrder(qs: string[], args: V[], kw: Map<string, V>, env: Env, n: PyNode): V | null {
    const q = ['map', 'filter', 'sorted', 'min', 'max'].find((x) => qs.includes(x));
    if (!q) return null;
    const line = lineOf(n);
    const fnV = q === 'map' || q === 'filter' ? args[0] : kw.get('key');
    const its = q === 'map' || q === 'filter' ? args.slice(1) : args;
    if (!fnV?.fn || !its.length || [...kw.keys()].some((k) => k !== 'key' && k !== 'reverse' && k !== 'default')) return null;
    if (this.active.has(fnV.fn) || this.depth >= 4) return mix([...args, ...kw.values(), unknownOrigin(`the result of a function given to ${q}() (not followed this deep)`, line)], line);
    const els = q === 'map' ? its.map((it) => this.element(it, line)) : [this.element(its.length === 1 ? its[0] : mix(its, line), line)];
    const r = this.inline(fnV.fn, [...(fnV.bound ?? []), ...els], new Map(), env, n);
    if (q === 'map') return mix([r], line);
    return q === 'min' || q === 'max' ? join(els[0], kw.get('default') ?? els[0]) : mix(its, line);
  }

  /**
   * What a function run in place changed in its caller's scope. Its scope began as a copy of the
   * caller's, so a caller's name (or attribute entry) it did not bind itself whose value is another
   * object where it left is one it, or a function it ran, wrote into (`STATE['c'] = v`, `SEEN.append(v)`,
   * a method on a module-level instance): the caller takes it, on every way out (exit). A name it rebinds
   * (`global`/`nonlocal`, which may be another scope's binding), a name it writes into that is also one
   * of its locals, or one it writes into by a way the interpreter does not follow (its value unchanged), is
   * shared instead: its members are of unknown origin.
   */
  private writeBack(def: PyNode, exit: Env | null, env: Env, n: PyNode): void {
    const line = lineOf(n);
    const why = `changed by ${field(def, 'name')?.text ?? 'a lambda'}() at line ${line}`;
    const locals = localsOf(def);
    const rebinds = rebound(def);
    const rootOf = (k: string): string => k.split('.', 1)[0];
    const taken = new Set<string>();
    if (exit) {
      const changed: string[] = [];
      for (const [k, v] of exit) {
        const root = rootOf(k);
        if (!locals.has(root) && !rebinds.has(root) && env.has(root) && env.get(k) !== v) changed.push(k);
      }
      // an entry replaced takes the entries under it from the function's scope too (in any order)
      for (const k of changed) dropAttrs(env, k);
      for (const [k, v] of exit) {
        if (!changed.some((c) => k === c || k.startsWith(`${c}.`))) continue;
        env.set(k, v);
        taken.add(rootOf(k));
      }
    }
    for (const w of outerWrites(def)) {
      if (taken.has(w) && !locals.has(w) && !rebinds.has(w)) continue;
      for (const [k, v] of env) if (k === w || k.startsWith(`${w}.`)) share(k, v, why, env, line);
    }
  }

  /** A plain class called: a fresh instance, with what its `__init__` sets on it. */
  private construct(cls: PyNode, args: V[], kw: Map<string, V>, all: V[], env: Env, n: PyNode): V {
    const fresh = instance(cls, new Map());
    const init = plainClass(cls)?.get('__init__');
    if (!init) return fresh;
    if (init.isStatic || this.active.has(init.def) || this.depth >= 4) return mix([...all, unknownOrigin(`an instance of ${(field(cls, 'name') as PyNode).text} (its __init__ not followed here)`, lineOf(n))], lineOf(n));
    const { exit } = this.runFn(init.def, [fresh, ...args], kw, env, n);
    return this.selfAfter(init, exit, n) ?? unknownOrigin('an instance whose __init__ always raises', lineOf(n));
  }

  /** A method of a plain class called on an instance (or a static one on its class): its summary, and the instance as it leaves it. */
  private callMethod(m: Method, recv: V, args: V[], kw: Map<string, V>, all: V[], env: Env, n: PyNode, objNode: PyNode): V {
    const target = objNode.type === 'identifier' || objNode.type === 'attribute' ? objNode.text : null;
    if (this.active.has(m.def) || this.depth >= 4) {
      if (target && recv.inst) share(target, recv, `its method ${objNode.text}() not followed at line ${lineOf(n)}`, env, lineOf(n));
      return mix([recv, ...all, unknownOrigin(`the result of ${(field(m.def, 'name') as PyNode).text}() (a method not followed this deep)`, lineOf(n))], lineOf(n));
    }
    if (m.isStatic) return this.inline(m.def, args, kw, env, n);
    const { ret, exit } = this.runFn(m.def, [recv, ...args], kw, env, n);
    if (target) {
      dropAttrs(env, target);
      env.set(target, this.selfAfter(m, exit, n) ?? recv);
    }
    return ret;
  }

  private selfAfter(m: Method, exit: Env | null, n: PyNode): V | null {
    const self = namedChildren(field(m.def, 'parameters') as PyNode)[0]?.text ?? '';
    const after = exit?.get(self);
    if (!exit || !after) return null;
    return after.inst ? settled(self, after, exit, lineOf(n)) : after;
  }
}
