import type { JsNode } from './parser.js';
import { functionsOf, returnsGlobalThis, thisMayBeGlobal } from './this-scope.js';
import { QualMemo } from '../qual-memo.js';
import { foldCall, propName } from './fold.js';

/**
 * Scope-insensitive name resolution for JavaScript, on the same principle as the Python side:
 * every binding of a name is a possible value everywhere (`const cp = require('child_process')`,
 * `const { exec: run } = cp`, `import * as vm from 'node:vm'`).
 */
type Binding = { kind: 'module'; qual: string } | { kind: 'expr'; node: JsNode } | { kind: 'opaque' };

/** `obj.key` as a tree node, for a destructuring binding (`const { key: x } = obj` binds x to it). */
function memberOf(obj: JsNode, key: string): JsNode {
  const at = { start: obj.start, end: obj.end, loc: obj.loc };
  return { type: 'MemberExpression', object: obj, property: { type: 'Identifier', name: key, ...at }, computed: false, optional: false, ...at };
}

/**
 * Node's Module class, by the names a program can reach it: the `module` builtin, and the
 * constructor of any Module instance (this file's `module`, `process.mainModule`, `require.main`,
 * `module.parent`).
 */
const MODULE_CLASS = String.raw`(?:module(?:\.constructor|\.Module)?|(?:process\.mainModule|require\.main|module\.parent)\.constructor)`;
/** Module._load loads a module as require() does. */
const MODULE_LOAD = new RegExp(String.raw`^${MODULE_CLASS}\._load$`);
/** module.createRequire(path) returns a require function. */
const REQUIRE_FACTORY = new RegExp(String.raw`^${MODULE_CLASS}\.(createRequire|createRequireFromPath)$`);
/** A Module's _compile(source, filename) runs source as that module's code. */
export const MODULE_COMPILE = new RegExp(String.raw`^${MODULE_CLASS}(\(\)|\.prototype)\._compile(\.call|\.apply)?$`);
/** Globals whose bare name keeps its meaning even where a binding shadows it somewhere in the file. */
const RISKY_GLOBALS = new Set(['eval', 'Function', 'setTimeout', 'setInterval', 'setImmediate', 'execScript', 'require', 'process', 'globalThis', 'window', 'global', 'self', 'document']);
const GLOBAL_OBJECTS = ['globalThis', 'window', 'global', 'self', 'frames', 'top', 'parent'];
/** A qualified name marking a property descriptor (`.value` of it is the property). */
const DESCRIPTOR = '<descriptor>:';
/** An argument the program passes but the tree does not show (`f.apply(t, args)`): never a constant. */
const UNKNOWN: JsNode = { type: 'Unknown', start: 0, end: 0 };

export const isRequire = (f: string): boolean => f === 'require' || f.endsWith('.require');

const MAX_QUALS = 24;
const MAX_DEPTH = 48;
const STEP_BUDGET = 2_000_000;

export class JsLimitError extends Error {
  constructor() {
    super('analysis step budget exceeded');
  }
}

export function canonical(q: string): string {
  let out = q.startsWith('node:') ? q.slice(5) : q;
  for (const g of GLOBAL_OBJECTS) {
    if (out.startsWith(g + '.') && out.length > g.length + 1) {
      out = out.slice(g.length + 1);
      break;
    }
  }
  return out;
}


export class JsResolver {
  readonly bindings = new Map<string, Binding[]>();
  private readonly quals = new QualMemo(canonical, MAX_QUALS);
  private readonly inProgress = new Set<JsNode>();
  private readonly foldMemo = new Map<JsNode, string | null>();
  private steps = 0;

  constructor(nodes: JsNode[]) {
    for (const n of nodes) this.collect(n);
  }

  private bind(name: string, b: Binding): void {
    const list = this.bindings.get(name);
    if (list) list.push(b);
    else this.bindings.set(name, [b]);
  }

