import { nameOf, type Node } from './parse.js';

/**
 * Constant folding of predicate expressions, with SQLite's truthiness (a string is true when its
 * numeric prefix is non-zero). Returns undefined when the value depends on data, so a tautology is
 * only reported when the predicate is true for every row.
 */
type V = number | string | boolean | null;

/**
 * How the dialect's database folds constants, set for the duration of one synchronous rule pass by
 * `withDialect`. MySQL and MariaDB read `||` as OR and `&&` as AND (default sql_mode), compare a
 * string with a number as numbers (`'a' = 0` is true) and strings without regard to case (the
 * default collations are _ci). PostgreSQL reads a quoted literal in a boolean or numeric position as
 * that type (`'yes'` is true, `1 = '01'` is true, `'abc'` there is an error).
 */
type Family = 'mysql' | 'postgresql' | 'other';
let family: Family = 'other';
export function withDialect<T>(name: string, fn: () => T): T {
  const before = family;
  family = name === 'mysql' || name === 'mariadb' ? 'mysql' : name === 'postgresql' ? 'postgresql' : 'other';
  try { return fn(); } finally { family = before; }
}
export function logicalOp(op: unknown): string {
  const o = String(op).toUpperCase();
  if (family === 'mysql' && o === '||') return 'OR';
  if (o === '&&') return 'AND';
  return o;
}

/** PostgreSQL's boolean input: t/true/y/yes/on/1 and f/false/n/no/off/0, any unique prefix; null is an error */
function pgBool(text: string): boolean | null {
  const t = text.trim().toLowerCase();
  if (!t) return null;
  if (t === '1' || t === 'on' || 'true'.startsWith(t) || 'yes'.startsWith(t)) return true;
  if (t === '0' || t === 'of' || t === 'off' || 'false'.startsWith(t) || 'no'.startsWith(t)) return false;
  return null;
}
/** PostgreSQL's numeric input for a quoted literal compared with a number; null is an error */
function pgNumber(text: string): number | null {
  return /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : null;
}
const UNKNOWN = Symbol('unknown');
type R = V | typeof UNKNOWN;

