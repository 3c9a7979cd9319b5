import type { DialectInfo } from './dialects.js';
import { nameOf, parseSql, type Node } from './parse.js';
import { alwaysTrue, decidedNotTrue, hasColumnRef, logicalOp, rowIndependent, withDialect } from './consteval.js';
import { DANGEROUS_FUNCTIONS } from './catalog.js';
import { statementsOf, type Token } from './tokens.js';
import type { Issue } from './schema-check.js';

/** Statement kinds, from node-sql-parser's `type`. Only `select` is a read. */
const WRITES = new Set(['insert', 'replace', 'update', 'delete']);
const DDL = new Set(['create', 'drop', 'alter', 'truncate', 'rename']);
const DCL = new Set(['grant', 'revoke']);
/** with allow_writes these stay blocked: they destroy data, change rights or reach outside the database */
const NEVER = new Set(['drop', 'truncate', 'grant', 'revoke', 'rename']);

function kindRule(type: string): string {
  if (WRITES.has(type)) return 'write_statement';
  if (DDL.has(type)) return 'ddl_statement';
  if (DCL.has(type)) return 'dcl_statement';
  return 'admin_statement';
}

/**
 * Rules proven on the parse tree: every node is visited (the walk is generic over the AST, so a
 * write inside a CTE, a function in a subquery or an OR in a JOIN condition cannot hide).
 */
export function treeRules(statements: Node[], allowWrites: boolean, d: DialectInfo): Issue[] {
  return withDialect(d.name, () => walkRules(statements, allowWrites, d.name === 'mysql' || d.name === 'mariadb'));
}

/** Statement kinds that are not reads; every one is reported unless allow_writes admits it. */
const NOT_READ = new Set([...WRITES, ...DDL, ...DCL, 'attach', 'detach', 'pragma', 'set', 'use', 'exec', 'execute', 'call', 'load_data', 'lock', 'unlock', 'transaction', 'vacuum']);
const FILTERS = ['where', 'having', 'on'] as const;

/**
 * One generic walk per statement decides every tree rule. The AST path of a finding is kept as a
 * stack of keys and only joined into a string when a finding is reported, so the walk allocates
 * nothing per node.
 */
