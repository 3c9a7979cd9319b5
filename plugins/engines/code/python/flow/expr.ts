import { type PyNode, field, namedChildren } from '../parser.js';
import type { Resolver } from '../resolve.js';
import { type Cat, type Const, type Env, type Flow, type V, UNKNOWN, allFlow, carried, cleaned, join, konst, mix, nested, step, truthy, unknownOrigin } from './value.js';
import { settled } from './classes.js';
import { binop, compare, numberOf } from './ops.js';
import { share } from './lists.js';
import { ALL_CATS, REQUEST_DATA, REQUEST_OBJECTS, REQUEST_ROUTE, SOURCE_NAMES, isSinkMethod } from './tables.js';

/** One sink reached: with a flow when untrusted data gets there unsanitised. */
export interface Hit {
  cat: Cat;
  node: PyNode;
  flow?: Flow;
  /** no untrusted flow, but data of unknown origin reaches the sink: nothing is proven either way */
  undecided?: Flow;
  /** a rule that stands whatever the data (a weak hash, an insecure cookie) */
  unconditional?: string;
  /**
   * a program run without a shell whose arguments carry data: safe from a shell, but what the
   * program does with them (an interpreter's `-c`, git's options) is the presence rules' to judge
   */
  argsCarryData?: true;
}

export const lineOf = (n: PyNode): number => n.row + 1;

export function source(what: string, n: PyNode): V {
  return { flow: { what, lines: [lineOf(n)], clean: new Set() } };
}

/** Expression evaluation; calls and statements are the subclass's (interp.ts). */
/** The origin of an imported module's constant: unknown, but the program's own for the non-code-running classes. */
const ownConstant = (what: string, line: number): Flow => ({
  what: `${what} (a constant of an imported module)`, lines: [line],
  clean: new Set<Cat>(ALL_CATS.filter((c) => !['cmdi', 'codeinj', 'deserialization', 'sqli'].includes(c))),
});

export abstract class ExprEval {
  readonly hits: Hit[] = [];
  /** false inside a handler whose route pattern has a variable part: request.path is then client data */
  routeFixed = true;
  steps = 0;

  constructor(readonly r: Resolver) {}

  abstract call(n: PyNode, env: Env): V;
  abstract yielded(v: V): void;
  abstract lambdaValue(n: PyNode, env: Env): V;

  tick(): void {
    if (++this.steps > 200_000) throw new FlowBudgetError();
  }

  ev(n: PyNode | null, env: Env): V {
    if (!n) return UNKNOWN;
    this.tick();
    switch (n.type) {
      case 'identifier':
        return this.name(n, env);
      case 'string':
      case 'concatenated_string':
        return this.str(n, env);
      case 'integer':
      case 'float': {
        const v = numberOf(n.text);
        return v === null ? UNKNOWN : konst(v);
      }
      case 'true': return konst(true);
      case 'false': return konst(false);
      case 'none': return konst(null);
      case 'parenthesized_expression':
      case 'await':
        return this.ev(namedChildren(n)[0] ?? null, env);
      case 'named_expression': {
        const v = this.ev(field(n, 'value'), env);
        const name = field(n, 'name');
        if (name) env.set(name.text, v);
        return v;
      }
      case 'binary_operator': {
        const a = this.ev(field(n, 'left'), env);
        const b = this.ev(field(n, 'right'), env);
        return this.binary((field(n, 'operator') as PyNode).text, a, b, n);
      }
      case 'unary_operator': {
        const a = this.ev(field(n, 'argument'), env);
        const op = (field(n, 'operator') as PyNode).text;
        if (a.known && typeof a.k === 'number') return konst(op === '-' ? -a.k : op === '~' ? ~a.k : a.k);
        return mix([a], lineOf(n));
      }
      case 'not_operator': {
        const t = truthy(this.ev(field(n, 'argument'), env));
        return t === null ? UNKNOWN : konst(!t);
      }
      case 'comparison_operator':
        return this.comparison(n, env);
      case 'boolean_operator': {
        const a = this.ev(field(n, 'left'), env);
        const t = truthy(a);
        const isAnd = (field(n, 'operator') as PyNode).text === 'and';
        if (t !== null) return t === isAnd ? this.ev(field(n, 'right'), env) : a;
        return join(a, this.ev(field(n, 'right'), env));
      }
      case 'conditional_expression': {
        const [a, c, b] = namedChildren(n);
        // both parsers read `x := A if C else B` as `(x := A) if C else B`; Python binds the whole conditional to x
        if (a?.type === 'named_expression' && field(a, 'name') && field(a, 'value')) {
          const t = truthy(this.ev(c, env));
          const v = t === true ? this.ev(field(a, 'value'), env) : t === false ? this.ev(b, env) : join(this.ev(field(a, 'value'), env), this.ev(b, env));
          env.set((field(a, 'name') as PyNode).text, v);
          return v;
        }
        const t = truthy(this.ev(c, env));
        if (t === true) return this.ev(a, env);
        if (t === false) return this.ev(b, env);
        return join(this.ev(a, env), this.ev(b, env));
      }
      case 'list':
      case 'tuple':
      case 'set':
      case 'expression_list':
        return this.sequence(n, env);
      case 'dictionary':
        return this.dict(n, env);
      case 'list_comprehension':
      case 'set_comprehension':
      case 'generator_expression':
      case 'dictionary_comprehension':
        return this.comprehension(n, env);
      case 'attribute':
        return this.attribute(n, env);
      case 'subscript':
        return this.subscript(n, env);
      case 'call':
        return this.call(n, env);
      case 'lambda':
        return this.lambdaValue(n, env);
      case 'yield': {
        // what a generator gives is what its caller iterates; what is sent back in is not known
        this.yielded(mix([this.ev(namedChildren(n)[0] ?? null, env)], lineOf(n)));
        return unknownOrigin('a value sent into a generator', lineOf(n));
      }
    }
    return mix(namedChildren(n).map((c) => this.ev(c, env)), lineOf(n));
  }