function num(v: V): number | null {
  if (v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  const m = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(v);
  return m ? Number(m[0]) : 0;
}

export function truthy(v: V): boolean | null {
  if (family === 'postgresql' && typeof v === 'string') return pgBool(v);
  const n = num(v);
  return n === null ? null : n !== 0;
}

function sameColumn(a: Node, b: Node): boolean {
  return a?.type === 'column_ref' && b?.type === 'column_ref' &&
    String(nameOf(a.column)).toLowerCase() === String(nameOf(b.column)).toLowerCase() &&
    String(nameOf(a.table) ?? '').toLowerCase() === String(nameOf(b.table) ?? '').toLowerCase();
}

function cmp(op: string, a: V, b: V): R {
  if (a === null || b === null) return null;
  if (family === 'postgresql' && typeof a === 'string' !== (typeof b === 'string')) {
    // the quoted side is read as the other side's type, or the query fails
    const [s, o] = typeof a === 'string' ? [a, b] : [b as string, a];
    const x = typeof o === 'boolean' ? pgBool(s) : pgNumber(s);
    if (x === null) return UNKNOWN;
    return typeof a === 'string' ? cmp(op, x, b) : cmp(op, a, x);
  }
  if (family === 'mysql' && typeof a === 'string' && typeof b === 'string') return cmpValues(op, a.toLowerCase(), b.toLowerCase());
  // MySQL compares a string with a number as doubles: 'a' is 0, '1abc' is 1
  const bothNum = family === 'mysql' || (typeof a !== 'string' && typeof b !== 'string');
  return cmpValues(op, bothNum ? num(a)! : String(a), bothNum ? num(b)! : String(b));
}

function cmpValues(op: string, x: number | string, y: number | string): R {
  switch (op) {
    case '=': case '==': case 'IS': return x === y;
    case '!=': case '<>': case 'IS NOT': return x !== y;
    case '<': return x < y;
    case '>': return x > y;
    case '<=': return x <= y;
    case '>=': return x >= y;
  }
  return UNKNOWN;
}

function likeAll(pattern: V): boolean {
  return typeof pattern === 'string' && /^%+$/.test(pattern);
}

/**
 * LIKE and GLOB of two constants, so that a false one is decided false (an undecided branch that
 * cannot depend on the row is reported). Patterns with an ESCAPE clause or GLOB classes stay unknown.
 */
function matchPattern(op: string, text: V, pattern: V, escape: unknown): R {
  if (text === null || pattern === null) return null;
  if (escape || typeof pattern !== 'string') return UNKNOWN;
  const p = String(pattern);
  if (op === 'GLOB' && p.includes('[')) return UNKNOWN;
  const any = op === 'GLOB' ? '*' : '%';
  const one = op === 'GLOB' ? '?' : '_';
  let re = '';
  for (const ch of p) re += ch === any ? '[\\s\\S]*' : ch === one ? '[\\s\\S]' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // SQLite's LIKE folds ASCII case, MySQL's _ci collations fold case; PostgreSQL's LIKE does not
  const fold = op === 'ILIKE' || (op === 'LIKE' && family !== 'postgresql');
  return new RegExp(`^${re}$`, fold ? 'i' : '').test(String(text));
}

/**
 * Folded values and row-independence by node: the tautology rule folds every OR operand, and in a
 * chain `a OR b OR c …` each operand holds the rest of the chain, so unmemoised folding is quadratic
 * (3,980 ORs ran into the worker deadline). A value is kept with the family it was folded under.
 */
const folded = new WeakMap<object, { family: Family; value: R }>();
const independent = new WeakMap<object, boolean>();

export function evalConst(e: unknown): R {
  if (!e || typeof e !== 'object') return UNKNOWN;
  const hit = folded.get(e);
  if (hit && hit.family === family) return hit.value;
  const value = evalNode(e as Node);
  folded.set(e, { family, value });
  return value;
}

function evalNode(n: Node): R {
  switch (n.type) {
    case 'number': return typeof n.value === 'number' ? n.value : Number(n.value);
    case 'bigint': return bigLiteral(String(n.value));
    case 'case': return evalCase(n);
    case 'bool': case 'boolean': return !!n.value;
    case 'null': return null;
    case 'single_quote_string': case 'string': case 'natural_string': case 'double_quote_string':
      return String(n.value);
    case 'full_hex_string': { const v = parseInt(String(n.value), 16); return Number.isFinite(v) ? v : UNKNOWN; }
    case 'hex_string': {
      // X'…': MySQL reads a number in a numeric context; elsewhere it is a blob, read as its bytes' text
      const hex = String(n.value);
      if (!/^([0-9a-fA-F]{2})*$/.test(hex)) return UNKNOWN;
      if (family === 'mysql') { const v = parseInt(hex || '0', 16); return Number.isSafeInteger(v) ? v : UNKNOWN; }
      return hex.replace(/../g, (b) => String.fromCharCode(parseInt(b, 16)));
    }
    case 'cast': {
      const v = evalConst(n.expr);
      if (v === UNKNOWN || v === null) return v;
      const target = String(n.target?.[0]?.dataType ?? n.target?.dataType ?? '').toUpperCase();
      if (family === 'postgresql' && typeof v === 'string' && /BOOL/.test(target)) { const b = pgBool(v); return b === null ? UNKNOWN : b; }
      if (/INT|NUM|REAL|FLOA|DOUB|DEC|BOOL/.test(target)) { const x = num(v); return x === null ? null : /INT|BOOL/.test(target) ? Math.trunc(x) : x; }
      if (/CHAR|TEXT|STRING|CLOB/.test(target)) return typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
      return UNKNOWN;
    }
    case 'function': return evalFunction(n);
    case 'select': return constSelect(n);
    case 'unary_expr': {
      const v = evalConst(n.expr);
      if (v === UNKNOWN) return UNKNOWN;
      const op = String(n.operator).toUpperCase();
      if (op === 'NOT' || op === '!') { const t = truthy(v); return t === null ? null : !t; }
      if (op === '-') { const x = num(v); return x === null ? null : -x; }
      if (op === '+') return v;
      if (op === '~') {
        // SQLite's ~ works on the 64-bit integer of its operand; -t-1 is that exactly while t is a safe integer
        const x = num(v);
        if (x === null) return null;
        const t = Math.trunc(x);
        return Number.isSafeInteger(t) ? -t - 1 : UNKNOWN;
      }
      return UNKNOWN;
    }
    case undefined:
      // node-sql-parser wraps subqueries as {tableList, columnList, ast}
      return n.ast && typeof n.ast === 'object' ? constSelect(n.ast) : UNKNOWN;
    case 'expr_list':
      return Array.isArray(n.value) && n.value.length === 1 ? evalConst(n.value[0]) : UNKNOWN;
    case 'binary_expr': {
      const op = logicalOp(n.operator);
      if ((op === '=' || op === '==' || op === 'IS' || op === '<=' || op === '>=') && sameColumn(n.left, n.right)) return true;
      const l = evalConst(n.left);
      if (op === 'IS' || op === 'IS NOT') {
        const r = evalConst(n.right);
        if (l === UNKNOWN || r === UNKNOWN) return UNKNOWN;
        const same = l === null || r === null ? l === r : cmp('=', l, r) === true;
        return op === 'IS' ? same : !same;
      }
      if (op === 'OR') { const r = evalConst(n.right); if ((l !== UNKNOWN && truthy(l) === true) || (r !== UNKNOWN && truthy(r) === true)) return true; if (l === UNKNOWN || r === UNKNOWN) return UNKNOWN; return (truthy(l) === false && truthy(r) === false) ? false : null; }
      if (op === 'AND') { const r = evalConst(n.right); if ((l !== UNKNOWN && truthy(l) === false) || (r !== UNKNOWN && truthy(r) === false)) return false; if (l === UNKNOWN || r === UNKNOWN) return UNKNOWN; return truthy(l) && truthy(r); }
      // integers within 64 bits but past 2^53 are exact in the database: compared as BigInt, not doubles
      if (n.left?.type === 'bigint' && n.right?.type === 'bigint' && /^\d+$/.test(String(n.left.value)) && /^\d+$/.test(String(n.right.value))) {
        const a = BigInt(n.left.value); const b = BigInt(n.right.value);
        const lim = 9223372036854775807n;
        if (a <= lim && b <= lim) {
          const c = a === b ? 0 : a < b ? -1 : 1;
          const byOp: Record<string, boolean> = { '=': c === 0, '==': c === 0, '!=': c !== 0, '<>': c !== 0, '<': c < 0, '>': c > 0, '<=': c <= 0, '>=': c >= 0 };
          if (op in byOp) return byOp[op];
        }
      }
      if (l === UNKNOWN) return UNKNOWN;
      if (op === 'IN' || op === 'NOT IN') {
        const list = n.right?.type === 'expr_list' && Array.isArray(n.right.value) ? n.right.value.map(evalConst) : null;
        if (!list || list.some((x: R) => x === UNKNOWN)) return UNKNOWN;
        const hit = list.some((x: R) => cmp('=', l, x as V) === true);
        return op === 'IN' ? hit : !hit;
      }
      if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
        const vals = n.right?.value;
        if (!Array.isArray(vals) || vals.length !== 2) return UNKNOWN;
        const lo = evalConst(vals[0]); const hi = evalConst(vals[1]);
        if (lo === UNKNOWN || hi === UNKNOWN) return UNKNOWN;
        const inside = cmp('>=', l, lo) === true && cmp('<=', l, hi) === true;
        return op === 'BETWEEN' ? inside : !inside;
      }
      const r = evalConst(n.right);
      if (r === UNKNOWN) return UNKNOWN;
      // any non-NULL value matches a pattern of only wildcards (SQLite compares its text form)
      if ((op === 'LIKE' || op === 'ILIKE' || op === 'SIMILAR TO') && l !== null && likeAll(r)) return true;
      if (op === 'GLOB' && l !== null && typeof r === 'string' && /^\*+$/.test(r)) return true;
      if (op === 'LIKE' || op === 'ILIKE' || op === 'GLOB') return matchPattern(op, l, r, n.escape);
      if (op === 'NOT LIKE' || op === 'NOT ILIKE' || op === 'NOT GLOB') {
        const m = matchPattern(op.slice(4), l, r, n.escape);
        return m === UNKNOWN || m === null ? m : !m;
      }
      if (['+', '-', '*', '/', '%'].includes(op)) {
        const a = num(l); const b = num(r);
        if (a === null || b === null) return null;
        if ((op === '/' || op === '%') && b === 0) return null;
        return op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : op === '/' ? a / b : a % b;
      }
      if (op === '||') return l === null || r === null ? null : String(l) + String(r);
      // MySQL compares a hex literal with a string as the string of its bytes: 0x61646d696e = 'admin'
      if (family === 'mysql' && typeof r === 'string' && hexText(n.left) !== null) return cmp(op, hexText(n.left), r);
      if (family === 'mysql' && typeof l === 'string' && hexText(n.right) !== null) return cmp(op, l, hexText(n.right));
      return cmp(op, l as V, r as V);
    }
  }
  return UNKNOWN;
}

