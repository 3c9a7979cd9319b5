import { type PyNode, field, namedChildren } from '../parser.js';
import { type Cat, type Env, type V, join, konst } from './value.js';

/**
 * Classes a value made only of letters and digits cannot break out of; and the trust boundary, which
 * a value checked against such a pattern has crossed validated (CWE-501 is unvalidated data in the session).
 */
const PLAIN: Cat[] = ['cmdi', 'codeinj', 'sqli', 'pathtraver', 'xss', 'xpathi', 'ldapi', 'redirect', 'trustbound'];
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
  /** the branch knows the variable's value: equal to a constant, or one of a list of constants */
  value?: V;
}

const nameOf = (n: PyNode | null): string | null => (n && (n.type === 'identifier' || n.type === 'attribute') ? n.text : null);

/**
 * The environment of a branch taken when `cond` is `truth`: a variable checked by a guard the branch
 * proves (`'..' not in p`, `p.startswith(base)` after realpath/resolve, `s.isalnum()`, a quoted
 * literal with no quote inside, a parsed URL's host compared with constants, a full match of a
 * pattern of plain characters) is clean for the classes the guard rules out; a variable compared
 * equal to a constant, or found in a list of constants, is that constant. Anything not recognised
 * refines nothing.
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
    if (f.value) {
      env.set(name, f.value);
      continue;
    }
    if (!f.clean.size) continue;
    const v = env.get(name);
    if (v) env.set(name, h.clean(v, f.clean));
  }
  return env;
}

function callFact(h: GuardHost, c: PyNode, t: boolean, env: Env, at: (n: string) => Facts): void {
  const fn = field(c, 'function');
  if (t) patternFact(h, c, env, at);
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

/**
 * `os.path.commonpath([base, p]) == base` (either side), `p` resolved (realpath, abspath, resolve):
 * p lies under base, as a prefix check after resolving proves.
 */
function commonPathFact(h: GuardHost, left: PyNode, right: PyNode, env: Env, at: (n: string) => Facts): void {
  for (const [call, other] of [[left, right], [right, left]] as const) {
    if (call.type !== 'call' || !h.ev(field(call, 'function'), env).q?.includes('os.path.commonpath')) continue;
    const list = namedChildren(field(call, 'arguments') as PyNode);
    const parts = list.length === 1 && (list[0].type === 'list' || list[0].type === 'tuple') ? namedChildren(list[0]) : [];
    // a base the request chose proves nothing
    if (parts.length !== 2 || !parts.some((x) => x.text === other.text) || h.ev(other, env).flow) continue;
    const p = parts.find((x) => x.text !== other.text);
    const name = p ? nameOf(p) : null;
    if (name && p && h.ev(p, env).q?.includes('<resolved>')) at(name).clean.add('pathtraver');
  }
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
  const equal = ((ops === '==' || ops === 'in') && t) || ((ops === '!=' || ops === 'not in') && !t);
  if (!equal) return;
  constantFact(h, left, right, ops, env, at);
  if (ops === '==' || ops === '!=') commonPathFact(h, left, right, env, at);
  // urlparse(u).netloc == 'host' / in ('a', 'b') true, or != / not in false: u goes to a known host
  if (left.type !== 'attribute') return;
  const part = (field(left, 'attribute') as PyNode).text;
  if (part !== 'netloc' && part !== 'hostname') return;
  const parsed = h.ev(field(left, 'object'), env);
  const rv = h.ev(right, env);
  const constant = rv.known ? typeof rv.k === 'string' : !!rv.items?.length && rv.items.every((x) => x.known && typeof x.k === 'string');
  if (parsed.of && constant) at(parsed.of).clean.add('redirect');
}

const plainConst = (v: V): boolean => !!v.known && (typeof v.k === 'string' || typeof v.k === 'number') && !v.flow && !v.unk;

/**
 * `x == C` (either side) or `x in (C1, C2, …)` holding: in that branch x is the constant, or one of
 * them, whatever it held before (an allowlist). Only plain strings and numbers count: an object's
 * `__eq__` is the only thing that could make another value compare equal.
 */