  name(n: PyNode, env: Env): V {
    const got = env.get(n.text);
    if (got) return got.inst ? settled(n.text, got, env, lineOf(n)) : got;
    const q = this.r.qualify(n);
    for (const x of q) {
      const what = SOURCE_NAMES.get(x);
      if (what) return source(what, n);
      if (REQUEST_OBJECTS.test(x)) return { q, flow: { what: 'the request', lines: [lineOf(n)], clean: new Set() } };
    }
    if (this.moduleConstant(q)) return { q, unk: ownConstant(n.text, lineOf(n)) };
    // a name bound nowhere the interpreter saw (an import, a global set elsewhere, a builtin) could
    // hold anything: as data it is of unknown origin, so no sink it reaches is proven safe
    return { ...(q.length ? { q } : {}), ...unknownOrigin(`${n.text} (not bound in this file)`, lineOf(n)) };
  }

  str(n: PyNode, env: Env): V {
    const parts: PyNode[] = [];
    const quoted = new Set<PyNode>();
    const walk = (x: PyNode): void => {
      x.children.forEach((c, i) => {
        if (c.type === 'interpolation') {
          const e = field(c, 'expression') ?? c;
          parts.push(e);
          // a conversion or format spec (`!r` adds quotes) may change the text: only the bare value counts
          if (namedChildren(c).length === 1 && quoteFreeInQuotes(e, x.children[i - 1], x.children[i + 1])) quoted.add(e);
        } else if (c.type === 'string') walk(c);
      });
    };
    walk(n);
    if (!parts.length) {
      const k = this.r.fold(n);
      return k === null ? UNKNOWN : konst(k);
    }
    return mix(parts.map((p) => (quoted.has(p) ? this.clean(this.ev(p, env), ['xpathi']) : this.ev(p, env))), lineOf(n));
  }

  binary(op: string, a: V, b: V, n: PyNode): V {
    if (a.known && b.known) {
      const k = binop(op, a.k as Const, b.k as Const);
      if (k !== undefined) return konst(k);
    }
    const out = mix([a, b], lineOf(n));
    // a Markup template escapes what `%` puts in it, and what `+` joins to it on either side
    if ((op === '%' && a.q?.includes('<markup>')) || (op === '+' && (a.q?.includes('<markup>') || b.q?.includes('<markup>')))) return { ...this.clean(out, ['xss']), q: ['<markup>'] };
    if (op === '/' && (a.q?.includes('<path>') || b.q?.includes('<path>'))) out.q = ['<path>'];
    if (op === '+' && a.items && b.items) out.items = [...a.items, ...b.items];
    return out;
  }