  /** names declared by `function f() {}` somewhere in the file, and the declarations */
  private readonly functionNames = new Set<string>();
  private readonly declarations = new Map<string, JsNode[]>();

  /**
   * A function value, whose `.constructor` is Function, AsyncFunction or GeneratorFunction — each
   * compiles source text: a function or arrow expression, a name bound only to functions, or
   * Object/Reflect.getPrototypeOf of one (the prototype's constructor is the same).
   */
  private isFunctionValue(node: JsNode | undefined, depth: number): boolean {
    if (!node || depth > MAX_DEPTH) return false;
    if (node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression') return true;
    if (node.type === 'ParenthesizedExpression') return this.isFunctionValue(node.expression as JsNode, depth + 1);
    if (node.type === 'Identifier') {
      const name = node.name as string;
      const list = this.bindings.get(name) ?? [];
      return list.length > 0 && list.every((b) => (b.kind === 'opaque' && this.functionNames.has(name)) || (b.kind === 'expr' && (b.node.type === 'FunctionExpression' || b.node.type === 'ArrowFunctionExpression')));
    }
    if (node.type === 'CallExpression') {
      const callee = node.callee as JsNode;
      const getProto = callee.type === 'MemberExpression' && propName(callee, (x) => this.fold(x)) === 'getPrototypeOf' &&
        (callee.object as JsNode).type === 'Identifier' && ['Object', 'Reflect'].includes((callee.object as JsNode).name as string);
      return getProto && this.isFunctionValue((node.arguments as JsNode[])[0], depth + 1);
    }
    return false;
  }

  private bindPattern(pattern: JsNode | null | undefined, init: JsNode | null): void {
    if (!pattern) return;
    if (pattern.type === 'Identifier') this.bind(pattern.name as string, init ? { kind: 'expr', node: init } : { kind: 'opaque' });
    else if (pattern.type === 'AssignmentPattern') {
      this.bindPattern(pattern.left as JsNode, (pattern.right as JsNode) ?? null);
      this.bindPattern(pattern.left as JsNode, init);
    } else if (pattern.type === 'ObjectPattern') {
      for (const p of pattern.properties as JsNode[]) {
        if (p.type === 'RestElement') this.bindPattern(p.argument as JsNode, null);
        else {
          const key = !p.computed && (p.key as JsNode).type === 'Identifier' ? ((p.key as JsNode).name as string) : this.fold(p.key as JsNode);
          // `{ exec: e } = cp` binds e to cp.exec; nested, `{ a: { b: F } } = o` binds F to o.a.b
          this.bindPattern(p.value as JsNode, init && key !== null ? memberOf(init, key) : null);
        }
      }
    } else if (pattern.type === 'ArrayPattern') {
      // `[e] = [cp.exec]`: positions of an array literal
      const items = init?.type === 'ArrayExpression' ? (init.elements as Array<JsNode | null>) : [];
      (pattern.elements as Array<JsNode | null>).forEach((el, i) => {
        const v = items[i];
        this.bindPattern(el, v && v.type !== 'SpreadElement' && !items.slice(0, i).some((x) => x?.type === 'SpreadElement') ? v : null);
      });
    } else if (pattern.type === 'RestElement') this.bindPattern(pattern.argument as JsNode, null);
  }

  private bindProperty(holder: JsNode, value: JsNode): void {
    const key = holder.type === 'MemberExpression' ? propName(holder, (x) => this.fold(x)) : !holder.computed && (holder.key as JsNode).type === 'Identifier' ? ((holder.key as JsNode).name as string) : this.fold(holder.key as JsNode);
    if (key !== null) this.bind(`.${key}`, { kind: 'expr', node: value });
  }

  private collect(n: JsNode): void {
    switch (n.type) {
      case 'VariableDeclarator':
        this.bindPattern(n.id as JsNode, (n.init as JsNode) ?? null);
        break;
      case 'AssignmentExpression':
        if (n.operator === '=') this.bindPattern(n.left as JsNode, n.right as JsNode);
        else this.bindPattern(n.left as JsNode, null);
        // `this.cp = require('child_process')`: any later `<x>.cp` may be that module (scope-insensitive)
        if (n.operator === '=' && (n.left as JsNode).type === 'MemberExpression') this.bindProperty(n.left as JsNode, n.right as JsNode);
        break;
      case 'ObjectExpression':
        // `{ cp: require('child_process') }` (not patterns: `const { exec: e } = cp` is handled above)
        for (const p of n.properties as JsNode[]) if (p.type === 'Property' && p.kind === 'init' && p.value) this.bindProperty(p, p.value as JsNode);
        break;
      case 'PropertyDefinition':
        // class fields `cp = require('child_process')`
        if (n.value) this.bindProperty(n, n.value as JsNode);
        break;
      case 'ImportDeclaration': {
        const mod = canonical(String((n.source as JsNode).value));
        for (const s of n.specifiers as JsNode[]) {
          const local = (s.local as JsNode).name as string;
          if (s.type === 'ImportSpecifier') {
            const imported = s.imported as JsNode;
            const name = imported.type === 'Identifier' ? (imported.name as string) : String(imported.value);
            this.bind(local, { kind: 'module', qual: name === 'default' ? mod : `${mod}.${name}` });
          } else this.bind(local, { kind: 'module', qual: mod });
        }
        break;
      }
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        if (n.id) this.bind((n.id as JsNode).name as string, { kind: 'opaque' });
        if (n.id && n.type === 'FunctionDeclaration') {
          this.functionNames.add((n.id as JsNode).name as string);
          this.declarations.set((n.id as JsNode).name as string, [...(this.declarations.get((n.id as JsNode).name as string) ?? []), n]);
        }
        for (const p of n.params as JsNode[]) this.bindPattern(p, null);
        break;
      case 'CallExpression': {
        // import('m').then((mod) => …): the callback's first parameter is the promised value
        const callee = n.callee as JsNode;
        const cb = (n.arguments as JsNode[])[0];
        if (callee.type === 'MemberExpression' && !callee.computed && (callee.property as JsNode).name === 'then' && cb && (cb.type === 'ArrowFunctionExpression' || cb.type === 'FunctionExpression')) {
          const first = (cb.params as JsNode[])[0];
          if (first && first.type === 'Identifier') this.bind(first.name as string, { kind: 'expr', node: callee.object as JsNode });
          // .then(({ exec }) => exec(cmd)): the destructured names are members of the promised module
          else if (first && first.type === 'ObjectPattern') this.bindPattern(first, callee.object as JsNode);
        }
        break;
      }
      case 'ClassDeclaration':
        if (n.id) this.bind((n.id as JsNode).name as string, { kind: 'opaque' });
        break;
      case 'CatchClause':
        this.bindPattern(n.param as JsNode, null);
        break;
    }
  }

  private tick(): void {
    if (++this.steps > STEP_BUDGET) throw new JsLimitError();
  }

  /** Memoised per name (see the Python resolver): on a cycle the partial set so far is used. */
  private nameQuals(name: string, depth: number): string[] {
    return this.quals.resolve(name, (add) => {
      const list = this.bindings.get(name);
      if (!list || RISKY_GLOBALS.has(name) || list.some((b) => b.kind === 'opaque')) add(name);
      for (const b of list ?? []) {
        if (b.kind === 'module') add(b.qual);
        else if (b.kind === 'expr') for (const q of this.qualify(b.node, depth + 1)) add(q);
      }
    });
  }

  qualify(node: JsNode, depth = 0): string[] {
    this.tick();
    if (depth > MAX_DEPTH) return [];
    const { out, add } = this.quals.collector();
    switch (node.type) {
      case 'Identifier':
        for (const q of this.nameQuals(node.name as string, depth)) add(q);
        break;
      case 'MemberExpression': {
        const prop = propName(node, (n) => this.fold(n, depth + 1));
        for (const q of this.qualify(node.object as JsNode, depth + 1)) {
          // Object.getOwnPropertyDescriptor(o, k).value is o[k]
          if (q.startsWith(DESCRIPTOR) && (prop === 'value' || prop === 'get')) add(q.slice(DESCRIPTOR.length));
          else add(`${q}.${prop ?? '<dynamic>'}`);
          // a namespace import's (or import()'s) `default` of a CommonJS module is the module itself
          if (prop === 'default') add(q);
        }
        // `const F = (() => {}).constructor; F(src)` is the Function constructor by another name, and
        // so is `x.constructor.constructor` for any x (a constructor is a function)
        if (prop === 'constructor' && this.isFunctionValue(node.object as JsNode, depth + 1)) add('Function');
        if (prop === 'constructor' && (node.object as JsNode).type === 'MemberExpression' && propName(node.object as JsNode, (n) => this.fold(n, depth + 1)) === 'constructor') add('Function');
        if (prop !== null && this.bindings.has(`.${prop}`)) for (const q of this.nameQuals(`.${prop}`, depth)) add(q);
        break;
      }
      case 'CallExpression':
      case 'NewExpression': {
        // (function () { return this })() is the global object in a sloppy script
        if (node.type === 'CallExpression' && functionsOf(this, node.callee as JsNode).some(returnsGlobalThis)) add('globalThis');
        for (const [f, args] of this.calls(node, depth)) {
          // require, module.require, process.mainModule.require, process.getBuiltinModule
          if (((isRequire(f) || f === 'process.getBuiltinModule') && node.type === 'CallExpression') || MODULE_LOAD.test(f)) {
            const mod = args[0] ? this.fold(args[0], depth + 1) : null;
            add(mod !== null ? mod : 'require()');
          } else if (REQUIRE_FACTORY.test(f)) {
            // module.createRequire(__filename) returns a require function
            add('require');
          } else if (f.endsWith('.bind') || f === 'util.promisify' || f === 'util.callbackify') {
            // f.bind(…) and promisify(f) return f under another name: calling it is calling f
            for (const q of f.endsWith('.bind') ? [f.slice(0, -5)] : args[0] ? this.qualify(args[0], depth + 1) : []) add(q);
            add(`${f}()`);
          } else if ((f === 'Reflect.get' || f === 'Object.getOwnPropertyDescriptor' || f === 'Reflect.getOwnPropertyDescriptor') && args[0]) {
            // Reflect.get(o, k) is o[k]
            const key = args[1] ? this.fold(args[1], depth + 1) : null;
            for (const q of this.qualify(args[0], depth + 1)) add(`${f === 'Reflect.get' ? '' : DESCRIPTOR}${q}.${key ?? '<dynamic>'}`);
          } else add(`${f}()`);
        }
        break;
      }
      case 'ImportExpression': {
        const mod = this.fold(node.source as JsNode, depth + 1);
        add(mod !== null ? mod : 'import()');
        break;
      }
      case 'ThisExpression':
        // a script's top level and a sloppy ordinary function see the global object (`this.eval(src)`)
        if (thisMayBeGlobal(node)) add('globalThis');
        break;
      case 'ChainExpression':
      case 'AwaitExpression':
      case 'ParenthesizedExpression':
        for (const q of this.qualify((node.expression ?? node.argument) as JsNode, depth + 1)) add(q);
        break;
      case 'SequenceExpression': {
        const exprs = node.expressions as JsNode[];
        for (const q of this.qualify(exprs[exprs.length - 1], depth + 1)) add(q);
        break;
      }
      case 'ConditionalExpression':
        for (const k of ['consequent', 'alternate']) for (const q of this.qualify(node[k] as JsNode, depth + 1)) add(q);
        break;
      case 'LogicalExpression':
      case 'AssignmentExpression':
        for (const k of node.type === 'AssignmentExpression' ? ['right'] : ['left', 'right']) {
          for (const q of this.qualify(node[k] as JsNode, depth + 1)) add(q);
        }
        break;
    }
    return [...out];
  }

  /** The function and arrow expressions and declarations a name is bound to. */
  functionValues(name: string): JsNode[] {
    const exprs = (this.bindings.get(name) ?? []).flatMap((b) => (b.kind === 'expr' && (b.node.type === 'FunctionExpression' || b.node.type === 'ArrowFunctionExpression') ? [b.node] : []));
    return [...exprs, ...(this.declarations.get(name) ?? [])];
  }

  /**
   * What a call expression calls, as (qualified callee, arguments) pairs: `f.call(t, a)`,
   * `f.apply(t, [a])` and `Reflect.apply(f, t, [a])` call `f` with `a` (an argument list that is not
   * an array literal is an unknown argument).
   */
  calls(node: JsNode, depth = 0): Array<[string, JsNode[]]> {
    const args = node.arguments as JsNode[];
    const out: Array<[string, JsNode[]]> = [];
    const listed = (a: JsNode | undefined): JsNode[] => (a && a.type === 'ArrayExpression' ? (a.elements as Array<JsNode | null>).map((e) => (e && e.type !== 'SpreadElement' ? e : UNKNOWN)) : [UNKNOWN]);
    for (const f of this.qualify(node.callee as JsNode, depth + 1)) {
      out.push([f, args]);
      if (node.type !== 'CallExpression') continue;
      if (f === 'Reflect.apply') for (const g of args[0] ? this.qualify(args[0], depth + 1) : []) out.push([g, listed(args[2])]);
      else if (f.endsWith('.call')) out.push([f.slice(0, -5), args.slice(1)]);
      else if (f.endsWith('.apply')) out.push([f.slice(0, -6), listed(args[1])]);
    }
    return out;
  }

  /** Exact string value when the expression is a compile-time constant string; null otherwise. */
  fold(node: JsNode, depth = 0): string | null {
    this.tick();
    if (depth > MAX_DEPTH) return null;
    const v = this.foldInner(node, depth);
    return v !== null && v.length <= 4096 ? v : null;
  }

  private foldInner(node: JsNode, depth: number): string | null {
    switch (node.type) {
      case 'Literal':
        return typeof node.value === 'string' ? node.value : null;
      case 'TemplateLiteral': {
        const quasis = node.quasis as JsNode[];
        const exprs = node.expressions as JsNode[];
        let s = '';
        for (let i = 0; i < quasis.length; i++) {
          const cooked = (quasis[i].value as { cooked: string | null }).cooked;
          if (cooked === null) return null;
          s += cooked;
          if (i < exprs.length) {
            const v = this.fold(exprs[i], depth + 1);
            if (v === null) return null;
            s += v;
          }
        }
        return s;
      }
      case 'BinaryExpression': {
        if (node.operator !== '+') return null;
        const a = this.fold(node.left as JsNode, depth + 1);
        const b = a === null ? null : this.fold(node.right as JsNode, depth + 1);
        return a !== null && b !== null ? a + b : null;
      }
      case 'Identifier': {
        const list = this.bindings.get(node.name as string);
        if (!list || list.some((b) => b.kind !== 'expr')) return null;
        let value: string | null = null;
        for (const b of list) {
          if (b.kind !== 'expr' || this.inProgress.has(b.node)) return null;
          let v = this.foldMemo.get(b.node);
          if (v === undefined) {
            // memoised: chains like a2 = a1 + a1, a3 = a2 + a2, … are otherwise exponential
            this.inProgress.add(b.node);
            v = this.fold(b.node, depth + 1);
            this.inProgress.delete(b.node);
            this.foldMemo.set(b.node, v);
          }
          if (v === null || (value !== null && v !== value)) return null;
          value = v;
        }
        return value;
      }
      case 'CallExpression':
        return foldCall(this, node, depth);
    }
    return null;
  }

}

export { propName };
