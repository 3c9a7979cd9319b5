import { lookupOp, OPS, SortError, SORTS, type Sort } from './ops.js';

/**
 * The prefix DSL: `(OP arg ...)`, optionally preceded by `(VAR name Int|Real|Bool)` declarations.
 * Reading goes in four steps, each of which can refuse the input, in this order:
 *   1. size caps (length), 2. structure (tokens, parentheses, depth, node count),
 *   3. unknown operators anywhere (BLOCKED: the policy answer wins over mere mistakes),
 *   4. arity, sorts and literal ranges.
 * The result is a typed term tree (plain JSON, so it crosses a worker boundary) and its canonical form.
 */
export const LIMITS = Object.freeze({
  maxQueryChars: 65_536,
  maxDepth: 64,
  maxNodes: 20_000,
  maxNameChars: 64,
  maxLiteralChars: 64,
  maxPowExponent: 64,
  /** polynomial degree of any arithmetic subterm: stops power towers like (POW (POW x 64) 64) before z3 expands them */
  maxDegree: 64,
});

export type Term =
  | { kind: 'int'; sort: 'Int'; value: string }
  | { kind: 'real'; sort: 'Real'; value: string }
  | { kind: 'bool'; sort: 'Bool'; value: boolean }
  | { kind: 'var'; sort: Sort; name: string; bound: boolean }
  | { kind: 'app'; sort: Sort; op: string; args: Term[]; binders?: Binder[] };

export interface Binder {
  name: string;
  sort: Sort;
}

export interface Formula {
  /** every free variable with its sort (declared, or Int by default), sorted by name */
  vars: Binder[];
  body: Term;
  /** declarations of all free variables, then the formula; itself valid DSL that reads back to the same formula */
  canonical: string;
}

export type FailureKind = 'syntax' | 'type' | 'unknown_operator' | 'limit';
export type ParseResult = { ok: true; formula: Formula } | { ok: false; kind: FailureKind; message: string; operator?: string };

class DslError extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly operator?: string) {
    super(message);
  }
}

type SExpr = { t: 'atom'; text: string; pos: number } | { t: 'list'; items: SExpr[]; pos: number };

const INT_RE = /^-?[0-9]+$/;
const DEC_RE = /^-?[0-9]+\.[0-9]+$/;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(['TRUE', 'FALSE']);

/** an operator name in capitals, as the DSL writes it: never how a sentence writes a word */
const CAPITAL_OP = `(?:${[...OPS.keys()].join('|')})`;
/** a bracket first, or `(` directly followed by an operator in capitals */
const DSL_BRACKET = new RegExp(`^\\s*[()]|\\(\\s*${CAPITAL_OP}(?=[\\s()])`);
/** an operator in capitals first, then nothing but DSL tokens, with a bracket among them */
const DSL_OPEN = new RegExp(`^\\s*${CAPITAL_OP}(?=[\\s(])[\\w\\s.()-]*$`);

/**
 * DSL input: text that starts with a bracket, holds `(` directly followed by an operator in
 * capitals (`x > 5 (AND …`), or starts with an operator in capitals and holds nothing but DSL
 * tokens and brackets (`AND (GT x 5) …`, `GT x 5)`: a formula missing its opening bracket). Such
 * text is a formula, well-formed or not, and a malformed one is a 400 syntax error; it never goes
 * to a translator, which would refuse it as unreadable language. Anything else is natural
 * language, for a translator; never guessed at.
 */
export function isDslInput(query: string): boolean {
  return DSL_BRACKET.test(query) || (DSL_OPEN.test(query) && /[()]/.test(query));
}

export function parseQuery(query: string): ParseResult {
  try {
    return { ok: true, formula: build(read(query)) };
  } catch (e) {
    if (e instanceof DslError) return { ok: false, kind: e.kind, message: e.message, operator: e.operator };
    throw e;
  }
}

/** Reads the text into s-expressions without recursion, so depth is bounded by a counter, not the stack. */
function read(text: string): SExpr[] {
  if (text.length > LIMITS.maxQueryChars) {
    throw new DslError('limit', `query is ${text.length} characters; the limit is ${LIMITS.maxQueryChars}`);
  }
  const top: SExpr[] = [];
  const stack: { items: SExpr[]; pos: number }[] = [];
  let nodes = 0;
  const push = (e: SExpr): void => {
    if (++nodes > LIMITS.maxNodes) throw new DslError('limit', `query has more than ${LIMITS.maxNodes} nodes`);
    (stack.length ? stack[stack.length - 1].items : top).push(e);
  };
  const re = /\(|\)|[^\s()]+/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const tok = m[0];
    if (tok === '(') {
      if (stack.length >= LIMITS.maxDepth) throw new DslError('limit', `nesting deeper than ${LIMITS.maxDepth} levels`);
      stack.push({ items: [], pos: m.index });
    } else if (tok === ')') {
      const open = stack.pop();
      if (!open) throw new DslError('syntax', `unbalanced parentheses: unexpected ')' at offset ${m.index}`);
      push({ t: 'list', items: open.items, pos: open.pos });
    } else {
      push({ t: 'atom', text: tok, pos: m.index });
    }
  }
  if (stack.length) throw new DslError('syntax', `unbalanced parentheses: '(' at offset ${stack[stack.length - 1].pos} is never closed`);
  if (!top.length) throw new DslError('syntax', 'empty query');
  return top;
}

