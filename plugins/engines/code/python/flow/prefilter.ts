import { type PyNode, field } from '../parser.js';
import { ident } from '../literals.js';
import { MODULE_ALIAS_NAMES, canonical, moduleAlias } from '../names.js';
import { NAME_RESOLVERS } from '../resolve.js';
import { ROUTE_VERBS, routeDef } from './routes.js';
import type { ModuleIndex } from './module-index.js';
import type { Resolver } from '../resolve.js';
import {
  ARGV_EXEC, CODE_EXEC, DESERIALISERS, PATH_CALLS, PATH_CTORS, REDIRECTS, SHELL_STRING_EXEC, SQL_METHODS, XPATH_CALLS, XPATH_METHODS,
} from './tables.js';

/**
 * Where the flow analysis can record a sink visit, decided from the module's names before it runs.
 * A module that names no sink has nothing for the analysis to prove safe or unsafe (its findings
 * are the presence rules' alone), and an entry point whose code names none can add nothing; on
 * ordinary code (the shared corpus) running every entry point was most of the cost of an answer.
 *
 * The interpreter knows a callee only by a qualified name the resolver built from the identifiers
 * of the text (an import, an attribute, a builtin, an alias of a module), so a sink it can reach has
 * its last segment written as an identifier and its module written too (or an alias the resolver
 * maps to it), unless a reflection call (getattr, `__import__`, `sys.modules`…) assembles a name from
 * strings: such a word counts as a sink's. Reflection that writes by name (setattr, `globals()`,
 * `__dict__`) turns every filter off.
 * Identifiers are NFKC-normalised as CPython reads them. test/engines/code-flow-prefilter.test.ts
 * checks, on every snippet of the rule tables and the corpus, that the analysis with the filters
 * records exactly the sink visits it records without them.
 */

/** Sink names matched by regular expressions in the tables, written out (sinks.ts: xxe, weak hashes). */
const PATTERN_SINKS = [
  'xml.dom.minidom.parseString', 'xml.dom.minidom.parse', 'xml.dom.pulldom.parseString', 'xml.dom.pulldom.parse', 'xml.sax.parseString', 'xml.sax.parse',
  'lxml.etree.fromstring', 'lxml.etree.parse', 'lxml.etree.XML',
  'hashlib.md5', 'hashlib.sha1', 'hashlib.md4', 'hashlib.new',
  ...['Crypto', 'Cryptodome'].flatMap((m) => ['MD5', 'SHA1', 'MD4', 'MD2'].map((h) => `${m}.Hash.${h}.new`)),
  'cryptography.hazmat.primitives.hashes.MD5', 'cryptography.hazmat.primitives.hashes.SHA1',
];

/** Every qualified sink name: its first and last segments must both be written for it to be reachable. */
export const SINK_NAMES: readonly string[] = [
  ...SHELL_STRING_EXEC, ...ARGV_EXEC, ...CODE_EXEC, ...DESERIALISERS, ...PATH_CALLS.keys(), ...PATH_CTORS, ...REDIRECTS.keys(), ...XPATH_CALLS.keys(),
  'yaml.load', 'sqlalchemy.text', ...PATTERN_SINKS,
];

/** Sinks known by their method name whatever the receiver (a cursor's execute, an element's xpath, a response's cookie). */
const METHOD_SINKS = new Set([...SQL_METHODS, ...XPATH_METHODS, 'set_cookie', 'set_signed_cookie']);

/**
 * Reflection that writes a name out of the binding forms read below (`setattr`, `globals()[…] = v`,
 * `vars(o)` handed on, `o.__dict__`, `f.__globals__`): a value may then reach any name, so nothing is
 * filtered. `globals()`, `locals()` and `vars()` only read from (writesByName) count as reads by name.
 */
const WRITES_BY_NAME = new Set(['setattr', 'delattr', 'globals', 'locals', 'vars', '__dict__', '__setattr__', '__delattr__', '__globals__']);
const NAMESPACE_CALLS = new Set(['globals', 'locals', 'vars']);
const TARGET_PARTS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'parenthesized_expression', 'expression_list', 'list_splat_pattern', 'as_pattern_target']);

/**
 * Whether a use of a writing word may write: always, but for `globals()` (and locals, vars) called
 * and read at once — `globals()[k]` not assigned, augmented, deleted or looped into, or
 * `globals().get(k)`, the value read not changed through an attribute or subscript in turn.
 * Anything else (the namespace bound to a name, handed to a call, updated) may.
 */