function walkRules(statements: Node[], allowWrites: boolean, serverVars: boolean): Issue[] {
  const issues: Issue[] = [];
  // a detail may be given as a function: its AST path is joined only for an issue not already reported
  // (every operand of a 4,000-term OR chain repeats the first one's issue)
  const add = (statement: number, rule: string, message: string, detail?: Record<string, unknown> | (() => Record<string, unknown>)) => {
    if (!issues.some((i) => i.statement === statement && i.rule === rule && i.message === message)) {
      const d = typeof detail === 'function' ? detail() : detail;
      issues.push({ rule, message, statement, ...(d ? { detail: d } : {}) });
    }
  };
  if (statements.length > 1) {
    add(1, 'stacked_statements', `${statements.length} statements where one is allowed`, { statements: statements.length });
  }
  statements.forEach((root, idx) => {
    const rootType = String(root.type ?? '').toLowerCase();
    const keys: Array<string | number> = [];
    const pathOf = (...more: string[]): string => {
      let p = `$[${idx}]`;
      for (const k of keys) p += typeof k === 'number' ? `[${k}]` : `.${k}`;
      for (const k of more) p += `.${k}`;
      return p;
    };
    const visit = (n: unknown, isRoot: boolean): void => {
      if (!n || typeof n !== 'object') return;
      if (Array.isArray(n)) {
        for (let i = 0; i < n.length; i++) { keys.push(i); visit(n[i], false); keys.pop(); }
        return;
      }
      const o = n as Node;
      const type = typeof o.type === 'string' ? o.type.toLowerCase() : '';
      // only a SELECT reads: a root of any other kind (SHOW GRANTS, DESCRIBE, EXPLAIN …) is not one
      if (type && (NOT_READ.has(type) || (isRoot && type !== 'select'))) {
        const where = isRoot ? '' : ' nested inside the query';
        const unbounded = (type === 'delete' || type === 'update') && (!o.where || alwaysTrue(o.where) || (rowIndependent(o.where) && !decidedNotTrue(o.where)));
        // parts of a non-SELECT root (ALTER's action list, INSERT's SELECT) are judged with the root
        const partOfRoot = !isRoot && rootType !== 'select';
        if (partOfRoot) { /* judged with the root */ } else if (!allowWrites || NEVER.has(type) || !(WRITES.has(type) || type === 'create' || type === 'alter') || unbounded || !isRoot) {
          const rule = !isRoot ? 'nested_write' : unbounded ? 'unbounded_write' : kindRule(type);
          add(idx, rule, `${type.toUpperCase()} statement${where}${unbounded ? ' without a row-limiting WHERE' : ''}`, () => ({ path: pathOf() }));
        }
      }
      if (type === 'function' || type === 'aggr_func') {
        const parts = Array.isArray(o.name?.name) ? o.name.name.map((p: unknown) => nameOf(p)) : [nameOf(o.name)];
        const fn = String(parts[parts.length - 1] ?? '').toLowerCase();
        if (DANGEROUS_FUNCTIONS.has(fn)) add(idx, 'dangerous_function', `call to ${fn}()`, () => ({ function: fn, path: pathOf() }));
        // SQLite's table-valued pragma_* functions are its PRAGMA statements: schema and database state
        if (fn.startsWith('pragma_')) add(idx, 'system_catalog', `reads ${fn}`, () => ({ table: fn, path: pathOf() }));
      }
      // MySQL's @@variables are server settings: the function-free form of current_setting()
      if (serverVars && type === 'var' && o.prefix === '@@') {
        const v = [o.name, ...(Array.isArray(o.members) ? o.members : [])].map(String).join('.');
        add(idx, 'system_catalog', `reads server variable @@${v}`, () => ({ variable: v, path: pathOf() }));
      }
      if (type === 'binary_expr' && logicalOp(o.operator) === 'OR') {
        for (const side of ['left', 'right'] as const) {
          if (alwaysTrue(o[side])) add(idx, 'tautology', 'an OR branch is true for every row', () => ({ path: pathOf(side) }));
          else if (rowIndependent(o[side]) && !decidedNotTrue(o[side])) add(idx, 'tautology', 'an OR branch does not depend on the row: it is true for every row or for none', () => ({ path: pathOf(side) }));
        }
      }
      // a filter that mentions columns yet is true for every row (`NOT (id = 1 AND 1=0)`, `id = id`);
      // a column-free `WHERE 1=1` is a query-builder prefix, not an injection
      for (const key of FILTERS) {
        const f = o[key];
        if (f && typeof f === 'object' && alwaysTrue(f) && hasColumnRef(f)) {
          add(idx, 'tautology', `the ${key.toUpperCase()} condition is true for every row`, () => ({ path: pathOf(key) }));
        }
      }
      if (o.into && typeof o.into === 'object' && (o.into.expr || o.into.keyword)) {
        const kw = String(o.into.keyword ?? 'table').toUpperCase();
        add(idx, kw === 'OUTFILE' || kw === 'DUMPFILE' ? 'file_write' : 'select_into', `SELECT INTO ${kw}`, () => ({ path: pathOf() }));
      }
      for (const k of Object.keys(o)) {
        if (k === 'tableList' || k === 'columnList') continue;
        const v = o[k];
        if (v && typeof v === 'object') { keys.push(k); visit(v, false); keys.pop(); }
      }
    };
    visit(root, true);
  });
  return issues;
}

