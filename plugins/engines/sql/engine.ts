import { blocked, verified, type DiagnosticResult } from '../../../core/verdict.js';
import type { SqlVerifyRequest } from '../../../schemas/gen/index.js';
import { resolveDialect, type DialectInfo } from './dialects.js';
import { isStackOverflow, parseSql, TOO_DEEP, type Node } from './parse.js';
import { clearSchemaCache, parseSchema, type SchemaResult } from './schema-read.js';

type SchemaOk = Extract<SchemaResult, { ok: true }>;
import { mayHoldComment, tokenize } from './tokens.js';
import { commentRules, fallbackRules, treeRules } from './rules.js';
import { analyzeStatement, type Facts, type Issue } from './schema-check.js';
import { dryRun } from './dryrun.js';
import { clearDatabases } from './schema-db.js';
import { sqlJs } from './sqljs.js';
import { misreadXor } from './reading.js';
import { ENGINE_NAME, ENGINE_VERSION, LIMITS } from './meta.js';

/** Runs inside a worker thread: plain JSON in, a DiagnosticResult out. */
export { ENGINE_NAME, ENGINE_VERSION, LIMITS };

/** POST /verify/sql's body (dialect resolved to its canonical name by the caller): schemas/sql/verify.request.json, generated (schemas/gen/sql.gen.ts) */
export type SqlInput = SqlVerifyRequest;

const C = {
  parse: 'sql_verifier.parse_error',
  schema: 'sql_verifier.schema_parse_error',
  complexity: 'sql_verifier.complexity_limit_exceeded',
  execution: 'sql_verifier.execution_error',
} as const;

function publicIssue(i: Issue) {
  const { rule, message, statement, detail } = i;
  return { rule, message, location: { statement, ...(detail ?? {}) } };
}

function result(d: DialectInfo, input: SqlInput, schemaSha256: string, allowWrites: boolean, fields: Record<string, unknown>, admit: boolean, message: string): DiagnosticResult {
  const evidence = {
    engine: ENGINE_NAME,
    engine_version: ENGINE_VERSION,
    input: { dialect: d.name, query: input.query, schema_sha256: schemaSha256 },
    parameters: { allow_writes: allowWrites },
    result: {
      is_valid: fields.is_valid,
      malicious_classification: fields.malicious_classification,
      rules: (fields.issues as Array<{ rule: string }>).map((i) => i.rule),
      complexity: fields.complexity ?? null,
    },
  };
  return verified(message, fields, evidence, admit ? 'ADMIT' : 'BLOCKED');
}

/** Drops the per-worker schema and database caches (the bench calls it between passes). */
export function clearCaches(): void {
  clearSchemaCache();
  clearDatabases();
}

/** Warm-up hook for the worker: initialise sql.js once per thread. */
export async function warm(): Promise<boolean> {
  await sqlJs();
  return true;
}

export async function verify(input: SqlInput): Promise<DiagnosticResult> {
  const allowWrites = input.allow_writes === true;
  const d = resolveDialect(input.dialect);
  const base = { dialect: input.dialect ?? 'sqlite', is_valid: false, malicious_classification: false };
  if (!d) return blocked(`unsupported dialect "${String(input.dialect)}"`, C.parse, base, 'BLOCKED');
  const common = { ...base, dialect: d.name, allow_writes: allowWrites };
  if (typeof input.query !== 'string' || typeof input.schema_ddl !== 'string') {
    return blocked('query and schema_ddl must be strings', C.parse, common, 'BLOCKED');
  }
  if (input.query.length > LIMITS.query_chars || input.schema_ddl.length > LIMITS.schema_ddl_chars) {
    return blocked('query or schema_ddl exceeds the size limit', C.complexity, {
      ...common, measured: { query_chars: input.query.length, schema_ddl_chars: input.schema_ddl.length }, limits: LIMITS,
    }, 'BLOCKED');
  }
  if (!input.query.trim()) return blocked('query is empty', C.parse, common, 'BLOCKED');

  const schema = await parseSchema(input.schema_ddl, d);
  if (!schema.ok) return blocked(`schema_ddl could not be parsed: ${schema.message}`, C.schema, { ...common, error: schema.message }, 'BLOCKED');
  const fields0 = { ...common, schema_source: schema.source, schema_tables: schema.schema.size };

  const parsed = parseSql(input.query, d);
  if (!parsed.ok) {
    const tokens = tokenize(input.query, d);
    // The grammar rejected the text; a write/admin keyword in statement position still proves intent.
    const fb = [...fallbackRules(tokens), ...commentRules(input.query, tokens, d)];
    const parseError = { message: parsed.message, line: parsed.line, column: parsed.column };
    if (fb.length) {
      const issues = fb.map(publicIssue);
      return result(d, input, schema.sha256, allowWrites, { ...fields0, malicious_classification: true, issues, parse_error: parseError, decided_on: 'tokens' }, false,
        `malicious SQL: ${[...new Set(fb.map((i) => i.rule))].join(', ')}`);
    }
    // a nesting depth the parser cannot follow is a cost limit, not a syntax error
    if (parsed.tooDeep) return tooDeep(fields0);
    return blocked(`query could not be parsed: ${parsed.message}`, C.parse, { ...fields0, error: parsed.message, location: { line: parsed.line, column: parsed.column } }, 'BLOCKED');
  }
  try {
    return await judge(input, d, schema, fields0, parsed.statements, allowWrites);
  } catch (e) {
    // the rule and schema walks recurse over the tree: a tree the parser built deeper than they can follow proves nothing
    if (isStackOverflow(e)) return tooDeep(fields0);
    throw e;
  }
}

