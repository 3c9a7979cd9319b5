/**
 * `code-owasp --recombine`: the benchmark's cases are built by one generator from three parts (a
 * source that reads the request into `param`, a propagator that turns `param` into `bar`, a sink
 * that uses `bar`), and the held-out half is other combinations of such parts. This rebuilds the
 * given copy's cases with their parts exchanged and scores the combinations, so a result that holds
 * only for the combinations the copy happens to contain shows up as a miss here.
 *
 * Labels come from the copy's own labels, class by class (a sanitiser is safe for one class only:
 * `html.escape` makes an XSS sink safe and a redirect not):
 *  - a propagator is tainting for class C when a real case of C has it and it reads `param`, safe
 *    for C when a false case of C has it behind a tainting source and a sink that real cases of C
 *    have; one labelled both ways, or real without reading `param`, is left out (the copy's own
 *    label noise: `bar = "This should never happen"` and a test that keeps it constant, labelled real);
 *  - a sink is vulnerable for C when a real case of C has it, safe when only false cases of C do;
 *  - a source taints when a real case of a flow class has it; it is safe when a false case of a flow
 *    class has it with a propagator and a sink that real cases of that class have (the route's own
 *    path segment, a wrapper that hands out a fixed value);
 *  - a combination source × propagator × sink of C is real when all three are, false when one of
 *    them is safe, and not built when a part has no label for C.
 */

export interface CaseParts {
  /** everything up to and including the POST handler's `def` line */
  head: string;
  /** the handler's paragraphs before the source (`RESPONSE = ""`) */
  pre: string[];
  source: string;
  prop: string;
  sink: string;
  /** what follows the handler */
  tail: string;
}

const indentOf = (l: string): number => /^\t*/.exec(l)![0].length;
const assigns = (name: string) => new RegExp(`^\\s*${name} = `);

/**
 * A case's POST handler cut into its parts at blank lines: the source runs to the last paragraph
 * that still assigns `param` before the first that assigns `bar` (`headers = …getlist(…)`, then a
 * paragraph later `if headers: param = headers[0]`); the propagator to the last paragraph that
 * assigns `bar`; the sink is the rest. Null for a case not laid out so.
 */
export function splitCase(code: string): CaseParts | null {
  const lines = code.split('\n');
  const start = lines.findIndex((l) => /^\s*def \w+_post\(\):/.test(l));
  if (start < 0) return null;
  const depth = indentOf(lines[start]);
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i].trim() && indentOf(lines[i]) <= depth) {
      end = i;
      break;
    }
  }
  const paras: string[][] = [];
  let cur: string[] = [];
  for (const l of lines.slice(start + 1, end)) {
    if (l.trim()) cur.push(l);
    else if (cur.length) {
      paras.push(cur);
      cur = [];
    }
  }
  if (cur.length) paras.push(cur);
  const has = (p: string[], re: RegExp): boolean => p.some((l) => re.test(l));
  const src = paras.findIndex((p) => has(p, assigns('param')));
  const firstBar = paras.findIndex((p, i) => i > src && has(p, assigns('bar')));
  if (src < 0 || firstBar < 0) return null;
  let srcEnd = src;
  for (let i = src + 1; i < firstBar; i++) if (has(paras[i], assigns('param'))) srcEnd = i;
  let propEnd = firstBar;
  for (let i = firstBar + 1; i < paras.length; i++) if (has(paras[i], assigns('bar'))) propEnd = i;
  const text = (ps: string[][]): string => ps.map((p) => p.join('\n')).join('\n\n');
  return {
    head: lines.slice(0, start + 1).join('\n'),
    pre: paras.slice(0, src).map((p) => p.join('\n')),
    source: text(paras.slice(src, srcEnd + 1)),
    prop: text(paras.slice(srcEnd + 1, propEnd + 1)),
    sink: text(paras.slice(propEnd + 1)),
    tail: lines.slice(end).join('\n'),
  };
}

export function joinCase(p: CaseParts, swap: Partial<Pick<CaseParts, 'source' | 'prop' | 'sink'>> = {}): string {
  return [p.head, [...p.pre, swap.source ?? p.source, swap.prop ?? p.prop, swap.sink ?? p.sink].join('\n\n'), p.tail].join('\n');
}

/**
 * A part's template: the case's number and the generator's five-digit random ids (`map44013`,
 * `'keyB-44013'`, `f'55141{param}abcd'`) left out. Small numbers stay: `num = 106` and `num = 86`
 * decide different branches of `7 * 42 - num > 200`.
 */
export function templateOf(part: string): string {
  return part.replace(/BenchmarkTest\d+/g, 'BenchmarkTest#').replace(/\d{5,}/g, '#');
}

export interface RecombineCase {
  name: string;
  category: string;
  real: boolean;
  code: string;
}

export interface RecombineRow {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
  /** of the false combinations flagged (fp), those flagged only as undecided: a callee outside the file, fail closed by design */
  undecided: number;
  /** a few combinations judged otherwise than labelled: category, the cases whose parts were joined */
  misses: string[];
  /** propagator templates left out: labelled both real and false in this category, or real without reading `param` */
  leftOut: number;
}

const FLOW = new Set(['cmdi', 'codeinj', 'deserialization', 'sqli', 'pathtraver', 'xss', 'xpathi', 'ldapi', 'xxe', 'redirect', 'trustbound']);

interface Part {
  text: string;
  /** the case it was taken from, named in a miss */
  from: string;
}

