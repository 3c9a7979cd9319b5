import { nameOf, type Node } from './parse.js';
import type { Schema } from './schema-db.js';
import { isCatalog, isCredentialColumn } from './catalog.js';
import { OPAQUE, renamed, sourceOf, starColumns, tableSource, unionOf, type Column, type Output, type Source } from './outputs.js';

/**
 * Scope-aware walk of every SELECT in a statement (CTEs, derived tables, subqueries in any
 * clause, UNION branches, INSERT … SELECT). It resolves each table and column reference against
 * the schema, CTE names, derived-table aliases and select-list aliases, and gathers the facts the
 * safety rules need (catalog reads, tables only reached through UNION, credential projections)
 * plus the complexity figures.
 */
export interface Issue { rule: string; message: string; statement: number; detail?: Record<string, unknown> }

export interface Facts {
  issues: Issue[];
  /** tables referenced in a UNION branch (not the first) that are neither in the schema nor CTEs */
  unionForeign: string[];
  catalogReads: string[];
  credentialReads: string[];
  complexity: { tables: number; joins: number; subquery_depth: number; set_operations: number };
}

/** a source whose columns are not known: any name resolves, only a name's own spelling marks a credential */
const opaque = (alias: string): Source => sourceOf(alias, OPAQUE);
type Scope = Source[];
type Ctes = Map<string, Output>;
/** a source of unknown columns that was handed a credential: any of its columns may hold it */
const FED: Output = Object.freeze({ ...OPAQUE, hidden: true });
/** the source returns a credential under this name */
function carries(src: Source, col: string): boolean {
  return src.credentials.has(col) || (src.hidden && !src.columns);
}

class Analyzer {
  /** set by a `'probe'` walk that met a credential column */
  private fed = false;
  facts: Facts = { issues: [], unionForeign: [], catalogReads: [], credentialReads: [], complexity: { tables: 0, joins: 0, subquery_depth: 0, set_operations: 0 } };
  /**
   * SQLite reads a double-quoted word as a column when a source in scope has a column of that name
   * and as a string literal only otherwise; its grammar here always returns a string literal, so
   * `SELECT "password_hash" FROM users` read as a literal projected the credential unseen.
   */
  constructor(private schema: Schema, private stmt: number, private quotedColumns = false) {}

  private issue(rule: string, message: string, detail?: Record<string, unknown>) {
    if (!this.facts.issues.some((i) => i.rule === rule && i.message === message)) {
      this.facts.issues.push({ rule, message, statement: this.stmt, ...(detail ? { detail } : {}) });
    }
  }

  /** Analyse a SELECT (and its UNION chain); returns its output columns. */
  select(node: Node, outer: Scope[], ctes: Ctes, depth: number, inExists = false): Output {
    this.facts.complexity.subquery_depth = Math.max(this.facts.complexity.subquery_depth, depth);
    const outs: Output[] = [];
    let branch = 0;
    for (let s: Node | null = node; s; s = s._next ?? null, branch++) {
      if (branch > 0) this.facts.complexity.set_operations++;
      outs.push(this.one(s, outer, new Map(ctes), depth, branch > 0, inExists));
    }
    return unionOf(outs);
  }