function headOf(list: SExpr & { t: 'list' }): string | undefined {
  const h = list.items[0];
  return h && h.t === 'atom' ? h.text : undefined;
}

/** Step 3: any operator position naming something outside the table blocks the whole query. */
function findUnknownOperator(e: SExpr): string | undefined {
  if (e.t === 'atom') return undefined;
  const head = headOf(e);
  let from = 1;
  if (head !== undefined && NAME_RE.test(head)) {
    const op = lookupOp(head);
    if (!op) return head;
    if (op.form === 'decl') return undefined;
    if (op.form === 'binder') from = 2;
  } else {
    from = 0;
  }
  for (const item of e.items.slice(from)) {
    const found = findUnknownOperator(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

function build(forms: SExpr[]): Formula {
  for (const f of forms) {
    const unknown = findUnknownOperator(f);
    if (unknown !== undefined) throw new DslError('unknown_operator', `unknown operator '${unknown}'`, unknown);
  }
  const declared = new Map<string, Sort>();
  let i = 0;
  for (; i < forms.length; i++) {
    const f = forms[i];
    if (f.t !== 'list' || lookupOp(headOf(f) ?? '')?.form !== 'decl') break;
    const { name, sort } = readBinder(f.items.slice(1), 'VAR');
    const prev = declared.get(name);
    if (prev && prev !== sort) throw new DslError('type', `'${name}' is declared both ${prev} and ${sort}`);
    declared.set(name, sort);
  }
  if (i === forms.length) throw new DslError('syntax', 'no formula after the declarations');
  if (i < forms.length - 1) throw new DslError('syntax', `unexpected input after the formula at offset ${forms[i + 1].pos}`);
  const free = new Map<string, Sort>(declared);
  const body = term(forms[i], [], declared, free);
  if (body.sort !== 'Bool') throw new DslError('type', `the formula must be Bool, got ${body.sort}`);
  degree(body);
  const vars = [...free.entries()].map(([name, sort]) => ({ name, sort })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const decls = vars.map((v) => `(VAR ${v.name} ${v.sort}) `).join('');
  return { vars, body, canonical: decls + printTerm(body) };
}

function readName(e: SExpr | undefined, what: string): string {
  if (!e || e.t !== 'atom') throw new DslError('syntax', `${what} must be a name`);
  if (!NAME_RE.test(e.text)) throw new DslError('syntax', `bad name '${e.text}' in ${what}`);
  if (e.text.length > LIMITS.maxNameChars) throw new DslError('limit', `name longer than ${LIMITS.maxNameChars} characters`);
  if (lookupOp(e.text) || RESERVED.has(e.text.toUpperCase())) throw new DslError('syntax', `'${e.text}' is reserved and cannot name a variable`);
  return e.text;
}

function readSort(e: SExpr | undefined, what: string): Sort {
  const sort = e && e.t === 'atom' ? SORTS.find((s) => s.toLowerCase() === e.text.toLowerCase()) : undefined;
  if (!sort) throw new DslError('syntax', `${what} needs a sort: Int, Real or Bool`);
  return sort;
}

/** `name Sort` (VAR's arguments, or one entry of a quantifier's binder list). */
function readBinder(items: SExpr[], what: string): Binder {
  if (items.length !== 2) throw new DslError('syntax', `${what} takes a name and a sort, got ${items.length} arguments`);
  return { name: readName(items[0], what), sort: readSort(items[1], what) };
}

type Scope = Binder[];

function term(e: SExpr, scope: Scope, declared: Map<string, Sort>, free: Map<string, Sort>): Term {
  if (e.t === 'atom') return atom(e.text, scope, declared, free);
  const head = headOf(e);
  const op = head !== undefined ? lookupOp(head) : undefined;
  if (!op) throw new DslError('syntax', `expected an operator after '(' at offset ${e.pos}`);
  const nargs = e.items.length - 1;
  if (nargs < op.min || nargs > op.max) {
    const want = op.min === op.max ? `${op.min}` : op.max === Infinity ? `at least ${op.min}` : `${op.min} to ${op.max}`;
    throw new DslError('syntax', `${op.name} takes ${want} argument${want === '1' ? '' : 's'}, got ${nargs}`);
  }
  if (op.form === 'decl') throw new DslError('syntax', 'VAR declarations must come before the formula, at the top level');
  let binders: Binder[] | undefined;
  let argExprs = e.items.slice(1);
  let inner = scope;
  if (op.form === 'binder') {
    binders = readBinderList(e.items[1], op.name);
    inner = [...binders, ...scope];
    argExprs = e.items.slice(2);
  }
  const args = argExprs.map((a) => term(a, inner, declared, free));
  if (op.name === 'POW') checkExponent(args[1]);
  try {
    return { kind: 'app', op: op.name, args, sort: op.sort(args.map((a) => a.sort)), ...(binders ? { binders } : {}) };
  } catch (err) {
    if (err instanceof SortError) throw new DslError('type', err.message);
    throw err;
  }
}

function readBinderList(e: SExpr | undefined, opName: string): Binder[] {
  if (!e || e.t !== 'list' || e.items.length === 0) throw new DslError('syntax', `${opName} needs a list of bound variables, e.g. ((x Int))`);
  const out = e.items.map((b) => {
    if (b.t !== 'list') throw new DslError('syntax', `${opName} binds (name Sort) pairs`);
    return readBinder(b.items, opName);
  });
  if (new Set(out.map((b) => b.name)).size !== out.length) throw new DslError('syntax', `${opName} binds a name twice`);
  return out;
}

function checkExponent(t: Term): void {
  if (t.kind !== 'int' || BigInt(t.value) < 0n || BigInt(t.value) > BigInt(LIMITS.maxPowExponent)) {
    throw new DslError('type', `POW exponent must be an integer literal from 0 to ${LIMITS.maxPowExponent}`);
  }
}

function atom(text: string, scope: Scope, declared: Map<string, Sort>, free: Map<string, Sort>): Term {
  if (INT_RE.test(text)) {
    if (text.length > LIMITS.maxLiteralChars) throw new DslError('limit', `literal longer than ${LIMITS.maxLiteralChars} characters`);
    return { kind: 'int', sort: 'Int', value: BigInt(text).toString() };
  }
  if (DEC_RE.test(text)) {
    if (text.length > LIMITS.maxLiteralChars) throw new DslError('limit', `literal longer than ${LIMITS.maxLiteralChars} characters`);
    return { kind: 'real', sort: 'Real', value: normalizeDecimal(text) };
  }
  const upper = text.toUpperCase();
  if (upper === 'TRUE' || upper === 'FALSE') return { kind: 'bool', sort: 'Bool', value: upper === 'TRUE' };
  if (!NAME_RE.test(text)) throw new DslError('syntax', `bad token '${text.slice(0, 40)}'`);
  if (lookupOp(text)) throw new DslError('syntax', `operator ${upper} used as a value; write (${upper} ...)`);
  if (text.length > LIMITS.maxNameChars) throw new DslError('limit', `name longer than ${LIMITS.maxNameChars} characters`);
  const b = scope.find((s) => s.name === text);
  if (b) return { kind: 'var', sort: b.sort, name: text, bound: true };
  // undeclared free names are integers (spec), so `(GT x 5.5)` compares an Int with a Real
  const sort = declared.get(text) ?? 'Int';
  free.set(text, sort);
  return { kind: 'var', sort, name: text, bound: false };
}

/** Degree as a polynomial (0 for constants and Booleans); throws past LIMITS.maxDegree. */
function degree(t: Term): number {
  if (t.kind !== 'app') return t.kind === 'var' && t.sort !== 'Bool' ? 1 : 0;
  const ds = t.args.map(degree);
  let d: number;
  if (t.op === 'MULT') d = ds.reduce((a, b) => a + b, 0);
  else if (t.op === 'POW') d = ds[0] * Number((t.args[1] as { value: string }).value);
  else d = Math.max(0, ...ds);
  if (d > LIMITS.maxDegree) throw new DslError('limit', `arithmetic of degree ${d}; the limit is ${LIMITS.maxDegree}`);
  return t.sort === 'Bool' ? 0 : d;
}

/** `007.50` and `7.5` are the same literal; keep one fractional digit so Real-ness shows. */
function normalizeDecimal(text: string): string {
  const neg = text.startsWith('-');
  const [i, f] = (neg ? text.slice(1) : text).split('.');
  const int = BigInt(i).toString();
  const frac = f.replace(/0+$/, '') || '0';
  const zero = int === '0' && frac === '0';
  return `${neg && !zero ? '-' : ''}${int}.${frac}`;
}

export function printTerm(t: Term): string {
  switch (t.kind) {
    case 'int':
    case 'real':
      return t.value;
    case 'bool':
      return t.value ? 'true' : 'false';
    case 'var':
      return t.name;
    case 'app': {
      const parts = t.args.map(printTerm);
      if (t.binders) parts.unshift(`(${t.binders.map((b) => `(${b.name} ${b.sort})`).join(' ')})`);
      return `(${t.op} ${parts.join(' ')})`;
    }
  }
}
