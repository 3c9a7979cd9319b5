import { type PyNode, field, namedChildren } from './parser.js';
import { typeSet } from './pynode.js';
import { MAX_FOLD, intValue } from './literals.js';
import { positionalArgs } from './args.js';
import { foldCall, foldLiteral } from './fold.js';
import { ImportShadow } from './shadow.js';
import { QualMemo } from '../qual-memo.js';
import { canonical, ident } from './names.js';

export { canonical, ident };

/**
 * Name resolution and constant folding over one module. Deliberately scope-insensitive and
 * over-approximating: every binding of a name anywhere in the file is a possible value of that name
 * everywhere, so an alias defined in one function cannot hide a call in another. A name therefore
 * resolves to a *set* of qualified names (`sp.run` → {`subprocess.run`}).
 */

type Binding = { kind: 'module'; qual: string } | { kind: 'expr'; node: PyNode } | { kind: 'opaque' };

/** Builtins whose bare name always keeps its builtin meaning, even when a binding shadows it somewhere. */
export const RISKY_BUILTINS = new Set(['eval', 'exec', 'compile', '__import__', 'getattr', 'setattr', 'delattr', 'globals', 'locals', 'vars', 'open', 'breakpoint', 'input']);

/** every type the switch of Resolver.collect has a case for: other nodes skip it with one table read */
const COLLECTED = typeSet(['import_statement', 'import_from_statement', 'assignment', 'named_expression', 'default_parameter', 'typed_default_parameter', 'augmented_assignment', 'function_definition', 'class_definition', 'for_statement', 'for_in_clause', 'as_pattern', 'as_pattern_target', 'parameters', 'lambda_parameters']);

const MAX_QUALS = 24;
const MAX_DEPTH = 48;

export const NAMESPACE = '<namespace>';

/** Functions that import a module and return the object a dotted name (`'os.system'`, `'os:system'`) names. */
export const NAME_RESOLVERS = new Set([
  'pydoc.locate', 'pkgutil.resolve_name', 'logging.config._resolve',
  // a logging configurator's resolve('os.system') imports and returns what a "()" entry names
  ...['BaseConfigurator', 'DictConfigurator', 'dictConfigClass'].flatMap((c) => [`logging.config.${c}().resolve`, `logging.config.${c}().ext_convert`]),
]);

/** Resolution steps allowed per module; hostile input past it fails closed instead of running long. */
const STEP_BUDGET = 2_000_000;

export class AnalysisLimitError extends Error {
  constructor() {
    super('analysis step budget exceeded');
  }
}

export class Resolver {
  readonly bindings = new Map<string, Binding[]>();
  readonly starModules: string[] = [];
  /** module names imported anywhere (by `import` or `from … import`), canonical */
  readonly importedModules = new Set<string>();
  /** names bound by a `def` somewhere in the module */
  private readonly defNames = new Set<string>();
  private readonly quals = new QualMemo(canonical, MAX_QUALS);
  private readonly foldMemo = new Map<PyNode, string | null>();
  private readonly inProgress = new Set<PyNode>();
  private steps = 0;
  /** built on first need, a risky builtin bound only by imports: a pass over every node otherwise */
  private shadow: ImportShadow | undefined;

  /** `nodes`: the module's nodes in document order (PyParse.nodes) */
  constructor(private readonly nodes: readonly PyNode[]) {
    this.collect(nodes);
  }

  private bind(name: string, b: Binding): void {
    const key = ident(name);
    const list = this.bindings.get(key);
    if (list) list.push(b);
    else this.bindings.set(key, [b]);
  }