function body(c: Token): string {
  if (c.style === 'line') return c.text.replace(/^(--|#)/, '');
  return c.text.replace(/^\/\*/, '').replace(/\*\/$/, '');
}

/**
 * Comment rules, decided on lexer tokens (comments outside literals only). A trailing note is
 * fine; a comment is truncation when
 *  - its body starts with a quote: it swallowed the closing quote of a literal (`'admin'--'…`),
 *  - its body starts with AND and removing the comment marker still parses: it cut off a
 *    restricting predicate (`WHERE id = 1 -- AND owner = 5`). A commented-out OR branch
 *    (`WHERE id = 1 -- OR 1=1`) only narrows what the query reads: it is a note, not an attack, and
 *    its text is never read as a tautology (tautologies come from the parse tree only),
 *  - a block comment is never closed (SQLite ignores the rest of the input),
 * and MySQL `/*! … *\/` (MariaDB `/*M! … *\/`) comments are executed by the server although a parser skips them.
 */
export function commentRules(sql: string, tokens: Token[], d: DialectInfo): Issue[] {
  const issues: Issue[] = [];
  for (const c of tokens) {
    if (c.kind !== 'comment') continue;
    const text = body(c);
    const trimmed = text.trimStart();
    const at = { offset: c.start };
    // MariaDB also runs `/*M! … */` and `/*M!100100 … */`; a server behind a mysql dialect may be MariaDB
    if (c.style === 'block' && (text.startsWith('!') || /^[Mm]!/.test(text))) {
      issues.push({ rule: 'executable_comment', message: `${text[0] === '!' ? 'MySQL' : 'MariaDB'} executable comment /*${text[0] === '!' ? '' : 'M'}! … */`, statement: 0, detail: at });
    } else if (/^['"`]/.test(trimmed)) {
      issues.push({ rule: 'comment_truncation', message: 'a comment swallows the closing quote of a string literal', statement: 0, detail: at });
    } else if (c.style === 'block' && !c.terminated && trimmed.length > 0) {
      issues.push({ rule: 'comment_truncation', message: 'an unterminated block comment hides the rest of the query', statement: 0, detail: at });
    } else if (/^and\b/i.test(trimmed) || /^&&/.test(trimmed)) {
      const marker = c.style === 'line' ? c.text.length - text.length : 2;
      const uncommented = sql.slice(0, c.start) + ' ' + sql.slice(c.start + marker, c.style === 'block' && c.terminated ? c.end - 2 : c.end) + ' ' + sql.slice(c.end);
      if (parseSql(uncommented, d).ok) {
        issues.push({ rule: 'comment_truncation', message: 'a comment cuts off a predicate', statement: 0, detail: at });
      }
    }
  }
  return issues;
}

const LEAD_ADMIN = new Set(['PRAGMA', 'ATTACH', 'DETACH', 'VACUUM', 'REINDEX', 'ANALYZE', 'GRANT', 'REVOKE', 'EXEC', 'EXECUTE', 'CALL', 'SET', 'USE', 'LOAD', 'COPY', 'SHUTDOWN', 'KILL', 'DBCC', 'BACKUP', 'RESTORE']);
const LEAD_WRITE = new Set(['INSERT', 'REPLACE', 'UPDATE', 'DELETE', 'MERGE', 'UPSERT', 'CREATE', 'DROP', 'ALTER', 'TRUNCATE', 'RENAME']);

/**
 * When the dialect grammar rejects the query, the statement kind is still fixed by SQL's grammar:
 * the keyword that opens a statement, or that opens a parenthesised sub-statement, is not
 * something a literal or an expression can start with. A write or admin keyword in such a
 * position is reported; anything else stays a parse error.
 */
export function fallbackRules(tokens: Token[]): Issue[] {
  const issues: Issue[] = [];
  // stacked statements are the parser's word only: without a tree the text stays a parse error
  const stmts = statementsOf(tokens);
  stmts.forEach((st, idx) => {
    st.forEach((t, i) => {
      if (t.kind !== 'word') return;
      const kw = t.text.toUpperCase();
      const lead = i === 0;
      const afterParen = i > 0 && st[i - 1].kind === 'punct' && st[i - 1].text === '(';
      if (!lead && !afterParen) return;
      if (LEAD_ADMIN.has(kw) && lead) issues.push({ rule: 'admin_statement', message: `${kw} statement`, statement: idx, detail: { offset: t.start, decided_on: 'tokens' } });
      else if (LEAD_WRITE.has(kw)) issues.push({ rule: lead ? (kw === 'CREATE' || kw === 'DROP' || kw === 'ALTER' || kw === 'TRUNCATE' ? 'ddl_statement' : 'write_statement') : 'nested_write', message: `${kw} statement${lead ? '' : ' nested inside the query'}`, statement: idx, detail: { offset: t.start, decided_on: 'tokens' } });
    });
  });
  return issues;
}
