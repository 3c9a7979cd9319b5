import type { PyNode } from '../parser.js';
import { typeId } from '../pynode.js';
import { getFact, setFact } from './facts.js';
import { ident } from '../literals.js';

/** What one function may change in its caller's scope, and the names it declares global or nonlocal (see writes.ts). */
export interface OuterWrites {
  writes: readonly string[];
  declared: ReadonlySet<string>;
}

const IDENT = 1;
const DEF = 2;
const CLASS = 4;
const CALL = 8;
const STRING = 16;
const BINDER = 32;
const GATHER = 64;
/** what each node type is to the passes: one lookup per node */
const KIND = new Map<string, number>([
  ['identifier', IDENT], ['function_definition', DEF | BINDER], ['lambda', DEF], ['class_definition', CLASS | BINDER], ['call', CALL | BINDER | GATHER], ['string', STRING],
  ['assignment', BINDER | GATHER], ['augmented_assignment', BINDER | GATHER], ['for_statement', BINDER | GATHER], ['named_expression', BINDER], ['for_in_clause', BINDER],
  ['default_parameter', BINDER], ['typed_default_parameter', BINDER], ['as_pattern', BINDER], ['import_statement', BINDER], ['import_from_statement', BINDER],
  ['future_import_statement', BINDER], ['case_pattern', BINDER], ['global_statement', GATHER], ['nonlocal_statement', GATHER], ['delete_statement', GATHER],
]);
/** KIND by PyNode.kind: one array read per node */
const KIND_BY_ID = (() => {
  const ids = [...KIND.keys()].map(typeId);
  const table = new Uint8Array(Math.max(...ids) + 1);
  for (const [type, k] of KIND) table[typeId(type)] = k;
  return table;
})();

/**
 * The nodes of one module the flow analysis's syntactic passes read, sorted out in one pass over the
 * parse's node list: each pass (prefilter.ts, writes.ts, index.ts) then goes over its own short list
 * instead of every node of the module again.
 */
export class ModuleIndex {
  /** identifier nodes in text order, their text, and their text NFKC-normalised as CPython reads names */
  readonly idents: PyNode[] = [];
  readonly raw: string[] = [];
  readonly words: string[];
  /** functions and lambdas, in document order */
  readonly defs: PyNode[] = [];
  readonly classes: PyNode[] = [];
  readonly calls: PyNode[] = [];
  /** nodes of a form that binds a name (prefilter.ts) */
  readonly binders: PyNode[] = [];
  /** statements and calls outerWrites reads (writes.ts) */
  readonly gathers: PyNode[] = [];
  /** strings that are items of an assigned value (`__all__ = [...]`) */
  readonly assignedStrings: PyNode[] = [];
  /** each function's outer writes (writes.ts), made on first need */
  outer: Map<PyNode, OuterWrites> | null = null;

  /** `ascii`: whether the text is all ASCII (its own NFKC form), when the caller knows */
  constructor(readonly nodes: readonly PyNode[], ascii?: boolean) {
    for (const n of nodes) {
      const k = KIND_BY_ID[n.kind];
      if (!k) continue;
      if (k === IDENT) {
        this.idents.push(n);
        this.raw.push(n.text);
        continue;
      }
      if (k & DEF) this.defs.push(n);
      else if (k & CLASS) this.classes.push(n);
      if (k & CALL) this.calls.push(n);
      if (k & STRING && n.parent?.parent?.type === 'assignment') this.assignedStrings.push(n);
      if (k & BINDER) this.binders.push(n);
      if (k & GATHER) this.gathers.push(n);
    }
    // ASCII text is its own NFKC form: only a module with other characters is normalised name by name
    this.words = (ascii ?? !/[^\x00-\x7f]/.test(nodes[0]?.text ?? '')) ? this.raw : this.raw.map(ident);
  }

  /** The index of the module `n` belongs to: kept on its root, made from a walk of the tree the first time. */
  static of(n: PyNode): ModuleIndex {
    let root = n;
    while (root.parent) root = root.parent;
    const kept = getFact<ModuleIndex>(root, 'index');
    if (kept) return kept;
    const nodes: PyNode[] = [];
    const walk = (x: PyNode): void => {
      nodes.push(x);
      for (const c of x.children) walk(c);
    };
    walk(root);
    return setFact(root, 'index', new ModuleIndex(nodes));
  }

  /** Keeps this index on the module's root (the list given is the parse's, root first). */
  keep(): this {
    const root = this.nodes[0];
    if (root) setFact(root, 'index', this);
    return this;
  }
}