  comparison(n: PyNode, env: Env): V {
    const ops = n.children.filter((c) => !c.named).map((c) => c.text);
    const vals = namedChildren(n).map((c) => this.ev(c, env));
    // `not in` and `is not` are two tokens
    const merged: string[] = [];
    for (let i = 0; i < ops.length; i++) {
      if ((ops[i] === 'not' && ops[i + 1] === 'in') || (ops[i] === 'is' && ops[i + 1] === 'not')) merged.push(`${ops[i]} ${ops[++i]}`);
      else merged.push(ops[i]);
    }
    let result: boolean | null = true;
    for (let i = 0; i < merged.length && i + 1 < vals.length; i++) {
      const a = vals[i];
      const b = vals[i + 1];
      let r: boolean | undefined;
      if (a.known && b.known) r = compare(merged[i], a.k as Const, b.k as Const);
      else if (a.known && (merged[i] === 'in' || merged[i] === 'not in') && b.items?.every((x) => x.known)) {
        const found = b.items.some((x) => x.k === a.k);
        r = merged[i] === 'in' ? found : !found;
      }
      if (r === undefined) result = null;
      else if (!r) return konst(false);
    }
    return result === null ? UNKNOWN : konst(true);
  }

  /**
   * A list, dict or instance bound to a name and put into a literal is one object reachable two ways
   * (`outer = [inner]; outer[0][0] = v` changes `inner`): the name's members are then of unknown origin.
   */
  private member(c: PyNode, env: Env): V {
    const v = this.ev(c, env);
    if ((c.type === 'identifier' || c.type === 'attribute') && !v.tuple && (v.items || v.keys || v.inst)) return share(c.text, v, 'stored in a literal container', env, lineOf(c));
    return v;
  }

  sequence(n: PyNode, env: Env): V {
    const items: V[] = [];
    let spread: V | null = null;
    for (const c of namedChildren(n)) {
      if (c.type === 'list_splat' || c.type === 'parenthesized_list_splat') spread = mix([spread ?? UNKNOWN, this.ev(namedChildren(c)[0] ?? null, env)], lineOf(c));
      else items.push(nested(this.member(c, env), lineOf(c)));
    }
    if (spread) return mix([...items, spread], lineOf(n));
    return n.type === 'tuple' || n.type === 'expression_list' ? { items, tuple: true } : { items };
  }

  dict(n: PyNode, env: Env): V {
    const keys = new Map<string, V>();
    const rest: V[] = [];
    for (const c of namedChildren(n)) {
      if (c.type !== 'pair') {
        rest.push(this.ev(namedChildren(c)[0] ?? null, env));
        continue;
      }
      const k = this.ev(field(c, 'key'), env);
      const v = nested(this.member(field(c, 'value') as PyNode, env), lineOf(c));
      if (k.known && typeof k.k === 'string') keys.set(k.k, v);
      else rest.push(k, v);
    }
    return rest.length ? mix([...keys.values(), ...rest], lineOf(n)) : { keys };
  }

  comprehension(n: PyNode, env: Env): V {
    const local: Env = new Map(env);
    for (const c of namedChildren(n)) {
      if (c.type !== 'for_in_clause') continue;
      const it = this.ev(field(c, 'right'), local);
      this.bindTarget(field(c, 'left'), this.element(it, lineOf(c)), local, lineOf(c));
    }
    const body = field(n, 'body') ?? namedChildren(n)[0];
    const v = body?.type === 'pair' ? mix([this.ev(field(body, 'key'), local), this.ev(field(body, 'value'), local)], lineOf(n)) : this.ev(body ?? null, local);
    return mix([v], lineOf(n));
  }

  /** One element of an iterable: any of its items, or what the whole carries. */
  element(it: V, line: number): V {
    if (it.items && !it.flow && !it.weak && !it.unk) return it.items.reduce((a, b) => join(a, b), it.items[0] ?? UNKNOWN);
    return mix([it], line);
  }

  abstract bindTarget(t: PyNode | null, v: V, env: Env, line: number): void;

  attribute(n: PyNode, env: Env): V {
    const own = env.get(n.text);
    if (own) return own.inst ? settled(n.text, own, env, lineOf(n)) : own;
    const obj = this.ev(field(n, 'object'), env);
    const attr = (field(n, 'attribute') as PyNode).text;
    if (obj.inst) {
      const got = obj.attrs?.get(attr);
      if (got) return got;
      // a method as a value, a class constant or an attribute set where this does not follow: not known here
      return mix([obj, unknownOrigin(`${n.text} (an attribute this analysis does not follow)`, lineOf(n))], lineOf(n));
    }
    const isRequest = obj.q?.some((q) => REQUEST_OBJECTS.test(q));
    if (isRequest) {
      if (REQUEST_ROUTE.has(attr) && this.routeFixed) return {};
      return { flow: { what: `request.${attr}`, lines: [lineOf(n)], clean: new Set() }, ...(REQUEST_DATA.has(attr) ? {} : { q: [`request.${attr}`] }) };
    }
    const q = obj.q ? obj.q.map((x) => `${x}.${attr}`) : this.r.qualify(n);
    for (const x of q) {
      const what = SOURCE_NAMES.get(x);
      if (what) return source(what, n);
    }
    if (!obj.flow && this.moduleConstant(q)) return { q, unk: ownConstant(n.text, lineOf(n)) };
    const out: V = mix([obj], lineOf(n));
    if (q.length) out.q = q;
    if (isSinkMethod(attr)) out.bm = { recv: obj, method: attr };
    return out;
  }