function constantFact(h: GuardHost, left: PyNode, right: PyNode, ops: string, env: Env, at: (n: string) => Facts): void {
  // the tested value must be one the analysis knows the origin of: a name bound out of sight (an
  // import, a global set elsewhere) may hold an object whose `__eq__` answers what it likes
  const testable = (x: PyNode): string | null => {
    const name = nameOf(x);
    const xv = name ? h.ev(x, env) : null;
    return name && xv && !xv.unk && !plainConst(xv) ? name : null;
  };
  if (ops === '==' || ops === '!=') {
    for (const [x, y] of [[left, right], [right, left]] as const) {
      const name = testable(x);
      const v = name ? h.ev(y, env) : null;
      if (name && v && plainConst(v)) return void (at(name).value = konst(v.k as string | number));
    }
    return;
  }
  const name = testable(left);
  if (!name) return;
  const set = h.ev(right, env);
  if (set.items?.length && !set.flow && !set.unk && set.items.every(plainConst)) at(name).value = set.items.reduce((a, b) => join(a, b));
}

/**
 * `re.fullmatch(P, x)` true (or `re.match`/`re.search` anchored at both ends), P one character class
 * of letters, digits, `_` and `-` (a dot too, except for paths and redirects) repeated: x holds
 * nothing a quote, a separator or markup needs. Python's `$` also matches before a final newline, so a
 * pattern ending in `$` rather than `\Z` does not clean the classes a line break can split (shell
 * commands, code, headers). Flags (a third argument) may change `^`/`$`: no proof then.
 */
function patternFact(h: GuardHost, c: PyNode, env: Env, at: (n: string) => Facts): void {
  const args = namedChildren(field(c, 'arguments') as PyNode);
  if (args.length !== 2 || args.some((a) => a.type === 'keyword_argument' || a.type === 'list_splat' || a.type === 'dictionary_splat')) return;
  const how = (h.ev(field(c, 'function'), env).q ?? []).map((q) => /^re\.(fullmatch|match|search)$/.exec(q)?.[1]).find(Boolean);
  const name = nameOf(args[1]);
  // a str subclass of unknown origin matches by its text but may build other text (`__radd__`, `__format__`)
  const pattern = how && name && !h.ev(args[1], env).unk ? h.ev(args[0], env) : null;
  if (!pattern?.known || typeof pattern.k !== 'string') return;
  const cats = plainPattern(pattern.k, how as 'fullmatch' | 'match' | 'search');
  for (const cat of cats ?? []) at(name as string).clean.add(cat);
}

export function plainPattern(p: string, how: 'fullmatch' | 'match' | 'search'): Cat[] | null {
  let s = p;
  let start = how !== 'search';
  if (s.startsWith('\\A')) [start, s] = [true, s.slice(2)];
  else if (s.startsWith('^')) [start, s] = [true, s.slice(1)];
  let end: 'text' | 'line' | null = how === 'fullmatch' ? 'text' : null;
  if (s.endsWith('\\Z') && !s.endsWith('\\\\Z')) [end, s] = ['text', s.slice(0, -2)];
  else if (s.endsWith('$') && !s.endsWith('\\$')) [end, s] = [end ?? 'line', s.slice(0, -1)];
  const m = /^\[([^\]^][^\]]*)\](\+|\*|\{\d+(,\d*)?\})$/.exec(s);
  if (!start || !end || !m) return null;
  let dot = false;
  // one token at a time: a range within one of a-z, A-Z, 0-9; a letter, digit or `_`; `\d`; `-` first, last or escaped; a dot
  for (let i = 0, body = m[1]; i < body.length; ) {
    const rest = body.slice(i);
    const range = /^([a-z]-[a-z]|[A-Z]-[A-Z]|[0-9]-[0-9])/.exec(rest)?.[1];
    if (range && range[0] <= range[2]) i += 3;
    else if (/^[A-Za-z0-9_]/.test(rest)) i += 1;
    else if (rest.startsWith('\\d') || rest.startsWith('\\-')) i += 2;
    else if (rest[0] === '-' && (i === 0 || i === body.length - 1)) i += 1;
    else if (rest.startsWith('\\.') || rest[0] === '.') [dot, i] = [true, i + (rest[0] === '.' ? 1 : 2)];
    else return null;
  }
  return PLAIN.filter((cat) => !(dot && (cat === 'pathtraver' || cat === 'redirect')) && !(end === 'line' && (cat === 'cmdi' || cat === 'codeinj' || cat === 'redirect')));
}
