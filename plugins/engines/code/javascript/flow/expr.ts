import type { JsNode } from '../parser.js';
import { type JsResolver, propName } from '../resolve.js';
import { type Const, type V, UNKNOWN, allFlow, carried, join, konst, mix, step, truthy, unknownOrigin } from '../../python/flow/index.js';
import { type JEnv, type JV, type JsHit, JsFlowBudgetError, binop, cleanFor, lineOf, source } from './value.js';
import { KOA_DATA, REQUEST_CONTAINERS, REQUEST_DATA, SOURCE_NAMES } from './tables.js';

/** Members through which an object makes its own text or primitive value. */
const SELF_CONVERTING = new Set(['toString', 'valueOf', 'toJSON', 'toLocaleString']);

const BUDGET = 200_000;
/** Globals whose value is the program's own (a module, a constructor, the file's location), not data. */
const OWN_GLOBALS = new Set([
  'Math', 'JSON', 'Object', 'Array', 'String', 'Number', 'Boolean', 'Date', 'Promise', 'RegExp', 'Map', 'Set', 'WeakMap', 'Symbol', 'Error', 'TypeError',
  'console', 'Buffer', 'require', 'module', 'exports', 'process', 'URL', 'URLSearchParams', 'Reflect', 'Proxy',
  '__dirname', '__filename', 'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'eval', 'Function', 'parseInt', 'parseFloat',
  'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'escape', 'unescape', 'BigInt', 'structuredClone', 'fetch',
  'queueMicrotask', 'TextEncoder', 'TextDecoder', 'crypto', 'Intl', 'Uint8Array', 'ArrayBuffer', 'DataView',
]);

const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window', 'self']);

/** An object or array other code may hold too: what it holds may change out of the analysis's sight. */
export function share(v: V): V {
  if (v.keys || v.items) (v as JV).esc = true;
  return v;
}

/** Text built from parts keeps the constant it starts with (a redirect to '/users/' + id stays on this host). */
function withPrefix(v: V, pre: string): V {
  if (pre) (v as JV).pre = pre;
  return v;
}

/** Expressions of one file as abstract values; statements and calls are interp.ts's. */
export abstract class JsExprEval {
  readonly hits: JsHit[] = [];
  private steps = 0;

  constructor(readonly r: JsResolver) {}

  tick(): void {
    if (++this.steps > BUDGET) throw new JsFlowBudgetError();
  }

  abstract call(n: JsNode, env: JEnv): V;
  abstract functionValue(n: JsNode, env: JEnv): JV;
  abstract assignTo(target: JsNode, v: V, env: JEnv, line: number): void;

  stepped(v: V, n: JsNode): V {
    const line = lineOf(n);
    if (!v.flow && !v.weak && !v.unk) return v;
    return { ...v, flow: step(v.flow, line), weak: step(v.weak, line), unk: step(v.unk, line) };
  }