function writesByName(id: PyNode): boolean {
  if (!NAMESPACE_CALLS.has(id.text) || id.field !== 'function') return true;
  const call = id.parent;
  const use = call?.parent;
  if (!call || call.type !== 'call' || !use) return true;
  // what is read must not be changed in turn (`globals()['l'].append(v)` writes into a global)
  const readOnly = (v: PyNode): boolean => !(v.parent?.type === 'attribute' && v.field === 'object') && !(v.parent?.type === 'subscript' && v.field === 'value');
  if (use.type === 'attribute' && call.field === 'object') {
    const m = use.children.find((c) => c.field === 'attribute')?.text;
    const got = use.parent;
    return !(m === 'get' && got?.type === 'call' && use.field === 'function' && readOnly(got));
  }
  if (use.type !== 'subscript' || call.field !== 'value' || !readOnly(use)) return true;
  let x: PyNode = use;
  while (x.parent && TARGET_PARTS.has(x.parent.type)) x = x.parent;
  const p = x.parent;
  if (!p) return false;
  if (p.type === 'delete_statement' || p.type === 'as_pattern') return true;
  return (p.type === 'assignment' || p.type === 'augmented_assignment' || p.type === 'for_statement' || p.type === 'for_in_clause') && x.field === 'left';
}

/**
 * Reflection that reads a name made from strings (getattr, `__import__`, `sys.modules`, each resolver
 * of names by its last segment) or walks from one object to another (`().__class__.__base__`): the
 * name may be a sink's, so the word counts as one. Dunder names of ordinary classes do not.
 */
const READS_BY_NAME = new Set([
  'globals', 'locals', 'vars', 'getattr', '__import__', 'import_module', 'modules', 'attrgetter', 'methodcaller', '__builtins__',
  ...[...NAME_RESOLVERS].map((q) => q.split('.').pop() as string), 'resolve', 'ext_convert',
]);
const ORDINARY_DUNDER = /^__(init|name|main|all|file|doc|future|slots|repr|str|version|author|post_init|enter|exit|iter|next|len|eq|ne|lt|le|gt|ge|hash|bool|contains)__$/;
const readsByName = (w: string): boolean => READS_BY_NAME.has(w) || (w.length > 4 && w.startsWith('__') && w.endsWith('__') && !ORDINARY_DUNDER.test(w));

/** receivers the rules recognise by a part of their name: an LDAP connection, a session store */
const NAMED_RECEIVERS = /ldap|session/i;

/**
 * The words without one of which SinkNames.anySink() is false, as one expression over the source
 * text: each sink's module (or the alias the resolver maps to it; a builtin's own name), the sink
 * methods, reflection, the LDAP/session receivers, a special name no ordinary class has, a route
 * decorator (or one that starts with a bracket or goes on past a line end) and a Django view's
 * request. Text that matches none names no sink, and the identifier passes are not made at all.
 */
const SINK_TEXT = new RegExp(
  [
    `\\b(${[...new Set([...SINK_NAMES.map((n) => n.split('.')[0] as string), ...MODULE_ALIAS_NAMES, ...METHOD_SINKS, ...READS_BY_NAME, ...WRITES_BY_NAME, 'request', 'HttpRequest'])].join('|')})\\b`,
    `@[^\\n]*\\b(${ROUTE_VERBS.join('|')})\\b`, '@\\s*\\(', '@[^\\n]*\\\\\\r?\\n',
    // special names, matched as the identifiers are
    `(?<![A-Za-z0-9_])__(?!(${ORDINARY_DUNDER.source.slice(4, -4)})__(?![A-Za-z0-9_]))[A-Za-z0-9_]+__(?![A-Za-z0-9_])`,
  ].join('|'),
);

/** Whether text is all ASCII: its own NFKC form, so its identifiers need no normalising. */
export function isAscii(code: string): boolean {
  return !/[^\x00-\x7f]/.test(code);
}

/**
 * False only where SinkNames.anySink() is surely false: ASCII text (`ascii`, isAscii) without any
 * word SINK_TEXT looks for (identifiers are case-sensitive) and without a receiver NAMED_RECEIVERS
 * would recognise.
 */
