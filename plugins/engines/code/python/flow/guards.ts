import { type PyNode, field } from '../parser.js';
import { namedChildren } from './kids.js';
import type { Cat, Env, V } from './value.js';

/** Classes a value made only of letters and digits cannot break out of. */
const PLAIN: Cat[] = ['cmdi', 'codeinj', 'sqli', 'pathtraver', 'xss', 'xpathi', 'ldapi', 'redirect'];
const PLAIN_TESTS = new Set(['isalnum', 'isdigit', 'isalpha', 'isdecimal', 'isnumeric', 'isidentifier']);
const QUOTES = new Set(["'", '"']);

export interface GuardHost {
  ev(n: PyNode | null, env: Env): V;
  clean(v: V, cats: Iterable<Cat>): V;
}

/** What one branch knows about a variable from the condition that chose it. */
interface Facts {
  clean: Set<Cat>;
  startsQuote?: string;
  endsQuote?: string;
  noInnerQuote?: string;
}

const nameOf = (n: PyNode | null): string | null => (n && (n.type === 'identifier' || n.type === 'attribute') ? n.text : null);

/**
 * The environment of a branch taken when `cond` is `truth`: a variable checked by a guard the branch
 * proves (`'..' not in p`, `p.startswith(base)` after realpath/resolve, `s.isalnum()`, a quoted
 * literal with no quote inside, a parsed URL's host compared with constants) is clean for the
 * classes the guard rules out. Anything not recognised refines nothing.
 */
export function refine(h: GuardHost, cond: PyNode | null, truth: boolean, env: Env): Env {
  const facts = new Map<string, Facts>();
  const at = (name: string): Facts => facts.get(name) ?? (facts.set(name, { clean: new Set() }).get(name) as Facts);
  const visit = (c: PyNode | null, t: boolean, depth: number): void => {
    if (!c || depth > 8) return;
    if (c.type === 'parenthesized_expression') return visit(namedChildren(c)[0] ?? null, t, depth + 1);
    if (c.type === 'not_operator') return visit(field(c, 'argument'), !t, depth + 1);
    if (c.type === 'boolean_operator') {
      const op = (field(c, 'operator') as PyNode).text;
      // `a or b` false and `a and b` true prove both sides
      if ((op === 'or' && !t) || (op === 'and' && t)) {
        visit(field(c, 'left'), t, depth + 1);
        visit(field(c, 'right'), t, depth + 1);
      }
      return;
    }
    if (c.type === 'call') return callFact(h, c, t, env, at);
    if (c.type === 'comparison_operator') return compareFact(h, c, t, env, at);
  };
  visit(cond, truth, 0);
  if (!facts.size) return env;
  for (const [name, f] of facts) {
    const q = f.startsQuote;
    if (q && q === f.endsQuote && q === f.noInnerQuote) f.clean.add('codeinj');
    if (!f.clean.size) continue;
    const v = env.get(name);
    if (v) env.set(name, h.clean(v, f.clean));
  }
  return env;
}

function callFact(h: GuardHost, c: PyNode, t: boolean, env: Env, at: (n: string) => Facts): void {
  const fn = field(c, 'function');
  if (!t || fn?.type !== 'attribute') return;
  const objNode = field(fn, 'object');
  const name = nameOf(objNode) ?? textOf(objNode);
  if (!name) return;
  const m = (field(fn, 'attribute') as PyNode).text;
  if (PLAIN_TESTS.has(m)) {
    for (const cat of PLAIN) at(name).clean.add(cat);
    return;
  }
  if (m !== 'startswith' && m !== 'endswith') return;
  const arg = h.ev(namedChildren(field(c, 'arguments') as PyNode)[0] ?? null, env);
  if (!arg.known || typeof arg.k !== 'string') {
    // a prefix check against a base directory counts only after the path was resolved
    if (m === 'startswith' && h.ev(objNode, env).q?.includes('<resolved>')) at(name).clean.add('pathtraver');
    return;
  }
  if (m === 'startswith' && h.ev(objNode, env).q?.includes('<resolved>') && arg.k.length > 1) at(name).clean.add('pathtraver');
  if (QUOTES.has(arg.k)) {
    if (m === 'startswith') at(name).startsQuote = arg.k;
    else at(name).endsQuote = arg.k;
  }
}

/**
 * `str(p)` of a path object is its text: a check on that text is a check on `p`
 * (whose value, a resolved path, carries through `str` unchanged).
 */
function textOf(n: PyNode | null): string | null {
  if (n?.type !== 'call') return null;
  const f = field(n, 'function');
  if (f?.text !== 'str') return null;
  const args = namedChildren(field(n, 'arguments') as PyNode);
  return args.length === 1 ? nameOf(args[0]) : null;
}

function compareFact(h: GuardHost, c: PyNode, t: boolean, env: Env, at: (n: string) => Facts): void {
  const ops = c.children.filter((x) => !x.named).map((x) => x.text).join(' ');
  const [left, right] = namedChildren(c);
  if (!left || !right) return;
  // `C in x` false, or `C not in x` true: x does not contain C
  const lacks = (ops === 'in' && !t) || (ops === 'not in' && t);
  if (lacks) {
    const needle = h.ev(left, env);
    if (!needle.known || typeof needle.k !== 'string') return;
    const inner = right.type === 'subscript' ? field(right, 'value') : right;
    const name = nameOf(inner);
    if (!name) return;
    if (needle.k.includes('..')) at(name).clean.add('pathtraver');
    if (QUOTES.has(needle.k)) {
      if (right.type === 'subscript') at(name).noInnerQuote = needle.k;
      else at(name).clean.add('xpathi');
    }
    return;
  }
  // urlparse(u).netloc == 'host' / in ('a', 'b') true, or != / not in false: u goes to a known host
  const equal = ((ops === '==' || ops === 'in') && t) || ((ops === '!=' || ops === 'not in') && !t);
  if (!equal || left.type !== 'attribute') return;
  const part = (field(left, 'attribute') as PyNode).text;
  if (part !== 'netloc' && part !== 'hostname') return;
  const parsed = h.ev(field(left, 'object'), env);
  const rv = h.ev(right, env);
  const constant = rv.known ? typeof rv.k === 'string' : !!rv.items?.length && rv.items.every((x) => x.known && typeof x.k === 'string');
  if (parsed.of && constant) at(parsed.of).clean.add('redirect');
}