  ev(n: JsNode | null | undefined, env: JEnv): V {
    if (!n) return konst(null);
    this.tick();
    switch (n.type) {
      case 'Literal':
        if ((n as { regex?: unknown }).regex) return { q: ['<regexp>'] };
        return typeof n.value === 'bigint' ? UNKNOWN : konst((n.value ?? null) as string | number | boolean | null);
      case 'TemplateLiteral':
        return this.template(n, env);
      case 'Identifier':
        return this.name(n, env);
      case 'ThisExpression':
        return unknownOrigin('this (an object built elsewhere)', lineOf(n));
      case 'MemberExpression':
        return this.member(n, env);
      case 'ChainExpression':
      case 'ParenthesizedExpression':
      case 'TSNonNullExpression':
        return this.ev(n.expression as JsNode, env);
      case 'AwaitExpression':
        return this.ev(n.argument as JsNode, env);
      case 'CallExpression':
      case 'NewExpression':
        return this.call(n, env);
      case 'TaggedTemplateExpression': {
        // a tag gets the literal parts and the values apart (sql`…${x}` binds x as a parameter): what it returns is its own
        const tag = this.ev(n.tag as JsNode, env);
        const parts = ((n.quasi as JsNode).expressions as JsNode[]).map((e) => this.ev(e, env));
        if (tag.q?.includes('String.raw')) return mix(parts, lineOf(n));
        return { ...unknownOrigin(`the result of the template tag ${this.r.qualify(n.tag as JsNode)[0] ?? '(computed)'}`, lineOf(n)), q: ['<tagged>'] };
      }
      case 'BinaryExpression':
        return this.binary(n, env);
      case 'LogicalExpression': {
        const a = this.ev(n.left as JsNode, env);
        const t = truthy(a);
        const op = n.operator as string;
        if (op === '&&' && t === false) return a;
        if (op === '||' && t === true) return a;
        if (op === '??' && a.known && a.k !== null) return a;
        const b = this.ev(n.right as JsNode, env);
        if ((op === '&&' && t === true) || (op === '||' && t === false) || (op === '??' && a.known && a.k === null)) return b;
        return join(a, b);
      }
      case 'ConditionalExpression': {
        const t = truthy(this.ev(n.test as JsNode, env));
        if (t === true) return this.ev(n.consequent as JsNode, env);
        if (t === false) return this.ev(n.alternate as JsNode, env);
        return join(this.ev(n.consequent as JsNode, env), this.ev(n.alternate as JsNode, env));
      }
      case 'UnaryExpression': {
        const v = this.ev(n.argument as JsNode, env);
        const op = n.operator as string;
        if (op === '!') {
          const t = truthy(v);
          return t === null ? {} : konst(!t);
        }
        if (op === '-' && v.known && typeof v.k === 'number') return konst(-v.k);
        if (op === 'typeof' && v.known) return konst(v.k === null ? 'object' : typeof v.k);
        // +x, -x, ~x, void, typeof, delete: numbers, booleans or fixed words, never the operand's text
        return {};
      }
      case 'UpdateExpression': {
        // `i++` writes its operand: a number after it (a known one from a known one), never the old text
        const arg = n.argument as JsNode;
        const old = this.ev(arg, env);
        const num = old.known && typeof old.k === 'number' ? old.k : null;
        const v: V = num !== null ? konst(num + (n.operator === '++' ? 1 : -1)) : old.weak ? { weak: old.weak } : {};
        if (arg.type === 'Identifier' || arg.type === 'MemberExpression') this.assignTo(arg, v, env, lineOf(n));
        return n.prefix ? v : num !== null ? konst(num) : v;
      }
      case 'SequenceExpression': {
        let last: V = UNKNOWN;
        for (const e of n.expressions as JsNode[]) last = this.ev(e, env);
        return last;
      }
      case 'AssignmentExpression':
        return this.assignment(n, env);
      case 'ArrayExpression':
        return this.array(n.elements as Array<JsNode | null>, env, lineOf(n));
      case 'ObjectExpression':
        return this.object(n, env);
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
      case 'ClassExpression':
        return this.functionValue(n, env);
      case 'SpreadElement':
        return carried(this.ev(n.argument as JsNode, env));
      case 'YieldExpression':
        this.ev(n.argument as JsNode, env);
        return unknownOrigin('the value sent into a generator', lineOf(n));
      case 'ImportExpression':
        return { q: this.r.qualify(n), ...unknownOrigin('a module loaded at run time', lineOf(n)) };
      case 'MetaProperty':
        return {};
      case 'Unknown':
        return unknownOrigin('an argument list not written out at the call', lineOf(n));
    }
    return unknownOrigin(`a ${n.type}`, lineOf(n));
  }

  private template(n: JsNode, env: JEnv): V {
    const quasis = n.quasis as JsNode[];
    const parts = (n.expressions as JsNode[]).map((e) => this.ev(e, env));
    if (parts.every((p) => p.known)) {
      let s = '';
      quasis.forEach((q, i) => {
        s += String((q.value as { cooked: string | null }).cooked ?? '');
        if (i < parts.length) s += String(parts[i].k);
      });
      return konst(s);
    }
    const first = String(((quasis[0]?.value as { cooked: string | null }) ?? { cooked: '' }).cooked ?? '');
    return withPrefix(mix(parts, lineOf(n)), first);
  }

  private binary(n: JsNode, env: JEnv): V {
    const a = this.ev(n.left as JsNode, env);
    const b = this.ev(n.right as JsNode, env);
    const op = n.operator as string;
    if (a.known && b.known) {
      const k = binop(op, a.k as Const, b.k as Const);
      if (k !== undefined) return konst(k);
    }
    // only + joins text; the rest are numbers or booleans, still as guessable as a weak random operand
    if (op !== '+') {
      const weak = mix([a, b], lineOf(n)).weak;
      return weak ? { weak } : {};
    }
    return withPrefix(mix([a, b], lineOf(n)), a.known && typeof a.k === 'string' ? a.k : ((a as JV).pre ?? ''));
  }

