import type { PyNode } from './pynode.js';
import { ident } from './literals.js';

/**
 * When an import may be trusted to replace a risky builtin's meaning (`from re import compile` then
 * `compile(p)` is re.compile). Python looks a bare name up in the module's globals, then in builtins,
 * at the moment of the call, so the builtin comes back whenever the import's binding is not there:
 * an import inside `if False:`/`try:` that did not run, inside a def or class (a local, not a global),
 * after `del exec`, after a deletion through globals()/vars()/locals()/__dict__, or before the import
 * statement has run. Only an import that is a statement of the module itself, with no such deletion
 * and no use of the name before it, is trusted; in every other case the name keeps its builtin meaning.
 */
export class ImportShadow {
  /** name → offset where its trusted module-level import ends; absent: not trusted */
  private readonly trusted = new Map<string, number>();

  constructor(nodes: readonly PyNode[]) {
    const untrusted = new Set<string>();
    const firstUse = new Map<string, number>();
    let namespaceTouched = false;
    for (const n of nodes) {
      if (n.type === 'import_statement' || n.type === 'import_from_statement') {
        const top = n.parent?.type === 'module';
        for (const name of importedNames(n)) {
          if (!top) untrusted.add(name);
          else if (!this.trusted.has(name)) this.trusted.set(name, n.end);
        }
      } else if (n.type === 'delete_statement') {
        for (const c of n.children) if (c.type === 'identifier') untrusted.add(ident(c.text));
        for (const c of n.children) if (c.type === 'expression_list') for (const d of c.children) if (d.type === 'identifier') untrusted.add(ident(d.text));
      } else if (n.type === 'identifier') {
        const name = ident(n.text);
        if (name === 'globals' || name === 'vars' || name === 'locals' || name === '__dict__') namespaceTouched = true;
        else if (!firstUse.has(name) && !insideImport(n)) firstUse.set(name, n.start);
      }
    }
    for (const [name, end] of this.trusted) {
      const use = firstUse.get(name);
      if (namespaceTouched || untrusted.has(name) || (use !== undefined && use < end)) this.trusted.delete(name);
    }
  }

  /** whether `name`'s import bindings may be taken to hide its builtin meaning everywhere */
  holds(name: string): boolean {
    return this.trusted.has(name);
  }
}

function importedNames(n: PyNode): string[] {
  const out: string[] = [];
  for (const c of n.children) {
    if (c.field !== 'name') continue;
    if (c.type === 'aliased_import') {
      const alias = c.children.find((x) => x.field === 'alias');
      if (alias) out.push(ident(alias.text));
    } else {
      out.push(ident(c.text.replace(/\s+/g, '').split('.')[0]));
    }
  }
  return out;
}

function insideImport(n: PyNode): boolean {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'import_statement' || p.type === 'import_from_statement') return true;
  return false;
}
