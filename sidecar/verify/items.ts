import { extname } from 'node:path';

/**
 * What `proofgate verify` sends for each file, and how an answer becomes findings with locations.
 * One place decides admission for all three kinds, and it fails closed: only an answer that says
 * ADMIT (code, SQL) or a claim proven true (math) is admitted.
 */
export type Kind = 'code' | 'sql' | 'math';

export interface Item {
  file: string;
  /** 1-based line the request came from (math: one expression per line) */
  line: number;
  kind: Kind;
  body: Record<string, unknown>;
}

export interface Finding {
  ruleId: string;
  /** CRITICAL | HIGH | MEDIUM | LOW, or ERROR for an answer that reached no verdict */
  severity: string;
  message: string;
  line: number;
  column: number;
  /** a flow rule's CWE */
  cwe?: number;
  /** a flow's lines: the source first, then each step, the sink last */
  path?: number[];
}

export interface Outcome {
  item: Item;
  answer: Record<string, unknown>;
  admitted: boolean;
  findings: Finding[];
}

export const LANGUAGES: Record<string, string> = {
  '.py': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'typescript',
};

export function languageOf(file: string, given?: string): string | null {
  return given ?? LANGUAGES[extname(file).toLowerCase()] ?? null;
}

export interface ItemOptions {
  language?: string;
  schemaDdl?: string;
  dialect?: string;
  allowWrites?: boolean;
}

export function itemsOf(kind: Kind, file: string, text: string, o: ItemOptions): Item[] {
  if (kind === 'code') {
    const language = languageOf(file, o.language);
    if (!language) throw new UsageError(`${file}: cannot tell the language from the extension; pass --language`);
    return [{ file, line: 1, kind, body: { code: text, language } }];
  }
  if (kind === 'sql') {
    if (!o.schemaDdl) throw new UsageError('verify sql needs --schema FILE (the CREATE statements the query runs against)');
    return [{ file, line: 1, kind, body: { query: text, schema_ddl: o.schemaDdl, ...(o.dialect ? { dialect: o.dialect } : {}), ...(o.allowWrites ? { allow_writes: true } : {}) } }];
  }
  // math: one expression or equation per line; blank lines and # comments are skipped
  const out: Item[] = [];
  text.split('\n').forEach((raw, i) => {
    const expr = raw.trim();
    if (expr && !expr.startsWith('#')) out.push({ file, line: i + 1, kind, body: { expression: expr } });
  });
  return out;
}

export class UsageError extends Error {}

/** 1-based line and column of a character offset into `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - nl };
}

/**
 * 1-based line where statement `n` (0-based) starts: past `n` top-level `;` outside quotes and
 * comments, then past the blanks and comments before its first token (a statement after a `;` on
 * line 1 and two blank lines starts on line 4, not where the `;` is).
 */
export function statementLine(sql: string, n: number): number {
  let line = 1;
  let count = 0;
  let q: string | null = null;
  let i = 0;
  for (; i < sql.length && count < n; i++) {
    const c = sql[i];
    if (c === '\n') line++;
    if (q) {
      if (c === q) q = null;
      else if (q === '\n' && c === '\n') q = null;
      else if (q === '*/' && c === '*' && sql[i + 1] === '/') {
        q = null;
        i++;
      }
      continue;
    }
    if (c === "'" || c === '"' || c === '`') q = c;
    else if (c === '-' && sql[i + 1] === '-') q = '\n';
    else if (c === '/' && sql[i + 1] === '*') q = '*/';
    else if (c === ';') count++;
  }
  while (i < sql.length) {
    const c = sql[i];
    const end = c === '-' && sql[i + 1] === '-' ? sql.indexOf('\n', i) : c === '/' && sql[i + 1] === '*' ? sql.indexOf('*/', i + 2) + 2 : /\s/.test(c) ? i + 1 : i;
    if (end <= i) break; // a token, or a comment that runs to the end
    line += sql.slice(i, end).split('\n').length - 1;
    i = end;
  }
  return line;
}

const df = (a: Record<string, unknown>) => (a.developer_fields ?? {}) as Record<string, unknown>;

function noVerdict(item: Item, a: Record<string, unknown>): Finding {
  const pe = df(a).parse_error as { line?: number; column?: number } | undefined;
  return {
    ruleId: String(df(a).constraint_id ?? a.constraint_id ?? `${item.kind}.unverified`),
    severity: 'ERROR',
    message: String(a.agent_message ?? 'no verdict was reached'),
    line: item.line + Math.max(0, (pe?.line ?? 1) - 1),
    column: pe?.column ?? 1,
  };
}

export function judge(item: Item, a: Record<string, unknown>): Outcome {
  const findings: Finding[] = [];
  let admitted: boolean;
  if (item.kind === 'code') {
    admitted = a.status === 'VERIFIED' && a.admission === 'ADMIT';
    for (const v of (a.vulnerabilities ?? []) as Array<Record<string, unknown>>) {
      const flow = flowOf(v);
      findings.push({ ruleId: String(v.rule_id), severity: String(v.severity), message: String(v.message), line: Number(v.line) || 1, column: Number(v.column) || 1, ...flow });
    }
    if (a.status !== 'VERIFIED') findings.push(noVerdict(item, a));
  } else if (item.kind === 'sql') {
    admitted = a.status === 'VERIFIED' && a.admission === 'ADMIT';
    const query = String(item.body.query);
    for (const i of (df(a).issues ?? []) as Array<{ rule: string; message: string; location?: { statement?: number; offset?: number } }>) {
      // token-level issues carry the offset of what they flag; the others name their statement
      const off = i.location?.offset;
      const at = Number.isInteger(off) && off! >= 0 && off! <= query.length ? lineColumnAt(query, off!) : { line: statementLine(query, i.location?.statement ?? 0), column: 1 };
      findings.push({ ruleId: i.rule, severity: a.malicious_classification ? 'CRITICAL' : 'HIGH', message: i.message, ...at });
    }
    if (a.status !== 'VERIFIED' || (!admitted && !findings.length)) findings.push(noVerdict(item, a));
  } else {
    // a claim proven true is admitted; a claim proven false, or a bare value (nothing claimed), is not
    admitted = a.status === 'VERIFIED' && df(a).is_valid === true;
    if (!admitted) {
      const proven = a.status === 'VERIFIED';
      findings.push({
        ruleId: String(df(a).constraint_id ?? (proven ? 'math.claim_false' : 'math.unverified')),
        severity: proven ? 'HIGH' : 'ERROR',
        message: String(a.agent_message ?? ''),
        line: item.line,
        column: 1,
      });
    }
  }
  return { item, answer: a, admitted, findings };
}

/** The CWE and flow path of a code finding, kept only when well formed (the answer is a peer's JSON). */
function flowOf(v: Record<string, unknown>): { cwe?: number; path?: number[] } {
  const out: { cwe?: number; path?: number[] } = {};
  if (Number.isInteger(v.cwe) && (v.cwe as number) > 0) out.cwe = v.cwe as number;
  if (Array.isArray(v.path) && v.path.length > 0 && v.path.length <= 64 && v.path.every((l) => Number.isInteger(l) && l > 0)) out.path = v.path as number[];
  return out;
}