export function mayNameSink(code: string, ascii = isAscii(code)): boolean {
  return !ascii || SINK_TEXT.test(code) || NAMED_RECEIVERS.test(code);
}

/** first segments of the sink names, by last segment */
const BY_LAST = new Map<string, string[]>();
for (const name of SINK_NAMES) {
  const parts = name.split('.');
  const last = parts[parts.length - 1] as string;
  (BY_LAST.get(last) ?? BY_LAST.set(last, []).get(last))?.push(parts[0] as string);
}

/**
 * The sink-naming words of one module and, for its entry points, which can visit a sink.
 *
 * An entry point's run reaches only what its own text names: the values bound to those names
 * anywhere in the module (assignments, loop and `with` targets, defaults, imports, what a method
 * called on the name is handed), the functions and classes it names (their whole text), and so on.
 * A name is "hot" when a sink word is reachable from it that way; an entry point runs when its text
 * holds a sink word or a hot name, or it is a route handler (its return is a page). Scopes are not
 * told apart and a sink's last segment counts when its module is written anywhere in the module
 * (both only add words, never remove one), except as the attribute of a name bound only to modules
 * that have no such sink (ModuleNames: `json.loads` where json is only ever the json module). Words are numbered once, so the
 * closure is a walk over arrays of numbers (linear in the text bound, whatever the chains).
 */
export class SinkNames {
  /** offset of each identifier, in text order, and its word's number */
  private readonly starts: number[] = [];
  private readonly ids: number[] = [];
  private readonly idOf = new Map<string, number>();
  /**
   * by occurrence: 1 where the identifier may name a sink (a sink's last segment whose module the
   * module writes, unless it is provably another module's attribute; a sink method; reflection that
   * reads by name)
   */
  private readonly sinkAt: Uint8Array;
  private readonly anySinkWord: boolean;
  /** reflection that writes by name: a value may reach any name, so nothing is filtered */
  reflective = false;
  private hot: Uint8Array | null = null;
  private readonly memo = new Map<PyNode, boolean>();

  /** `r`: the module's resolver, which shows `json.loads` is json's (null: every last segment counts) */
  constructor(private readonly index: ModuleIndex, r: Resolver | null = null) {
    const words: string[] = [];
    index.idents.forEach((n, i) => {
      const w = index.words[i] as string;
      let id = this.idOf.get(w);
      if (id === undefined) {
        id = words.length;
        this.idOf.set(w, id);
        words.push(w);
      }
      if (!this.reflective && WRITES_BY_NAME.has(w) && writesByName(n)) this.reflective = true;
      this.starts.push(n.start);
      this.ids.push(id);
    });
    // a module written under an alias the resolver maps (`posix` is os) counts as written
    const written = (m: string): boolean => this.idOf.has(m) || words.some((w) => moduleAlias(w) === m);
    // 1: every occurrence may name a sink; 2: only as a sink's last segment (json.loads may be shown not to be)
    const kind = new Uint8Array(words.length);
    words.forEach((w, id) => {
      if (METHOD_SINKS.has(w) || NAMED_RECEIVERS.test(w) || readsByName(w) || BY_LAST.get(w)?.some((f) => f === w)) kind[id] = 1;
      else if (BY_LAST.get(w)?.some((f) => written(f))) kind[id] = 2;
    });
    this.sinkAt = new Uint8Array(this.ids.length);
    const modules = r && !r.starModules.length ? new ModuleNames(index, r) : null;
    let any = false;
    this.ids.forEach((id, i) => {
      const k = kind[id];
      const n = index.idents[i] as PyNode;
      if (!k || (k === 2 && (bindsOnly(n) || modules?.notASink(n, words[id] as string)))) return;
      this.sinkAt[i] = 1;
      any = true;
    });
    this.anySinkWord = any;
  }

  /** Whether the analysis could record any sink visit in the module. */
  anySink(): boolean {
    if (this.reflective || this.anySinkWord) return true;
    for (const n of this.index.defs) if (routeDef(n).isRoute) return true;
    return false;
  }

  /** Whether running this entry point (function or lambda) could record a sink visit. */
  relevant(def: PyNode): boolean {
    if (this.reflective) return true;
    let got = this.memo.get(def);
    if (got === undefined) this.memo.set(def, (got = routeDef(def).isRoute || this.namesSink(def.start, def.end)));
    return got;
  }