/**
 * The parser returns literals past 2^53 and every exponent form (`1e0`, `1e3`) as `bigint` text.
 * SQLite reads an exponent form, or an integer beyond 64 bits, as a double, as Number() does; an
 * integer within 64 bits but past 2^53 is exact there and is not folded here.
 */
function bigLiteral(text: string): R {
  if (/^\d+$/.test(text) && !Number.isSafeInteger(Number(text)) && BigInt(text) <= 9223372036854775807n) return UNKNOWN;
  const v = Number(text);
  return Number.isFinite(v) ? v : UNKNOWN;
}

function hexText(n: Node): string | null {
  if (n?.type !== 'hex_string' && n?.type !== 'full_hex_string') return null;
  const hex = String(n.value);
  return /^([0-9a-fA-F]{2})+$/.test(hex) ? hex.replace(/../g, (b) => String.fromCharCode(parseInt(b, 16))) : null;
}

/** CASE [x] WHEN … THEN … [ELSE …] END: the first branch that is decided true; no ELSE is NULL. */
function evalCase(n: Node): R {
  const subject = n.expr ? evalConst(n.expr) : undefined;
  if (subject === UNKNOWN) return UNKNOWN;
  for (const arm of Array.isArray(n.args) ? n.args : []) {
    if (arm?.type === 'else') return evalConst(arm.result);
    if (arm?.type !== 'when') return UNKNOWN;
    const c = evalConst(arm.cond);
    if (c === UNKNOWN) return UNKNOWN;
    const hit = subject === undefined ? truthy(c) === true : cmp('=', subject, c) === true;
    if (hit) return evalConst(arm.result);
  }
  return null;
}

