import type { PyNode } from '../parser.js';
import { getFact, setFact } from './facts.js';
import { ident } from '../literals.js';

const BINDERS = new Set([
  'assignment', 'augmented_assignment', 'named_expression', 'for_statement', 'for_in_clause', 'default_parameter', 'typed_default_parameter', 'as_pattern',
  'import_statement', 'import_from_statement', 'future_import_statement', 'function_definition', 'class_definition', 'call', 'case_pattern',
]);
const GATHERS = new Set(['global_statement', 'nonlocal_statement', 'assignment', 'augmented_assignment', 'for_statement', 'delete_statement', 'call']);

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

  constructor(readonly nodes: readonly PyNode[]) {
    for (const n of nodes) {
      const t = n.type;
      if (t === 'identifier') {
        this.idents.push(n);
        this.raw.push(n.text);
        continue;
      }
      if (t === 'function_definition' || t === 'lambda') this.defs.push(n);
      else if (t === 'class_definition') this.classes.push(n);
      else if (t === 'call') this.calls.push(n);
      else if (t === 'string' && n.parent?.parent?.type === 'assignment') this.assignedStrings.push(n);
      if (BINDERS.has(t)) this.binders.push(n);
      if (GATHERS.has(t)) this.gathers.push(n);
    }
    // ASCII text is its own NFKC form: only a module with other characters is normalised name by name
    this.words = /[^\x00-\x7f]/.test(nodes[0]?.text ?? '') ? this.raw.map(ident) : this.raw;
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