  private namesSink(start: number, end: number): boolean {
    for (let i = this.firstAt(start); i < this.ids.length && (this.starts[i] as number) < end; i++) if (this.sinkAt[i]) return true;
    const hot = (this.hot ??= this.hotNames());
    for (let i = this.firstAt(start); i < this.ids.length && (this.starts[i] as number) < end; i++) if (hot[this.ids[i] as number]) return true;
    return false;
  }

  /** 1 for every word from whose bound values a sink is reachable (a walk back from the names bound to a sink). */
  private hotNames(): Uint8Array {
    const { name, from, to } = this.bindings();
    const n = this.idOf.size;
    // edges from each word to the names whose bound values hold it, as one array sliced by word
    const count = new Int32Array(n + 1);
    for (let b = 0; b < name.length; b++) for (let i = this.firstAt(from[b] as number); i < this.ids.length && (this.starts[i] as number) < (to[b] as number); i++) count[(this.ids[i] as number) + 1]++;
    for (let w = 0; w < n; w++) count[w + 1] += count[w] as number;
    const fill = count.slice(0, n);
    const holders = new Int32Array(count[n] as number);
    for (let b = 0; b < name.length; b++) {
      for (let i = this.firstAt(from[b] as number); i < this.ids.length && (this.starts[i] as number) < (to[b] as number); i++) holders[fill[this.ids[i] as number]++] = name[b] as number;
    }
    const hot = new Uint8Array(n);
    const todo: number[] = [];
    // a name bound to a value that holds a sink is hot; the walk goes back from those names
    for (let b = 0; b < name.length; b++) {
      const h = name[b] as number;
      if (hot[h]) continue;
      for (let i = this.firstAt(from[b] as number); i < this.ids.length && (this.starts[i] as number) < (to[b] as number); i++) {
        if (!this.sinkAt[i]) continue;
        hot[h] = 1;
        todo.push(h);
        break;
      }
    }
    while (todo.length) {
      const w = todo.pop() as number;
      for (let e = count[w] as number; e < (count[w + 1] as number); e++) {
        const h = holders[e] as number;
        if (hot[h]) continue;
        hot[h] = 1;
        todo.push(h);
      }
    }
    return hot;
  }

  private firstAt(start: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.starts[mid] as number) < start) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Every binding of the module: the name's word number and the text range of the value bound to it. */
  private bindings(): { name: number[]; from: number[]; to: number[] } {
    const name: number[] = [];
    const from: number[] = [];
    const to: number[] = [];
    const bindWord = (id: number, value: PyNode): void => {
      name.push(id);
      from.push(value.start);
      to.push(value.end);
    };
    const bindWordsIn = (names: PyNode, value: PyNode): void => {
      for (let i = this.firstAt(names.start); i < this.ids.length && (this.starts[i] as number) < names.end; i++) bindWord(this.ids[i] as number, value);
    };
    const bind = (target: PyNode | null, value: PyNode | null): void => {
      if (target && value) this.bindTarget(target, value, bindWord, bindWordsIn);
    };
    for (const n of this.index.binders) {
      switch (n.type) {
        case 'assignment':
        case 'augmented_assignment':
          bind(field(n, 'left'), field(n, 'right'));
          bind(field(n, 'left'), field(n, 'type'));
          break;
        case 'named_expression':
          bind(field(n, 'name'), field(n, 'value'));
          break;
        case 'for_statement':
        case 'for_in_clause':
          bind(field(n, 'left'), field(n, 'right'));
          break;
        case 'default_parameter':
        case 'typed_default_parameter':
          bind(field(n, 'name'), field(n, 'value'));
          break;
        case 'as_pattern':
          bind(field(n, 'alias'), n.children.find((c) => c.named && c.field !== 'alias') ?? null);
          break;
        case 'import_statement':
        case 'import_from_statement':
        case 'future_import_statement':
          bindWordsIn(n, n);
          break;
        case 'function_definition':
        case 'class_definition': {
          const id = this.wordOf(field(n, 'name'));
          if (id !== undefined) bindWord(id, n.parent?.type === 'decorated_definition' ? n.parent : n);
          break;
        }
        case 'call': {
          // a method called on a name may keep what it is handed (`cmds.append(f)`, `d.update(…)`)
          const fn = field(n, 'function');
          const args = field(n, 'arguments');
          if (fn?.type === 'attribute' && args) bindWordsIn(field(fn, 'object') ?? fn, args);
          break;
        }
        case 'case_pattern': {
          // a capture in a case pattern binds part of the match's subject
          let m = n.parent;
          while (m && m.type !== 'match_statement') m = m.parent;
          const subject = m && field(m, 'subject');
          if (subject) bindWordsIn(n, subject);
          break;
        }
      }
    }
    return { name, from, to };
  }

  private wordOf(n: PyNode | null): number | undefined {
    return n ? this.idOf.get(ident(n.text)) : undefined;
  }

  /** The names a target binds: a name, an attribute's own name, a subscripted container's names. */
  private bindTarget(t: PyNode, value: PyNode, bindWord: (id: number, v: PyNode) => void, bindWordsIn: (names: PyNode, v: PyNode) => void): void {
    if (t.type === 'identifier' || t.type === 'attribute') {
      const id = this.wordOf(t.type === 'identifier' ? t : field(t, 'attribute'));
      if (id !== undefined) bindWord(id, value);
    } else if (t.type === 'subscript') bindWordsIn(field(t, 'value') ?? t, value);
    else for (const c of t.children) if (c.named) this.bindTarget(c, value, bindWord, bindWordsIn);
  }
}

