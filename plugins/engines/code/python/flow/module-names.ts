import type { PyNode } from '../parser.js';
import { ident } from '../literals.js';
import { canonical } from '../names.js';
import type { Resolver } from '../resolve.js';
import type { ModuleIndex } from './module-index.js';
import { SINK_NAMES } from './sink-words.js';

const SINK_SET: ReadonlySet<string> = new Set(SINK_NAMES);

/**
 * Names bound only to modules: `json` in a module that imports json and uses the name nowhere but
 * as `json.<attribute>` and in its import. The interpreter reads such a name as the module the
 * resolver qualifies it to, so `json.loads` is a sink exactly when `<module>.loads` is one.
 */
export class ModuleNames {
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
export function bindsOnly(n: PyNode): boolean {
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