  private name(n: JsNode, env: JEnv): V {
    const id = n.name as string;
    const v = env.get(id);
    if (v) return v;
    if (id === 'undefined') return konst(null);
    if (id === 'NaN' || id === 'Infinity') return {};
    if (OWN_GLOBALS.has(id)) return { q: [id] };
    // the global object holds whatever any script put there (a browser's location, a cookie)
    if (GLOBAL_OBJECTS.has(id)) return { q: [id], ...unknownOrigin(`a member of ${id}`, lineOf(n)) };
    // no qualified name: a sink reached through such a name is not decided here, and keeps its presence finding
    if (this.r.bindings.has(id)) return unknownOrigin(`${id}, bound where the analysis does not follow`, lineOf(n));
    return unknownOrigin(`${id}, bound nowhere in the file`, lineOf(n));
  }

  /** The property name of a member expression, when it is known. */
  prop(n: JsNode, env: JEnv): string | null {
    if (!n.computed) return propName(n, () => null);
    const k = this.ev(n.property as JsNode, env);
    return k.known && (typeof k.k === 'string' || typeof k.k === 'number') ? String(k.k) : null;
  }

  member(n: JsNode, env: JEnv): V {
    const obj = this.ev(n.object as JsNode, env);
    const p = this.prop(n, env);
    return this.read(obj, p, n);
  }

  /** `obj.p` (p null: a computed name the analysis cannot fold). */
  read(obj: V, p: string | null, n: JsNode): V {
    const v = this.readOwn(obj, p, n);
    // a class's static members (a static method's `this.x = v`) and a module's exports (another module's
    // `require('./m').x = v`) are set by code the analysis does not follow: not known here
    const q = obj.q ?? [];
    if (!q.some((x) => x === '<class>' || /^(module\.)?exports(\.|$)/.test(x)) && !(q.includes('module') && p === 'exports')) return v;
    return { ...join(v, unknownOrigin(`a member of ${q[0]}, which other code may set`, lineOf(n))), ...(v.q ? { q: v.q } : {}) };
  }

  private readOwn(obj: V, p: string | null, n: JsNode): V {
    const q = obj.q ?? [];
    if (q.includes('<request>')) {
      if (p !== null && REQUEST_DATA.has(p)) return { ...source(`req.${p}`, n), ...(REQUEST_CONTAINERS.has(p) ? { keys: new Map() } : {}) };
      if (p === 'session') return { q: ['<session>'] };
      if (p === 'socket' || p === 'connection') return { q: ['<socket>'] };
      if (p === 'method' || p === 'secure' || p === 'xhr' || p === 'httpVersion') return {};
      return p === null ? source('a computed member of the request', n) : { q: [`<request>.${p}`] };
    }
    if (q.includes('<koa>')) {
      if (p === 'request' || p === 'req') return { q: ['<request>'] };
      if (p === 'response' || p === 'res') return { q: ['<koa-response>'] };
      if (p === 'cookies') return { q: ['<koa-cookies>'] };
      if (p === 'session') return { q: ['<session>'] };
      if (p !== null && KOA_DATA.has(p)) return { ...source(`ctx.${p}`, n), ...(p === 'query' || p === 'params' || p === 'headers' ? { keys: new Map() } : {}) };
      return { q: [`<koa>.${p ?? '<dynamic>'}`] };
    }
    for (const qn of q) {
      const name = `${qn}.${p ?? '<dynamic>'}`;
      const what = SOURCE_NAMES.get(name) ?? (qn === 'process.env' ? 'the environment' : qn === 'process.argv' ? 'process.argv' : undefined);
      if (what) return { ...source(what, n), ...(name === 'process.env' ? { keys: new Map() } : {}) };
    }
    if (p === 'length') return {};
    const changed = (v: V): V => ((obj as JV).esc ? join(v, unknownOrigin('a member of an object other code may change', lineOf(n))) : v);
    if (p !== null && obj.keys?.has(p)) return changed(obj.keys.get(p) as V);
    if (p !== null && obj.items && /^\d+$/.test(p)) return changed(obj.items[Number(p)] ?? konst(null));
    // a member the object was never seen to get may have been set through another name
    if (p !== null && obj.keys && !q.length && !allFlow(obj, 'flow')) return join(carried(obj), unknownOrigin(`the member ${p}, not set where the analysis sees it`, lineOf(n)));
    const inner = carried(obj);
    if (obj.known && typeof obj.k === 'string' && p !== null) return {};
    const out: V = this.stepped(inner, n);
    if (q.length) out.q = q.map((x) => `${x}.${p ?? '<dynamic>'}`);
    if (p === null && !allFlow(obj, 'flow') && !obj.keys && !obj.items && !obj.known) return { ...out, ...unknownOrigin('a member with a computed name', lineOf(n)) };
    return out;
  }