const SINK_SET: ReadonlySet<string> = new Set(SINK_NAMES);

/**
 * Names bound only to modules: `json` in a module that imports json and uses the name nowhere but
 * as `json.<attribute>` and in its import. The interpreter reads such a name as the module the
 * resolver qualifies it to, so `json.loads` is a sink exactly when `<module>.loads` is one.
 */
class ModuleNames {
  private readonly only = new Map<string, string[] | null>();
  /** names used somewhere other than as `name.x` or in an import (made on first need, in one pass) */
  private other: Set<string> | null = null;

  constructor(private readonly index: ModuleIndex, private readonly r: Resolver) {}

  /** Whether this occurrence of a sink's last segment is an attribute of a name bound only to modules none of which has that sink. */
  notASink(n: PyNode, w: string): boolean {
    const obj = n.field === 'attribute' && n.parent?.type === 'attribute' ? n.parent.children.find((c) => c.field === 'object') : null;
    if (obj?.type !== 'identifier') return false;
    const quals = this.modulesOf(ident(obj.text));
    return !!quals && quals.every((q) => !SINK_SET.has(canonical(`${q}.${w}`)));
  }

  /** The modules a name is bound to, when it is bound only by imports and used only as `name.x`; else null. */
  private modulesOf(name: string): string[] | null {
    if (this.only.has(name)) return this.only.get(name) ?? null;
    let out: string[] | null = null;
    const bs = this.r.bindings.get(name) ?? [];
    if (bs.length && bs.every((b) => b.kind === 'module')) {
      if (!this.other) {
        const other = new Set<string>();
        this.index.idents.forEach((x, i) => {
          if (!(x.field === 'object' && x.parent?.type === 'attribute') && !inImport(x)) other.add(this.index.words[i] as string);
        });
        this.other = other;
      }
      if (!this.other.has(name)) out = bs.map((b) => (b.kind === 'module' ? b.qual : ''));
    }
    this.only.set(name, out);
    return out;
  }
}

const NAMED_BY = new Set(['function_definition', 'class_definition', 'keyword_argument', 'default_parameter', 'typed_default_parameter']);
const PARAMETER_LISTS = new Set(['parameters', 'lambda_parameters', 'typed_parameter']);

/**
 * A name where it is only bound, not read: a function's or class's own name, a parameter, a keyword
 * argument's name. A sink's last segment there names no sink (`def load(text)`); where the name is
 * read, that occurrence counts on its own.
 */
function bindsOnly(n: PyNode): boolean {
  const p = n.parent;
  if (!p) return false;
  return (n.field === 'name' && NAMED_BY.has(p.type)) || PARAMETER_LISTS.has(p.type);
}

/** An identifier in an import statement (a module path, an imported name, an alias). */
function inImport(n: PyNode): boolean {
  for (let x = n.parent; x; x = x.parent) {
    if (x.type === 'import_statement' || x.type === 'import_from_statement' || x.type === 'future_import_statement') return true;
    if (x.type !== 'dotted_name' && x.type !== 'aliased_import') return false;
  }
  return false;
}
