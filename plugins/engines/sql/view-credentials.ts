import type { DialectInfo } from './dialects.js';
import { isStackOverflow, nameOf, parseSql, type Node } from './parse.js';
import { isCredentialColumn } from './catalog.js';
import { renamed, type Output } from './outputs.js';
import { viewOutput } from './schema-check.js';
import { tokenize } from './tokens.js';
import type { Schema, StoredView, Table } from './schema-db.js';

/** a view body's tree (null when the grammar could not read it) and its declared column list */
export interface ViewTree { select: Node | null; declared: string[] | null }

/**
 * A view as its reader saw it: the text of its CREATE statement where the reader has it, its
 * output columns in order as the reader names them, and its tree (read on first use: a view whose
 * text names no credential and no source holding one is never parsed).
 */
export interface ViewBody { name: string; text: string | null; columns: string[]; tree: () => ViewTree }

/**
 * Marks which columns of each view return a credential. A view is a stored query:
 * `CREATE VIEW v AS SELECT id, password_hash AS h FROM users` makes `SELECT h FROM v` read the
 * credential under another name, which the column's own name no longer shows. Each view body is
 * walked like a query, after the views it reads (a view may name one defined later), and a view
 * column is a credential when the body's column in that position is one. A body the grammar cannot
 * read, or whose columns cannot be lined up with the reader's, fails closed.
 */
export function markViewCredentials(schema: Schema, views: ViewBody[], d: DialectInfo): void {
  const byName = new Map(views.map((v) => [v.name, v]));
  const deps = new Map([...byName].map(([name, v]) => [name, v.text !== null ? wordsIn(v.text, d) : tableNamesIn(v.tree().select)]));
  for (const name of dependencyOrder(deps, byName)) {
    const t = schema.get(name);
    if (t) mark(t, byName.get(name)!, schema, d);
  }
}

/** a declared view column list (`CREATE VIEW v (a, b) AS …`), as the grammar returns it */
export function declaredColumns(s: Node): string[] | null {
  return Array.isArray(s.columns) && s.columns.length ? s.columns.map((c: unknown) => String(nameOf(c))) : null;
}

/**
 * SQLite's stored views with their bodies read by the sqlite grammar (SQLite accepted them, whatever
 * the dialect). The grammar's CREATE VIEW takes a single SELECT only; a compound body (`… UNION
 * SELECT …`) is read as the query after the view's `AS`.
 */
export function storedViewBodies(stored: StoredView[], sqlite: DialectInfo): ViewBody[] {
  return stored.map((v) => ({ name: v.name, text: v.sql, columns: v.columns, tree: () => readView(v.sql, sqlite) }));
}

function readView(sql: string, sqlite: DialectInfo): ViewTree {
  const r = parseSql(sql, sqlite);
  const s = r.ok && r.statements.length === 1 && r.statements[0].type === 'create' ? r.statements[0] : null;
  if (s?.select) return { select: s.select, declared: declaredColumns(s) };
  const split = splitView(sql, sqlite);
  const q = split ? parseSql(split.body, sqlite) : null;
  const select = q?.ok && q.statements.length === 1 && q.statements[0].type === 'select' ? q.statements[0] : null;
  return { select, declared: split?.declared ?? null };
}

/** `CREATE VIEW name [(a, b)] AS body`: the declared names and the body's text, from tokens */
function splitView(sql: string, d: DialectInfo): { declared: string[] | null; body: string } | null {
  let depth = 0;
  let declared: string[] | null = null;
  for (const t of tokenize(sql, d)) {
    if (t.kind === 'comment') continue;
    if (t.kind === 'punct' && t.text === '(') { depth++; if (depth === 1) declared = []; continue; }
    if (t.kind === 'punct' && t.text === ')') { depth--; continue; }
    if (depth === 1 && (t.kind === 'word' || t.kind === 'ident')) declared!.push(t.kind === 'ident' ? t.text.slice(1, -1) : t.text);
    if (depth === 0 && t.kind === 'word' && t.text.toUpperCase() === 'AS') return { declared, body: sql.slice(t.end) };
  }
  return null;
}

function mark(t: Table, v: ViewBody, schema: Schema, d: DialectInfo): void {
  // a credential reaches a view's columns only from a source holding one or a column named as one
  if (v.text !== null && !mentionsCredential(v.text, schema, d)) return;
  const { select, declared } = v.tree();
  let inner: Output | null = null;
  if (select) {
    try {
      inner = viewOutput(select, schema, d.name === 'sqlite');
    } catch (e) {
      if (!isStackOverflow(e)) throw e;
    }
  }
  if (!inner) {
    // unread: every column may be the credential the body names
    markAll(t, v.columns);
    return;
  }
  const out = declared ? renamed(declared, inner) : inner;
  const aligned = out.ordered !== null && out.ordered.length === v.columns.length;
  v.columns.forEach((c, i) => {
    const l = c.toLowerCase();
    if ((aligned && out.ordered![i].credential) || out.credentials.has(l) || inner!.credentials.has(l)) t.credentials.add(l);
  });
  if (!aligned && out.hidden) {
    // a credential in a column the body does not name: any column the reader named otherwise may be it
    t.hidden = true;
    for (const c of v.columns) {
      const l = c.toLowerCase();
      if (!out.columns?.has(l) && !inner.columns?.has(l)) t.credentials.add(l);
    }
  }
}

function markAll(t: Table, columns: string[]): void {
  t.hidden = true;
  for (const c of columns) t.credentials.add(c.toLowerCase());
}

/** the text names a credential column, or a table or view that holds one */
function mentionsCredential(text: string, schema: Schema, d: DialectInfo): boolean {
  for (const w of wordsIn(text, d)) {
    const t = schema.get(w.toLowerCase());
    if (isCredentialColumn(w) || (t && (t.credentials.size > 0 || t.hidden))) return true;
  }
  return false;
}

/** names in a text: words and quoted identifiers, as spelt */
function wordsIn(text: string, d: DialectInfo): string[] {
  const out: string[] = [];
  for (const tok of tokenize(text, d)) {
    if (tok.kind === 'word') out.push(tok.text);
    else if (tok.kind === 'ident') out.push(tok.text.slice(1, -1));
  }
  return out;
}

/** every name a tree uses as a table (with some that are not: they only add an order constraint); iterative, so any depth */
function tableNamesIn(root: Node | null): string[] {
  const out: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length) {
    const n = stack.pop();
    if (!n || typeof n !== 'object') continue;
    if (Array.isArray(n)) { for (const x of n) stack.push(x); continue; }
    const o = n as Node;
    if ('table' in o) {
      const name = nameOf(o.table);
      if (name) out.push(name);
    }
    for (const k of Object.keys(o)) if (k !== 'tableList' && k !== 'columnList' && o[k] && typeof o[k] === 'object') stack.push(o[k]);
  }
  return out;
}

/** views in an order where each comes after the views it reads; a cycle (never a valid schema) is cut anywhere */
function dependencyOrder(deps: Map<string, string[]>, views: Map<string, ViewBody>): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  for (const start of views.keys()) {
    if (seen.has(start)) continue;
    seen.add(start);
    const stack: Array<{ name: string; next: number }> = [{ name: start, next: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const ds = deps.get(top.name) ?? [];
      if (top.next < ds.length) {
        const dep = ds[top.next++].toLowerCase();
        if (views.has(dep) && !seen.has(dep)) { seen.add(dep); stack.push({ name: dep, next: 0 }); }
      } else {
        stack.pop();
        order.push(top.name);
      }
    }
  }
  return order;
}