  /**
   * An imported module's constant (`settings.BASE_DIR`, `os.sep`; upper case by PEP 8's convention, or
   * a separator of os/os.path): configuration the program ships with, not data a client sends. It is
   * trusted as a library function's parameters are (ownConstant): decided for paths, HTML, queries of
   * XML/LDAP and redirects, still undecided where it would run as code, a command or SQL.
   */
  private moduleConstant(q: readonly string[]): boolean {
    return q.some((x) => {
      const dot = x.lastIndexOf('.');
      if (dot < 0) return false;
      const mod = x.slice(0, dot);
      const name = x.slice(dot + 1);
      if (!this.r.importedModules.has(mod)) return false;
      return /^[A-Z][A-Z0-9_]*$/.test(name) || ((mod === 'os' || mod === 'os.path') && ['sep', 'altsep', 'pathsep', 'curdir', 'pardir', 'extsep', 'linesep'].includes(name));
    });
  }

  subscript(n: PyNode, env: Env): V {
    const obj = this.ev(field(n, 'value'), env);
    const keyNode = field(n, 'subscript');
    const key = keyNode && keyNode.type !== 'slice' ? this.ev(keyNode, env) : null;
    if (key?.known) {
      if (obj.items && typeof key.k === 'number') {
        const i = key.k < 0 ? obj.items.length + key.k : key.k;
        if (obj.items[i]) return obj.items[i];
      }
      if (obj.keys && typeof key.k === 'string') {
        const v = obj.keys.get(key.k);
        if (v) return v;
      }
      if (obj.known && typeof obj.k === 'string' && typeof key.k === 'number') {
        const c = obj.k.at(key.k);
        if (c !== undefined) return konst(c);
      }
    }
    if (obj.q?.some((q) => q === 'os.environ')) return source('the environment', n);
    const parts = [obj];
    if (key && !key.known) parts.push(key);
    const out = mix(parts.map(carried), lineOf(n));
    return out;
  }

  /** The value with its flow made safe for `cats`. */
  clean(v: V, cats: Iterable<Cat>): V {
    return { ...v, flow: cleaned(v.flow, cats), unk: cleaned(v.unk, cats) };
  }

  stepped(v: V, n: PyNode): V {
    const out: V = { ...v, flow: step(v.flow, lineOf(n)), weak: step(v.weak, lineOf(n)), unk: step(v.unk, lineOf(n)) };
    if (v.page) out.page = this.stepped(v.page, n);
    return out;
  }
}

export class FlowBudgetError extends Error {}

/**
 * `{x.replace(Q, R)}` between two Q quotes of an f-string, Q a quote and R a constant without it: the
 * value holds no Q, so it cannot end the quoted literal around it. XPath literals have no escape
 * character, so that is enough there; SQL's backslash escapes (MySQL) make it not enough for SQL.
 */
function quoteFreeInQuotes(e: PyNode, before: PyNode | undefined, after: PyNode | undefined): boolean {
  if (e.type !== 'call' || before?.type !== 'string_content' || after?.type !== 'string_content') return false;
  const fn = field(e, 'function');
  if (fn?.type !== 'attribute' || field(fn, 'attribute')?.text !== 'replace') return false;
  const args = namedChildren(field(e, 'arguments') as PyNode);
  const lit = (a: PyNode | undefined): string | null => {
    if (a?.type !== 'string' || a.children.some((c) => c.type === 'interpolation')) return null;
    const m = /^[uU]?(['"])(.*)\1$/s.exec(a.text);
    // only the quote and backslash escapes are read; any other escape leaves the literal unread
    return m && !/\\[^'"\\]/.test(m[2]) ? m[2].replace(/\\(['"\\])/g, '$1') : null;
  };
  const [q, r] = [lit(args[0]), lit(args[1])];
  if (args.length !== 2 || (q !== "'" && q !== '"') || r === null || r.includes(q)) return false;
  // the literal text around (an escaped `\\'` ends with the quote too)
  return before.text.endsWith(q) && (after.text.startsWith(q) || after.text.startsWith(`\\${q}`));
}
