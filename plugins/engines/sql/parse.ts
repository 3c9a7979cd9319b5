import { createRequire } from 'node:module';
import type { DialectInfo, ParserDatabase } from './dialects.js';
import { parserText } from './reading.js';

/** node-sql-parser AST nodes are plain JSON; we read them structurally. */
export type Node = Record<string, any>;

interface DialectParser { astify(sql: string, opt: { database: string }): unknown }

const require = createRequire(import.meta.url);
const parsers = new Map<ParserDatabase, DialectParser>();

/**
 * node-sql-parser's build for one dialect, loaded on first use: the package's main module holds
 * all fourteen grammars (≈ 70 ms of CPU to load in every thread that verifies SQL), one grammar
 * ≈ 10 ms. A build parses only its own dialect and refuses any other `database`.
 */
function parserFor(db: ParserDatabase): DialectParser {
  let p = parsers.get(db);
  if (!p) {
    const mod = require(`node-sql-parser/build/${db}`) as { Parser: new () => DialectParser };
    p = new mod.Parser();
    parsers.set(db, p);
  }
  return p;
}

export interface ParseOk { ok: true; statements: Node[] }
export interface ParseFail { ok: false; message: string; line?: number; column?: number; tooDeep?: true }

/** A JavaScript stack overflow: the text nests deeper than a recursive reader (parser or rule walk) can follow. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

export const TOO_DEEP = 'nesting too deep to read (parenthesised expressions, operators or subqueries)';

function failure(e: unknown): ParseFail {
  if (isStackOverflow(e)) return { ok: false, message: TOO_DEEP, tooDeep: true };
  const err = e as { message?: string; found?: unknown; location?: { start?: { line?: number; column?: number } } };
  const loc = err?.location?.start;
  // The generated parser's message lists every expected token; report where and what instead.
  const msg = loc
    ? `syntax error at line ${loc.line}, column ${loc.column}: unexpected ${err.found == null ? 'end of input' : JSON.stringify(String(err.found))}`
    : String(err?.message ?? 'parse error').split('\n')[0].slice(0, 200);
  return { ok: false, message: msg, line: loc?.line, column: loc?.column };
}

export function parseSql(sql: string, d: DialectInfo): ParseOk | ParseFail {
  try {
    const ast = parserFor(d.parserDb).astify(parserText(sql, d), { database: d.parserDb });
    const list = (Array.isArray(ast) ? ast : [ast]).filter((s): s is Node => !!s && typeof s === 'object');
    if (list.length === 0) return { ok: false, message: 'no statement' };
    return { ok: true, statements: list };
  } catch (e) {
    return failure(e);
  }
}

export function nameOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const o = v as Node;
    if (o.expr && typeof o.expr === 'object') return nameOf(o.expr.value ?? o.expr);
    if (typeof o.value === 'string') return o.value;
  }
  return null;
}
