import { type PyNode, field } from '../parser.js';
import { ident } from '../literals.js';
import { moduleAlias } from '../names.js';
import { routeDef } from './routes.js';
import type { ModuleIndex } from './module-index.js';
import type { Resolver } from '../resolve.js';
import { BY_LAST, METHOD_SINKS, NAMED_RECEIVERS, WRITES_BY_NAME, readsByName, writesByName } from './sink-words.js';
import { ModuleNames, bindsOnly } from './module-names.js';

export { SINK_NAMES, isAscii, mayNameSink } from './sink-words.js';

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
 * Identifiers are NFKC-normalised as CPython reads them. With PROOFGATE_FLOW_FILTER_CHECK=1 (the
 * test suite) every analysis is also made without the filters and a difference throws;
 * test/engines/code/python-flow-prefilter.test.ts holds modules written to slip past them.
 */

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
/**
 * What a word may name, by kind: ANYWHERE, a sink wherever it is written (a sink method, a receiver,
 * reflection that reads by name); BUILTIN, a builtin sink by its own name (`eval`), unless it is an
 * attribute; LAST_SEGMENT, the last segment of a sink whose module the text writes (`os.system`),
 * unless it only binds or is provably another module's attribute. A word may be both of the last two
 * (`compile` is a builtin and `builtins.compile`'s last segment).
 */
const ANYWHERE = 1;
const LAST_SEGMENT = 2;
const BUILTIN = 4;

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
    const aliased = new Set<string>();
    for (const w of words) {
      const m = moduleAlias(w);
      if (m !== undefined) aliased.add(m);
    }
    const written = (m: string): boolean => this.idOf.has(m) || aliased.has(m);
    const kind = new Uint8Array(words.length);
    words.forEach((w, id) => {
      const firsts = BY_LAST.get(w);
      if (METHOD_SINKS.has(w) || NAMED_RECEIVERS.test(w) || readsByName(w)) kind[id] = ANYWHERE;
      else if (firsts) kind[id] = (firsts.includes(w) ? BUILTIN : 0) | (firsts.some((f) => f !== w && written(f)) ? LAST_SEGMENT : 0);
    });
    this.sinkAt = new Uint8Array(this.ids.length);
    const modules = r && !r.starModules.length ? new ModuleNames(index, r) : null;
    let any = false;
    this.ids.forEach((id, i) => {
      const k = kind[id] as number;
      if (!k) return;
      const n = index.idents[i] as PyNode;
      const named =
        k === ANYWHERE ||
        // `re.compile`, `model.eval()`: an attribute of something is not the builtin of that name
        (k & BUILTIN && !(n.field === 'attribute' && n.parent?.type === 'attribute')) ||
        (k & LAST_SEGMENT && !bindsOnly(n) && !modules?.notASink(n, words[id] as string));
      if (!named) return;
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