  private bindTarget(target: PyNode, value: PyNode | null): void {
    if (target.type === 'identifier') {
      this.bind(target.text, value ? { kind: 'expr', node: value } : { kind: 'opaque' });
      return;
    }
    if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list'].includes(target.type)) {
      const targets = namedChildren(target);
      const values = value && ['expression_list', 'tuple', 'list'].includes(value.type) ? namedChildren(value) : null;
      targets.forEach((t, i) => this.bindTarget(t, values && values.length === targets.length ? values[i] : null));
    }
  }

  /** A binding made in a class body is also the class's attribute (`class K: import os` then `K.os.system(c)`). */
  private bindImport(n: PyNode, local: string, qual: string): void {
    this.bind(local, { kind: 'module', qual });
    if (n.parent?.type === 'block' && n.parent.parent?.type === 'class_definition') this.bind(`.${local}`, { kind: 'module', qual });
  }

  private collect(nodes: readonly PyNode[]): void {
    for (const n of nodes) {
      if (!COLLECTED[n.kind]) continue;
      switch (n.type) {
        case 'import_statement':
          for (const c of n.children.filter((x) => x.field === 'name')) {
            if (c.type === 'aliased_import') {
              const mod = canonical((field(c, 'name') as PyNode).text.replace(/\s+/g, ''));
              this.importedModules.add(mod);
              this.bindImport(n, (field(c, 'alias') as PyNode).text, mod);
            } else {
              const dotted = canonical(c.text.replace(/\s+/g, ''));
              this.importedModules.add(dotted);
              const top = dotted.split('.')[0];
              this.bindImport(n, top, top);
            }
          }
          break;
        case 'import_from_statement': {
          const modNode = field(n, 'module_name');
          const mod = modNode && modNode.type === 'dotted_name' ? canonical(modNode.text.replace(/\s+/g, '')) : '<relative>';
          this.importedModules.add(mod);
          if (n.children.some((c) => c.type === 'wildcard_import')) this.starModules.push(mod);
          for (const c of n.children.filter((x) => x.field === 'name')) {
            const nameNode = c.type === 'aliased_import' ? (field(c, 'name') as PyNode) : c;
            const local = c.type === 'aliased_import' ? (field(c, 'alias') as PyNode).text : nameNode.text;
            const qual = canonical(`${mod}.${ident(nameNode.text.replace(/\s+/g, ''))}`);
            this.importedModules.add(qual);
            this.bindImport(n, local, qual);
          }
          break;
        }
        case 'assignment': {
          let right = field(n, 'right');
          while (right && right.type === 'assignment') right = field(right, 'right');
          const left = field(n, 'left');
          if (left) this.bindTarget(left, right);
          // `self.sh = os.system`, `C.m = os`, and `m = os` in a class body make `<any>.sh` / `<any>.m`
          // an alias too: attribute chains through assignments (scope-insensitive, like names)
          if (left && right && left.type === 'attribute') {
            const attr = field(left, 'attribute');
            if (attr) this.bind(`.${attr.text}`, { kind: 'expr', node: right });
          } else if (left && right && left.type === 'identifier' && n.parent?.type === 'expression_statement' && n.parent.parent?.type === 'block' && n.parent.parent.parent?.type === 'class_definition') {
            this.bind(`.${left.text}`, { kind: 'expr', node: right });
          }
          break;
        }
        case 'named_expression': {
          const name = field(n, 'name');
          if (name) this.bind(name.text, { kind: 'expr', node: field(n, 'value') as PyNode });
          break;
        }
        case 'default_parameter':
        case 'typed_default_parameter': {
          const name = field(n, 'name');
          const value = field(n, 'value');
          if (name) this.bind(name.text, value ? { kind: 'expr', node: value } : { kind: 'opaque' });
          break;
        }
        case 'augmented_assignment': {
          const left = field(n, 'left');
          if (left) this.bindTarget(left, null);
          break;
        }
        case 'function_definition':
        case 'class_definition': {
          const name = field(n, 'name');
          if (name) this.bind(name.text, { kind: 'opaque' });
          if (name && n.type === 'function_definition') this.defNames.add(ident(name.text));
          break;
        }
        case 'for_statement':
        case 'for_in_clause': {
          const left = field(n, 'left');
          if (left) this.bindTarget(left, null);
          break;
        }
        case 'as_pattern': {
          // `with Connection(h) as c`: __enter__ mostly returns the manager itself; the name stays opaque too
          const target = field(n, 'alias');
          const value = namedChildren(n)[0];
          const name = target ? namedChildren(target) : [];
          if (n.parent?.type === 'with_item' && value && value !== target && name.length === 1 && name[0].type === 'identifier') this.bind(name[0].text, { kind: 'expr', node: value });
          break;
        }
        case 'as_pattern_target':
        case 'parameters':
        case 'lambda_parameters':
          for (const c of namedChildren(n)) if (c.type === 'identifier') this.bind(c.text, { kind: 'opaque' });
          break;
      }
    }
  }

  /**
   * Possible qualified names of an expression (empty when nothing is known). The array may be the
   * resolver's memo of a name: callers read it and never change it.
   */
  qualify(node: PyNode, depth = 0): string[] {
    this.tick();
    if (depth > MAX_DEPTH) return [];
    // a name's memoised set is already canonical, capped and free of duplicates
    if (node.type === 'identifier') return this.nameQuals(ident(node.text), depth);
    const { out, add } = this.quals.collector();
    switch (node.type) {
      case 'attribute': {
        const attr = field(node, 'attribute');
        const obj = field(node, 'object');
        if (!attr || !obj) break;
        for (const q of this.qualify(obj, depth + 1)) add(`${q}.${ident(attr.text)}`);
        if (ident(attr.text) === '__class__' && this.isFunctionValue(obj)) add('types.FunctionType');
        if (this.bindings.has(`.${ident(attr.text)}`)) for (const q of this.nameQuals(`.${ident(attr.text)}`, depth)) add(q);
        break;
      }
      case 'call':
        for (const q of this.qualifyCall(node, depth)) add(q);
        break;
      case 'subscript': {
        const value = field(node, 'value') as PyNode;
        const key = field(node, 'subscript');
        const keyStr = key ? this.fold(key, depth + 1) : null;
        if (['list', 'tuple'].includes(value.type)) {
          for (const el of namedChildren(value)) for (const q of this.qualify(el, depth + 1)) add(q);
          break;
        }
        if (value.type === 'dictionary') {
          for (const pair of namedChildren(value)) {
            const v = field(pair, 'value');
            if (v) for (const q of this.qualify(v, depth + 1)) add(q);
          }
          break;
        }
        // `d = {'s': os}; d['s'].system(c)`: a container literal bound to a name holds its elements
        if (value.type === 'identifier') {
          for (const b of this.bindings.get(ident(value.text)) ?? []) {
            if (b.kind === 'expr' && ['list', 'tuple', 'dictionary', 'set'].includes(b.node.type)) {
              for (const el of namedChildren(b.node)) {
                const v = el.type === 'pair' ? field(el, 'value') : el;
                if (v) for (const q of this.qualify(v, depth + 1)) add(q);
              }
            }
          }
        }
        for (const q of this.qualify(value, depth + 1)) {
          if (keyStr !== null && (q === NAMESPACE || q === 'builtins' || q === 'builtins.__dict__')) add(keyStr);
          else if (keyStr !== null && q.endsWith('.__dict__')) add(`${q.slice(0, -9)}.${keyStr}`);
          else if (keyStr !== null && q === 'sys.modules') add(keyStr);
          else add(`${q}[]`);
          // the computed key may be '__builtins__': builtins itself in __main__, its dict elsewhere
          if (keyStr === null && q === NAMESPACE) add('builtins');
        }
        break;
      }
      case 'parenthesized_expression':
      case 'named_expression':
      case 'await': {
        const inner = node.type === 'named_expression' ? field(node, 'value') : namedChildren(node)[0];
        if (inner) for (const q of this.qualify(inner, depth + 1)) add(q);
        break;
      }
      case 'conditional_expression':
      case 'boolean_operator': {
        const parts = namedChildren(node);
        const options = node.type === 'conditional_expression' ? [parts[0], parts[2]] : parts;
        for (const p of options) if (p) for (const q of this.qualify(p, depth + 1)) add(q);
        break;
      }
    }
    return [...out];
  }

  /** Every binding of the name is a `def` or a lambda: the value is a plain Python function. */
  isFunctionName(name: string): boolean {
    const key = ident(name);
    const list = this.bindings.get(key) ?? [];
    return list.length > 0 && list.every((b) => (b.kind === 'opaque' && this.defNames.has(key)) || (b.kind === 'expr' && b.node.type === 'lambda'));
  }

  /** A lambda or a name bound only to functions: its type is types.FunctionType. */
  private isFunctionValue(node: PyNode | undefined): boolean {
    if (!node) return false;
    if (node.type === 'parenthesized_expression') return this.isFunctionValue(namedChildren(node)[0]);
    return node.type === 'lambda' || (node.type === 'identifier' && this.isFunctionName(node.text));
  }

  private qualifyCall(node: PyNode, depth: number): string[] {
    const fn = field(node, 'function') as PyNode;
    const args = positionalArgs(node);
    const out: string[] = [];
    for (const f of this.qualify(fn, depth + 1)) {
      if (f === '__import__' || f === 'importlib.import_module' || f === 'importlib.__import__') {
        const mod = args[0] ? this.fold(args[0], depth + 1) : null;
        if (mod !== null) out.push(f === 'importlib.import_module' ? mod : mod.split('.')[0]);
        out.push(`${f}()`);
      } else if (NAME_RESOLVERS.has(f) || f === 'sys.modules.get' || f === 'sys.modules.pop') {
        // pydoc.locate('os.system') and pkgutil.resolve_name('os:system') import and return the named object
        const name = args[0] ? this.fold(args[0], depth + 1) : null;
        if (name !== null) out.push(canonical(name.replace(':', '.')));
        out.push(`${f}()`);
      } else if (f === 'getattr') {
        const name = args[1] ? this.fold(args[1], depth + 1) : null;
        const targets = args[0] ? this.qualify(args[0], depth + 1) : [];
        for (const t of targets) out.push(name !== null ? `${t}.${ident(name)}` : `${t}.<dynamic>`);
        out.push('getattr()');
      } else if (f === 'type' && args.length === 1 && this.isFunctionValue(args[0])) {
        // type(lambda: 0) is types.FunctionType: called with a code object it builds a runnable function
        out.push('types.FunctionType', 'type()');
      } else if (f === 'globals' || f === 'locals' || f === 'vars') {
        if (args.length && f === 'vars') for (const q of this.qualify(args[0], depth + 1)) out.push(`${q}.__dict__`);
        else out.push(NAMESPACE);
      } else if (f === `${NAMESPACE}.get` || f.endsWith('.__dict__.get') || f === 'builtins.get') {
        // globals().get('eval'), vars(os).get('system')
        const key = args[0] ? this.fold(args[0], depth + 1) : null;
        const base = f.slice(0, -4);
        if (key !== null) out.push(base === NAMESPACE || base === 'builtins.__dict__' || base === 'builtins' ? key : `${base.slice(0, -9)}.${key}`);
        else if (base === NAMESPACE) out.push('builtins');
        out.push(`${f}()`);
      } else {
        out.push(`${f}()`);
      }
    }
    return out;
  }

  /**
   * Qualified names a name can hold, memoised per name: without the memo, names bound in terms of
   * each other (`x = x.a; x = x.b; …`) make resolution quadratic or worse. On a cycle the name's
   * partial set so far is used (`m = importlib; m = m.import_module('os')` gives {importlib, os}).
   */
  private nameQuals(name: string, depth: number): string[] {
    return this.quals.resolve(name, (add) => {
      const list = this.bindings.get(name);
      // a risky builtin keeps its builtin meaning unless every binding is a trusted import (shadow.ts)
      const shadowedByImport = !!list && list.every((b) => b.kind === 'module') && RISKY_BUILTINS.has(name) && (this.shadow ??= new ImportShadow(this.nodes)).holds(name);
      if (!list || (RISKY_BUILTINS.has(name) && !shadowedByImport) || list.some((b) => b.kind === 'opaque')) add(name);
      if (!list) for (const m of this.starModules) add(`${m}.${name}`);
      for (const b of list ?? []) {
        if (b.kind === 'module') add(b.qual);
        else if (b.kind === 'expr') for (const q of this.qualify(b.node, depth + 1)) add(q);
      }
    });
  }

  private bindingFold(node: PyNode, depth: number): string | null {
    if (this.foldMemo.has(node)) return this.foldMemo.get(node) as string | null;
    if (this.inProgress.has(node)) return null;
    this.inProgress.add(node);
    const result = this.fold(node, depth + 1);
    this.inProgress.delete(node);
    this.foldMemo.set(node, result);
    return result;
  }

  private tick(): void {
    if (++this.steps > STEP_BUDGET) throw new AnalysisLimitError();
  }

  /** Exact string value of an expression when it is a compile-time constant; null otherwise. */
  fold(node: PyNode, depth = 0): string | null {
    this.tick();
    if (depth > MAX_DEPTH) return null;
    const v = this.foldInner(node, depth);
    return v !== null && v.length <= MAX_FOLD ? v : null;
  }

  private foldInner(node: PyNode, depth: number): string | null {
    switch (node.type) {
      case 'identifier': {
        const list = this.bindings.get(ident(node.text));
        if (!list || list.some((b) => b.kind !== 'expr')) return null;
        let value: string | null = null;
        for (const b of list) {
          const v = b.kind === 'expr' ? this.bindingFold(b.node, depth) : null;
          if (v === null || (value !== null && v !== value)) return null;
          value = v;
        }
        return value;
      }
      case 'call':
        return foldCall(this, node, depth);
    }
    return foldLiteral(this, node, depth);
  }
}

export { intValue };
export { positionalArgs, keywordArg, hasSplat } from './args.js';