/** A SELECT with no FROM, WHERE or set operation yields exactly its one constant column. */
function constSelect(s: Node): R {
  if (s?.type !== 'select' || s.from || s.where || s._next || s.having || s.groupby?.columns || !Array.isArray(s.columns) || s.columns.length !== 1) return UNKNOWN;
  return evalConst(s.columns[0]?.expr);
}

function args(n: Node): unknown[] {
  return Array.isArray(n.args?.value) ? n.args.value : n.args?.expr ? [n.args.expr] : [];
}

/** Deterministic scalar functions over constants; anything else depends on data or state. */
function evalFunction(n: Node): R {
  const parts = Array.isArray(n.name?.name) ? n.name.name : [n.name];
  const fn = String(nameOf(parts[parts.length - 1]) ?? '').toLowerCase();
  const a = args(n);
  if (fn === 'exists') {
    const sub = (a[0] as Node)?.ast ?? a[0];
    return constSelect(sub as Node) === UNKNOWN ? UNKNOWN : true;
  }
  if (fn === 'not' && a.length === 1) {
    // the sqlite grammar returns `NOT (…)` as a call to NOT
    const v = evalConst(a[0]);
    if (v === UNKNOWN) return UNKNOWN;
    const b = truthy(v as V);
    return b === null ? null : !b;
  }
  const vals = a.map(evalConst);
  if (vals.some((v) => v === UNKNOWN)) return UNKNOWN;
  const v = vals as V[];
  switch (fn) {
    case 'coalesce': case 'ifnull': case 'nvl': case 'isnull': return v.find((x) => x !== null) ?? null;
    case 'nullif': return v.length === 2 ? (v[0] === null ? null : cmp('=', v[0], v[1]) === true ? null : v[0]) : UNKNOWN;
    case 'if': case 'iif': return v.length === 3 ? (truthy(v[0]) === true ? v[1] : v[2]) : UNKNOWN;
    case 'abs': { const x = v.length === 1 ? num(v[0]) : null; return x === null ? null : Math.abs(x); }
    case 'lower': return v.length === 1 && v[0] !== null ? String(v[0]).toLowerCase() : UNKNOWN;
    case 'upper': return v.length === 1 && v[0] !== null ? String(v[0]).toUpperCase() : UNKNOWN;
    case 'length': return v.length === 1 && v[0] !== null ? String(v[0]).length : UNKNOWN;
  }
  return UNKNOWN;
}