/**
 * Scores every labelled combination. `flagged(code, category)` is the verdict under test; the
 * result is per category, with the combinations built.
 */
export type Judged = boolean | 'undecided';

export async function recombine(cases: RecombineCase[], flagged: (code: string, category: string) => Promise<Judged>): Promise<Map<string, RecombineRow>> {
  const split = cases.map((c) => ({ ...c, parts: splitCase(c.code) })).filter((c): c is RecombineCase & { parts: CaseParts } => c.parts !== null);
  const sources = new Map<string, Part>();
  // the first case of each template names it
  const first = <T>(m: Map<string, T>, key: string, v: T): void => void (m.has(key) || m.set(key, v));
  for (const c of split) if (c.real && FLOW.has(c.category)) first(sources, templateOf(c.parts.source), { text: c.parts.source, from: c.name });
  // a false case whose propagator and sink are those of real cases of its class is safe by its source
  // (the route's own path segment, a wrapper that hands out a fixed value): safe for every class
  const realKeys = (c: RecombineCase & { parts: CaseParts }, part: 'prop' | 'sink'): boolean =>
    split.some((r) => r.real && r.category === c.category && templateOf(r.parts[part]) === templateOf(c.parts[part]) && (part === 'sink' || /\bparam\b/.test(r.parts.prop)));
  const safeSources = new Map<string, Part>();
  for (const c of split) {
    if (!c.real && FLOW.has(c.category) && !sources.has(templateOf(c.parts.source)) && realKeys(c, 'prop') && realKeys(c, 'sink')) first(safeSources, templateOf(c.parts.source), { text: c.parts.source, from: c.name });
  }
  const out = new Map<string, RecombineRow>();
  for (const category of new Set(split.map((c) => c.category))) {
    const mine = split.filter((c) => c.category === category);
    const realSinks = new Map<string, Part & { host: CaseParts }>();
    for (const c of mine) if (c.real) first(realSinks, templateOf(c.parts.sink), { text: c.parts.sink, from: c.name, host: c.parts });
    const safeSinks = new Map<string, Part>();
    for (const c of mine) if (!c.real && !realSinks.has(templateOf(c.parts.sink))) first(safeSinks, templateOf(c.parts.sink), { text: c.parts.sink, from: c.name });
    const props = new Map<string, Part & { real: boolean }>();
    const contradicted = new Set<string>();
    // a propagator that never reads `param` hands on nothing of the request: a real label on it is
    // the sink's doing (a weak hash) or the copy's error (a constant the label calls tainted)
    const blind = new Set<string>();
    for (const c of mine) {
      if (!c.real) continue;
      if (/\bparam\b/.test(c.parts.prop)) first(props, templateOf(c.parts.prop), { text: c.parts.prop, from: c.name, real: true });
      else blind.add(templateOf(c.parts.prop));
    }
    for (const c of mine) {
      const key = templateOf(c.parts.prop);
      // a false case's propagator is the safe part only behind a tainting source and a vulnerable sink
      if (c.real || !sources.has(templateOf(c.parts.source)) || !realSinks.has(templateOf(c.parts.sink))) continue;
      // one template labelled both ways in one class: the copy's labels disagree, and it is not built
      if (props.get(key)?.real || blind.has(key)) contradicted.add(key);
      else props.set(key, { text: c.parts.prop, from: c.name, real: false });
    }
    for (const key of contradicted) props.delete(key);
    const leftOut = new Set([...contradicted, ...blind]).size;
    const row: RecombineRow = { tp: 0, fn: 0, fp: 0, tn: 0, undecided: 0, misses: [], leftOut };
    const score = async (code: string, real: boolean, what: string): Promise<void> => {
      const judged = await flagged(code, category);
      const f = judged !== false;
      if (real) f ? row.tp++ : row.fn++;
      else f ? row.fp++ : row.tn++;
      if (!real && judged === 'undecided') {
        row.undecided++;
        return;
      }
      // up to three of each kind: a few propagators labelled real but proven safe would hide every FP
      if (f !== real && row.misses.filter((m) => m.startsWith(real ? 'FN' : 'FP')).length < 3) row.misses.push(`${real ? 'FN' : 'FP'} ${category}: ${what}`);
    };
    // every host is a real case, so its own handler around the parts is one the generator wrote
    const host = [...realSinks.values()][0]?.host;
    if (!host) continue;
    for (const source of sources.values()) {
      for (const prop of props.values()) {
        for (const sink of realSinks.values()) {
          await score(joinCase(sink.host, { source: source.text, prop: prop.text }), prop.real, `source of ${source.from}, propagator of ${prop.from}, sink of ${sink.from}`);
        }
        if (!prop.real) continue;
        for (const sink of safeSinks.values()) {
          await score(joinCase(host, { source: source.text, prop: prop.text, sink: sink.text }), false, `source of ${source.from}, propagator of ${prop.from}, safe sink of ${sink.from}`);
        }
      }
    }
    // a safe source makes a flow class's case safe; a weak hash or random number stays weak whatever it is fed
    for (const source of FLOW.has(category) ? safeSources.values() : []) {
      for (const prop of props.values()) {
        if (!prop.real) continue;
        for (const sink of realSinks.values()) {
          await score(joinCase(sink.host, { source: source.text, prop: prop.text }), false, `safe source of ${source.from}, propagator of ${prop.from}, sink of ${sink.from}`);
        }
      }
    }
    out.set(category, row);
  }
  return out;
}