  private one(s: Node, outer: Scope[], ctes: Ctes, depth: number, unionBranch: boolean, inExists: boolean): Output {
    for (const cte of Array.isArray(s.with) ? s.with : []) {
      const name = String(nameOf(cte.name) ?? '').toLowerCase();
      const body = cte.stmt?.ast ?? cte.stmt;
      let out: Output = OPAQUE;
      if (body?.type === 'select') out = this.select(body, outer, ctes, depth + 1);
      else if (body) this.walkExpr(body, [], outer, ctes, depth + 1, null);
      // the grammars return a declared name as a column reference
      const declared = Array.isArray(cte.columns) && cte.columns.length ? cte.columns.map((c: Node) => String(nameOf(c?.type === 'column_ref' ? c.column : c))) : null;
      ctes.set(name, declared ? renamed(declared, out) : out);
    }
    const scope: Scope = [];
    for (const f of Array.isArray(s.from) ? s.from : []) {
      if (f.join) this.facts.complexity.joins++;
      const sub = f.expr?.ast ?? (f.expr?.type === 'select' ? f.expr : null);
      if (sub) {
        scope.push(sourceOf(String(nameOf(f.as) ?? '').toLowerCase(), this.select(sub, outer, ctes, depth + 1)));
      } else if (f.table !== undefined) {
        this.facts.complexity.tables++;
        const table = String(nameOf(f.table) ?? '').toLowerCase();
        const quals = qualifiers(f);
        const db = quals.length ? quals.join('.') : null;
        const alias = String(nameOf(f.as) ?? table).toLowerCase();
        if (!db && ctes.has(table)) scope.push(sourceOf(alias, ctes.get(table)!));
        else if (!db && this.schema.has(table)) scope.push(tableSource(alias, this.schema.get(table)!));
        else if (isCatalog(null, table) || quals.some((q) => isCatalog(q, table))) { this.facts.catalogReads.push(db ? `${db}.${table}` : table); scope.push(opaque(alias)); }
        else if (this.schema.has(table) && !foreignNamespace(quals)) scope.push(tableSource(alias, this.schema.get(table)!));
        else {
          if (unionBranch) this.facts.unionForeign.push(db ? `${db}.${table}` : table);
          else this.issue('unknown_table', `table "${db ? `${db}.${table}` : table}" is not defined in schema_ddl`, { table });
          scope.push(opaque(alias));
        }
      } else if (f.expr) {
        // table-valued functions and VALUES lists: walk for nested references. Fed a credential
        // (`json_each(json_array(password_hash))`, `unnest(ARRAY[password_hash])`), any of their columns may return it
        const outerProbe = this.fed; // a subquery in another function's arguments probes its own
        this.fed = false;
        this.walkExpr(f.expr, scope, outer, ctes, depth, null, 'probe');
        scope.push(sourceOf(String(nameOf(f.as) ?? '').toLowerCase(), this.fed ? FED : OPAQUE));
        this.fed = outerProbe;
      }
    }
    const scopes = [scope, ...outer];
    for (const f of Array.isArray(s.from) ? s.from : []) {
      if (f.on) this.walkExpr(f.on, scope, outer, ctes, depth, null);
      for (const u of Array.isArray(f.using) ? f.using : []) this.column(null, String(nameOf(u)).toLowerCase(), scopes, null);
    }
    // USING and NATURAL joins return their shared columns once under *: positions are not known
    const merged = (Array.isArray(s.from) ? s.from : []).some((f: Node) => f.using || /natural/i.test(String(f.join ?? '')));
    const aliases = new Set<string>();
    const output = this.project(Array.isArray(s.columns) ? s.columns : [], scope, outer, ctes, depth, inExists, merged, aliases);
    for (const key of ['where', 'having', 'qualify']) if (s[key]) this.walkExpr(s[key], scope, outer, ctes, depth, aliases);
    const gb = s.groupby?.columns ?? s.groupby;
    for (const key of [gb, s.orderby, s.limit?.value]) if (key) this.walkExpr(key, scope, outer, ctes, depth, aliases);
    if (s.window) this.walkExpr(s.window, scope, outer, ctes, depth, aliases);
    return output;
  }

  /** A select list (or a RETURNING list): resolves and judges each item and returns the columns it makes. */
  private project(items: Node[], scope: Scope, outer: Scope[], ctes: Ctes, depth: number, inExists: boolean, merged: boolean, aliases: Set<string>): Output {
    const out = new Set<string>();
    const credentials = new Set<string>();
    let ordered: Column[] | null = merged ? null : [];
    let unknownOut = false;
    let hidden = false;
    for (const c of items) {
      const e = c?.expr ?? c;
      if (e?.type === 'column_ref' && nameOf(e.column) === '*') {
        const q = e.table ? String(nameOf(e.table)).toLowerCase() : null;
        for (const src of scope) {
          if (q && src.alias !== q) continue;
          const star = starColumns(src);
          if (star && ordered) ordered.push(...star);
          else ordered = null;
          if (!src.columns) unknownOut = true;
          if (src.hidden) hidden = true;
          for (const col of src.columns ?? []) out.add(col);
          for (const col of star?.filter((x) => x.credential && x.name).map((x) => x.name!) ?? src.credentials) {
            credentials.add(col);
            if (!inExists) this.facts.credentialReads.push(col);
          }
          if (src.hidden && !inExists) this.facts.credentialReads.push(`${src.alias || '(subquery)'}.*`);
        }
        if (q && !scope.some((x) => x.alias === q)) this.issue('unknown_table', `"${q}.*" names no table in scope`, { table: q });
        continue;
      }
      // an item reads a credential when walking it found one: a column, an expression over one, a scalar subquery returning one
      const before = this.facts.credentialReads.length;
      this.walkExpr(e, scope, outer, ctes, depth, null, true);
      const credential = this.facts.credentialReads.length > before;
      const alias = c?.as ? String(nameOf(c.as)).toLowerCase() : null;
      const name = alias ?? (e?.type === 'column_ref' ? String(nameOf(e.column)).toLowerCase() : null);
      if (alias) aliases.add(alias);
      if (name) out.add(name);
      if (name && credential) credentials.add(name);
      if (!name && credential) hidden = true;
      ordered?.push({ name, credential });
    }
    return { columns: unknownOut ? null : out, credentials, ordered, hidden };
  }