  array(elements: Array<JsNode | null>, env: JEnv, line: number): V {
    const items: V[] = [];
    let spread: V | null = null;
    for (const e of elements) {
      if (!e) items.push(konst(null));
      else if (e.type === 'SpreadElement') spread = spread ? join(spread, this.ev(e, env)) : this.ev(e, env);
      else items.push(share(this.ev(e, env)));
    }
    // a spread makes the positions unknown: what the elements carry is kept on the array itself
    return spread ? mix([...items, spread], line) : { items };
  }

  private object(n: JsNode, env: JEnv): V {
    const keys = new Map<string, V>();
    const extra: V[] = [];
    for (const p of n.properties as JsNode[]) {
      if (p.type === 'SpreadElement') {
        const s = this.ev(p.argument as JsNode, env);
        if (s.keys) for (const [k, v] of s.keys) keys.set(k, v);
        else extra.push(s);
        continue;
      }
      const key = p.computed ? this.ev(p.key as JsNode, env) : null;
      const name = p.computed ? (key?.known ? String(key.k) : null) : (p.key as JsNode).type === 'Identifier' ? ((p.key as JsNode).name as string) : String((p.key as JsNode).value);
      const v = p.kind === 'get' || p.kind === 'set' || p.method ? this.functionValue(p.value as JsNode, env) : share(this.ev(p.value as JsNode, env));
      // a getter's value, and the text of an object that converts itself (`toString`, `valueOf`, a function
      // under a computed key such as `Symbol.toPrimitive`), are made by its own code when read: not known here
      const fnLike = p.method || ['FunctionExpression', 'ArrowFunctionExpression', 'Identifier', 'MemberExpression'].includes((p.value as JsNode).type);
      if (p.kind === 'get' || (p.computed && name === null && fnLike) || (name !== null && SELF_CONVERTING.has(name))) extra.push(unknownOrigin(`an object converting or reading itself by its own code (${name ?? 'a computed key'})`, lineOf(p)));
      if (name === null) extra.push(v);
      else keys.set(name, p.kind === 'get' ? unknownOrigin(`the getter ${name}`, lineOf(p)) : v);
    }
    const out: V = { keys };
    if (extra.length) Object.assign(out, mix(extra, lineOf(n)));
    return out;
  }

  private assignment(n: JsNode, env: JEnv): V {
    const op = n.operator as string;
    let v = this.ev(n.right as JsNode, env);
    if ((n.right as JsNode).type === 'Identifier' || (n.right as JsNode).type === 'MemberExpression') share(v);
    const left = n.left as JsNode;
    if (op !== '=') {
      const old = left.type === 'Identifier' || left.type === 'MemberExpression' ? this.ev(left, env) : UNKNOWN;
      if (op === '+=') v = old.known && v.known ? (konstOr(binop('+', old.k as Const, v.k as Const)) ?? mix([old, v], lineOf(n))) : mix([old, v], lineOf(n));
      else if (op === '||=' || op === '??=' || op === '&&=') v = join(old, v);
      else v = {};
    }
    this.assignTo(left, v, env, lineOf(n));
    return v;
  }

  /** `v` seen through a guard that cleaned it for some classes (a sanitiser's result). */
  sanitised(v: V, cats: Iterable<import('../../python/flow/index.js').Cat>, n: JsNode): V {
    const c = cleanFor(carried(v), cats);
    return this.stepped({ ...c, weak: v.weak }, n);
  }
}

function konstOr(k: ReturnType<typeof binop>): V | undefined {
  return k === undefined ? undefined : konst(k);
}