export function hasColumnRef(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  if (Array.isArray(e)) return e.some(hasColumnRef);
  const n = e as Node;
  if (n.type === 'column_ref') return true;
  for (const k of Object.keys(n)) {
    if (k === 'tableList' || k === 'columnList') continue;
    const v = n[k];
    if (v && typeof v === 'object' && hasColumnRef(v)) return true;
  }
  return false;
}

/** per-row random values: a branch on them samples rows, it does not select them all */
const PER_ROW = new Set(['random', 'rand', 'randomblob', 'random_bytes', 'uuid', 'gen_random_uuid', 'newid', 'uuid_generate_v4']);

/**
 * True when the expression cannot depend on the row or the caller: no column (in any subquery
 * either), no bind parameter or user variable, no per-row random value. Such an OR branch is true
 * for every row or for none, whatever functions it calls (`max(1,2)`, `instr('abc','a')`,
 * `@@version`): the folder need not know them all.
 */
export function rowIndependent(e: unknown): boolean {
  if (!e || typeof e !== 'object') return true;
  let v = independent.get(e);
  if (v === undefined) independent.set(e, (v = nodeIndependent(e)));
  return v;
}

function nodeIndependent(e: object): boolean {
  if (Array.isArray(e)) return e.every(rowIndependent);
  const n = e as Node;
  // a subquery that reads a table depends on the data (`EXISTS (SELECT 1 FROM orders)`)
  if (n.type === 'select' && Array.isArray(n.from) && n.from.length) return false;
  switch (n.type) {
    case 'column_ref': case 'param': case 'double_quote_string': return false;
    case 'origin': if (n.value === '?') return false; break;
    case 'var': if (n.prefix !== '@@') return false; break;
    case 'function': case 'aggr_func': {
      const parts = Array.isArray(n.name?.name) ? n.name.name : [n.name];
      if (PER_ROW.has(String(nameOf(parts[parts.length - 1]) ?? '').toLowerCase())) return false;
    }
  }
  for (const k of Object.keys(n)) {
    if (k === 'tableList' || k === 'columnList') continue;
    const v = n[k];
    if (v && typeof v === 'object' && !rowIndependent(v)) return false;
  }
  return true;
}

/** true when the value is known and is not true (false or NULL) */
export function decidedNotTrue(e: unknown): boolean {
  const v = evalConst(e);
  return v !== UNKNOWN && truthy(v) !== true;
}

/** true only when the expression is true for every row */
export function alwaysTrue(e: unknown): boolean {
  const v = evalConst(e);
  return v !== UNKNOWN && truthy(v) === true;
}