  private read(col: string, projected: true | 'probe'): void {
    if (projected === 'probe') this.fed = true;
    else this.facts.credentialReads.push(col);
  }

  /** Resolves a column reference (reporting an unknown one); true when it names a credential column of its source. */
  private column(table: string | null, col: string, scopes: Scope[], aliases: Set<string> | null): boolean {
    if (table) {
      for (const sc of scopes) {
        const src = sc.find((x) => x.alias === table);
        if (!src) continue;
        if (src.columns && !src.columns.has(col)) this.issue('unknown_column', `column "${table}.${col}" does not exist`, { table, column: col });
        return carries(src, col);
      }
      // a qualifier that names a real table not in scope is still an unknown reference
      this.issue('unknown_column', `"${table}.${col}" refers to a table that is not in scope`, { table, column: col });
      return false;
    }
    for (const sc of scopes) {
      // a name a known source has is that source's (were an opaque one to have it too, the name would be ambiguous, an error)
      const known = sc.filter((x) => x.columns?.has(col));
      const found = known.length ? known : sc.filter((x) => !x.columns);
      if (found.length) return found.some((x) => carries(x, col));
    }
    if (aliases?.has(col)) return false;
    this.issue('unknown_column', `column "${col}" does not exist in the tables in scope`, { column: col });
    // PostgreSQL reads a bare table alias as the whole row (`SELECT row_to_json(u) FROM users u`)
    const whole = scopes.find((sc) => sc.some((x) => x.alias === col))?.find((x) => x.alias === col);
    return whole ? whole.credentials.size > 0 || whole.hidden || (whole.columns ? [...whole.columns].some((c) => isCredentialColumn(c)) : false) : false;
  }

  /**
   * Walk an expression tree: resolve column refs, descend into subqueries. `projected`: the tree is
   * a select-list item, whose credential columns are reads; `'probe'`: only note in `fed` that it
   * holds one (a table-valued function's arguments).
   */
  walkExpr(e: unknown, scope: Scope, outer: Scope[], ctes: Ctes, depth: number, aliases: Set<string> | null, projected: boolean | 'probe' = false): void {
    if (!e || typeof e !== 'object') return;
    if (Array.isArray(e)) { for (const x of e) this.walkExpr(x, scope, outer, ctes, depth, aliases, projected); return; }
    const n = e as Node;
    if (n.ast && typeof n.ast === 'object' && !Array.isArray(n.ast)) { this.subquery(n.ast, scope, outer, ctes, depth); return; }
    if (n.type === 'select') { this.subquery(n, scope, outer, ctes, depth); return; }
    if (n.type === 'column_ref') {
      const col = nameOf(n.column);
      if (!col || col === '*') return;
      const table = n.table ? String(nameOf(n.table)).toLowerCase() : null;
      const credential = this.column(table, col.toLowerCase(), [scope, ...outer], aliases);
      if (projected && (credential || isCredentialColumn(col))) this.read(col.toLowerCase(), projected);
      return;
    }
    if (n.type === 'double_quote_string' && this.quotedColumns && projected) {
      const col = String(n.value).toLowerCase();
      const sc = [scope, ...outer].find((s) => s.some((x) => !x.columns || x.columns.has(col)));
      if (sc && (isCredentialColumn(String(n.value)) || sc.some((x) => (!x.columns || x.columns.has(col)) && carries(x, col)))) this.read(col, projected);
      return;
    }
    if (n.type === 'function' && String(nameOf(n.name?.name?.[0]) ?? '').toUpperCase() === 'EXISTS') {
      // some grammars (sqlite) return EXISTS as a function call: the subquery's rows are not projected
      const sub = n.args?.value?.[0]?.ast;
      if (sub?.type === 'select') { this.subquery(sub, scope, outer, ctes, depth, true); return; }
    }
    if (n.type === 'function' || n.type === 'aggr_func') {
      // the function's own name is not a column; its arguments and window are
      this.walkExpr(n.args, scope, outer, ctes, depth, aliases, projected);
      this.walkExpr(n.over, scope, outer, ctes, depth, aliases);
      return;
    }
    if (n.type === 'unary_expr' && String(n.operator).toUpperCase() === 'EXISTS') {
      const sub = n.expr?.ast ?? n.expr;
      if (sub?.type === 'select') { this.subquery(sub, scope, outer, ctes, depth, true); return; }
    }
    for (const k of Object.keys(n)) {
      if (k === 'tableList' || k === 'columnList' || k === 'type') continue;
      const v = n[k];
      if (v && typeof v === 'object') this.walkExpr(v, scope, outer, ctes, depth, aliases, projected);
    }
  }