function tooDeep(fields: Record<string, unknown>): DiagnosticResult {
  return blocked(`query exceeds complexity limits: ${TOO_DEEP}`, C.complexity, { ...fields, error: TOO_DEEP, exceeded: ['nesting_depth'] }, 'BLOCKED');
}

/** The verdict on a parsed query: rules, complexity, schema resolution, dry run. */
async function judge(input: SqlInput, d: DialectInfo, schema: SchemaOk, fields0: Record<string, unknown>, stmts: Node[], allowWrites: boolean): Promise<DiagnosticResult> {
  if (misreadXor(stmts, d)) {
    const message = 'XOR without parentheses next to a comparison, AND or NOT: the parser groups it unlike MySQL; parenthesise its operands';
    return blocked(`query could not be read as ${d.name} reads it: ${message}`, C.parse, { ...fields0, error: message }, 'BLOCKED');
  }
  const facts: Facts[] = stmts.map((s, i) => analyzeStatement(s, i, schema.schema, d.name === 'sqlite'));
  // the lexer only matters here for its comments, and without a comment marker in the text it has none
  const comments = mayHoldComment(input.query, d) ? commentRules(input.query, tokenize(input.query, d), d) : [];
  const malicious: Issue[] = [...treeRules(stmts, allowWrites, d), ...comments];
  facts.forEach((f, i) => {
    for (const t of new Set(f.catalogReads)) malicious.push({ rule: 'system_catalog', message: `reads system catalog ${t}`, statement: i, detail: { table: t } });
    for (const t of new Set(f.unionForeign)) malicious.push({ rule: 'union_exfiltration', message: `UNION branch reads "${t}", which is not in the schema`, statement: i, detail: { table: t } });
    for (const c of new Set(f.credentialReads)) malicious.push({ rule: 'credential_read', message: `projects credential column ${c}`, statement: i, detail: { column: c } });
  });
  const complexity = facts.reduce((acc, f) => ({
    tables: acc.tables + f.complexity.tables,
    joins: acc.joins + f.complexity.joins,
    subquery_depth: Math.max(acc.subquery_depth, f.complexity.subquery_depth),
    set_operations: acc.set_operations + f.complexity.set_operations,
  }), { tables: 0, joins: 0, subquery_depth: 0, set_operations: 0 });
  const fields = { ...fields0, statement_count: stmts.length, complexity };

  if (malicious.length) {
    const issues = malicious.map(publicIssue);
    return result(d, input, schema.sha256, allowWrites, { ...fields, malicious_classification: true, issues }, false,
      `malicious SQL: ${[...new Set(malicious.map((i) => i.rule))].join(', ')}`);
  }
  const over = (Object.keys(complexity) as Array<keyof typeof complexity>).filter((k) => complexity[k] > LIMITS[k]);
  if (over.length) {
    return blocked(`query exceeds complexity limits (${over.join(', ')})`, C.complexity, { ...fields, measured: complexity, limits: LIMITS, exceeded: over }, 'BLOCKED');
  }
  const invalid = facts.flatMap((f) => f.issues);
  if (invalid.length) {
    const issues = invalid.map(publicIssue);
    return result(d, input, schema.sha256, allowWrites, { ...fields, issues }, false, `query does not match the schema: ${issues[0].message}`);
  }
  let dry: Record<string, unknown> = { performed: false, reason: 'dry run is available for the sqlite dialect only' };
  if (d.name === 'sqlite') {
    const r = await dryRun(input.schema_ddl, input.query);
    if (!r.ok) return blocked(`SQLite rejected the query: ${r.message}`, C.execution, { ...fields, error: r.message }, 'BLOCKED');
    dry = { performed: true, mode: 'EXPLAIN QUERY PLAN', plan: r.plan };
  }
  return result(d, input, schema.sha256, allowWrites, { ...fields, is_valid: true, issues: [], dry_run: dry }, true, 'query is valid against the schema and no malicious construct was found');
}
