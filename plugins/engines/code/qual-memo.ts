/**
 * Per-name memo of the qualified names a binding can hold, shared by the Python and JavaScript
 * resolvers. Without it, names bound in terms of each other (`x = x.a; x = x.b; …`) make resolution
 * quadratic or worse; on a cycle the name's partial set so far is returned, which keeps every
 * qualification found before the cycle (`m = importlib; m = m.import_module('os')` → {importlib, os}).
 */
export class QualMemo {
  private readonly done = new Map<string, string[]>();
  private readonly partial = new Map<string, Set<string>>();

  constructor(
    private readonly canonical: (q: string) => string,
    private readonly max: number,
  ) {}

  /** A fresh, capped set of canonical qualified names and its `add`, for one expression's qualification. */
  collector(): { out: Set<string>; add: (q: string) => void } {
    const out = new Set<string>();
    return {
      out,
      add: (q) => {
        if (out.size < this.max) out.add(this.canonical(q));
      },
    };
  }

  /** `fill` receives `add(q)` and reports every qualification of `name`; the result is memoised. */
  resolve(name: string, fill: (add: (q: string) => void) => void): string[] {
    const done = this.done.get(name);
    if (done) return done;
    const partial = this.partial.get(name);
    if (partial) return [...partial];
    const { out, add } = this.collector();
    this.partial.set(name, out);
    fill(add);
    this.partial.delete(name);
    const result = [...out];
    this.done.set(name, result);
    return result;
  }
}