  private subquery(ast: Node, scope: Scope, outer: Scope[], ctes: Ctes, depth: number, inExists = false) {
    if (ast.type === 'select') this.select(ast, [scope, ...outer], ctes, depth + 1, inExists);
  }

  /** Writes: resolve the target table and columns, then walk every nested SELECT. */
  write(s: Node): void {
    const targets = (Array.isArray(s.table) ? s.table : [s.table]).filter(Boolean);
    const scope: Scope = [];
    for (const t of targets) {
      const table = String(nameOf(t.table) ?? '').toLowerCase();
      if (!table) continue;
      this.facts.complexity.tables++;
      const quals = qualifiers(t);
      if (isCatalog(null, table) || quals.some((q) => isCatalog(q, table))) { this.facts.catalogReads.push(table); continue; }
      const known = foreignNamespace(quals) ? undefined : this.schema.get(table);
      if (!known) this.issue('unknown_table', `table "${table}" is not defined in schema_ddl`, { table });
      const alias = String(nameOf(t.as) ?? table).toLowerCase();
      scope.push(known ? tableSource(alias, known) : opaque(alias));
      if (t.table && table !== alias) scope.push(known ? tableSource(table, known) : opaque(table));
    }
    for (const c of Array.isArray(s.columns) ? s.columns : []) {
      const col = String(nameOf(c) ?? nameOf(c?.column) ?? '').toLowerCase();
      if (col && scope[0]?.columns && !scope[0].columns.has(col)) this.issue('unknown_column', `column "${col}" does not exist`, { column: col });
    }
    for (const set of Array.isArray(s.set) ? s.set : []) {
      const col = String(nameOf(set.column) ?? '').toLowerCase();
      if (col && scope[0]?.columns && !scope[0].columns.has(col)) this.issue('unknown_column', `column "${col}" does not exist`, { column: col });
      this.walkExpr(set.value, scope, [], new Map(), 0, null);
    }
    if (s.from) this.walkExpr(s.from, scope, [], new Map(), 0, null);
    if (s.where) this.walkExpr(s.where, scope, [], new Map(), 0, null);
    const values = s.values?.values ?? s.values;
    if (values?.type === 'select' || values?.ast) this.select(values.ast ?? values, [], new Map(), 1);
    else if (values) this.walkExpr(values, scope, [], new Map(), 0, null);
    if (s.select) this.select(s.select, [], new Map(), 1);
    // RETURNING hands back the rows written: its list is a projection like a SELECT's
    if (Array.isArray(s.returning?.columns)) this.project(s.returning.columns, scope, [], new Map(), 0, false, false, new Set());
  }
}

/**
 * The qualifiers of a table reference (`catalog.schema.table`, `db.table`), lower case. Grammars
 * put them in `db`, `schema` and `catalog`; the Snowflake one puts the database in both `db` and
 * `catalog`, and only `db` was read, so SNOWFLAKE.ACCOUNT_USAGE.USERS was the schema's users table.
 */
function qualifiers(f: Node): string[] {
  const out: string[] = [];
  for (const q of [f.catalog, f.db, f.schema]) {
    const v = nameOf(q);
    if (v && !out.includes(v.toLowerCase())) out.push(v.toLowerCase());
  }
  return out;
}

/** the namespaces an unqualified name resolves to by default; schema_ddl describes no other */
const DEFAULT_NAMESPACES = new Set(['public', 'main', 'dbo']);

/** another database or schema: `otherdb.users` is not the `users` schema_ddl defines */
function foreignNamespace(quals: string[]): boolean {
  return quals.some((q) => !DEFAULT_NAMESPACES.has(q));
}

/** `quotedColumns`: the dialect resolves a double-quoted string that names a column in scope as that column (SQLite). */
export function analyzeStatement(stmt: Node, index: number, schema: Schema, quotedColumns = false): Facts {
  const a = new Analyzer(schema, index, quotedColumns);
  if (stmt.type === 'select') a.select(stmt, [], new Map(), 0);
  else if (['insert', 'replace', 'update', 'delete'].includes(stmt.type)) a.write(stmt);
  return a.facts;
}

/**
 * The output of a view's body, walked as a query is against the schema (`quotedColumns` as for
 * analyzeStatement). Its facts are the view's, not a query's: only the output is kept.
 */
export function viewOutput(body: Node, schema: Schema, quotedColumns: boolean): Output {
  return new Analyzer(schema, 0, quotedColumns).select(body, [], new Map(), 0);
}
