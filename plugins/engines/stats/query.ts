import type { ValidateFunction } from 'ajv';
import { compileSchema } from '../../../core/json/validate.js';
import { jsonDepth } from '../../../core/json/depth.js';
import type { Aggregate, Condition, Op, StatsQuery } from './evaluator.js';

/**
 * decisions §8: a statistics claim becomes a small declarative query, never code. Without a language
 * model the caller writes it: as JSON `{aggregate, column, filter?, group?}` or as a plain pattern
 * such as `mean of price where region = EU by year`. Either way it is validated with ajv against
 * the CSV's actual columns before anything runs.
 */

export const AGGREGATES: readonly Aggregate[] = ['count', 'sum', 'mean', 'min', 'max', 'median'];
export const OPS: readonly Op[] = ['=', '!=', '<', '<=', '>', '>='];
export const MAX_QUERY_CHARS = 4096;
export const MAX_CONDITIONS = 8;

const SYNONYMS: Record<string, Aggregate> = {
  count: 'count', sum: 'sum', total: 'sum', mean: 'mean', average: 'mean', avg: 'mean',
  min: 'min', minimum: 'min', max: 'max', maximum: 'max', median: 'median',
};
const OP_ALIASES: Record<string, Op> = { '=': '=', '==': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

export class QueryError extends Error {}

type Tok = { t: 'word' | 'quoted' | 'op'; v: string };

function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|'((?:[^']|'')*)'|`([^`]*)`|(<=|>=|!=|<>|==|=|<|>)|([^\s=!<>"'`]+))/y;
  let at = 0;
  while (at < s.length) {
    if (/^\s*$/.test(s.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(s);
    if (!m) throw new QueryError(`cannot read the query at character ${at}`);
    if (m[1] !== undefined) out.push({ t: 'quoted', v: m[1].replace(/""/g, '"') });
    else if (m[2] !== undefined) out.push({ t: 'quoted', v: m[2].replace(/''/g, "'") });
    else if (m[3] !== undefined) out.push({ t: 'quoted', v: m[3] });
    else if (m[4] !== undefined) out.push({ t: 'op', v: m[4] });
    else out.push({ t: 'word', v: m[5] });
    at = re.lastIndex;
  }
  return out;
}

/** `<aggregate> [of <column>] [where <col> <op> <value> (and …)*] [by|per|group by|grouped by <column>]` */
export function parsePattern(text: string): Record<string, unknown> {
  const toks = tokenize(text);
  let i = 0;
  const kw = (...words: string[]) => {
    const t = toks[i];
    if (t?.t === 'word' && words.includes(t.v.toLowerCase())) {
      i++;
      return true;
    }
    return false;
  };
  const name = (what: string): string => {
    const t = toks[i++];
    if (!t || t.t === 'op') throw new QueryError(`expected ${what}`);
    return t.v;
  };
  const first = toks[i++];
  const aggregate = first?.t === 'word' ? SYNONYMS[first.v.toLowerCase()] : undefined;
  if (!aggregate) throw new QueryError(`the query must start with one of: ${Object.keys(SYNONYMS).join(', ')}`);
  const q: Record<string, unknown> = { aggregate, column: '*' };
  if (kw('of')) {
    const c = name('a column');
    q.column = aggregate === 'count' && (c === '*' || c.toLowerCase() === 'rows') ? '*' : c;
  } else if (aggregate !== 'count') throw new QueryError(`${aggregate} needs "of <column>"`);
  if (kw('where')) {
    const filter: Condition[] = [];
    do {
      const column = name('a filter column');
      const op = toks[i++];
      if (op?.t !== 'op') throw new QueryError(`expected a comparison after ${column}`);
      filter.push({ column, op: OP_ALIASES[op.v], value: name('a filter value') });
    } while (kw('and'));
    q.filter = filter;
  }
  if (kw('by', 'per') || (kw('group', 'grouped') && kw('by'))) q.group = name('a group column');
  if (i !== toks.length) throw new QueryError(`unexpected ${JSON.stringify(toks[i].v)}`);
  return q;
}

/**
 * One schema, compiled once: the query's shape. Column names are checked against the CSV's header
 * with a Set afterwards — a schema built per request with the header as an enum made ajv compile
 * code that grew with the column count (10,000 columns held the event loop 1.4 s; issue 12, item 8).
 */
const COLUMN = { type: 'string', minLength: 1, maxLength: 4096 };
const QUERY_SCHEMA = {
  type: 'object',
  required: ['aggregate', 'column'],
  additionalProperties: false,
  properties: {
    aggregate: { enum: AGGREGATES },
    column: COLUMN,
    filter: {
      type: 'array',
      maxItems: MAX_CONDITIONS,
      items: {
        type: 'object',
        required: ['column', 'op', 'value'],
        additionalProperties: false,
        properties: { column: COLUMN, op: { enum: OPS }, value: { type: 'string', maxLength: 256 } },
      },
    },
    group: COLUMN,
  },
};

// runs in a worker thread, where no app exists: the kernel's factory, not app.validate. Compiled at
// the first query, not when the module loads: the main thread imports this module too, and a compile
// at import loaded ajv and compiled this schema cold in every sidecar start and CLI command
let compiledShape: ValidateFunction | undefined;
const queryShape = (): ValidateFunction => (compiledShape ??= compileSchema(QUERY_SCHEMA));
/** how many column names an error message lists */
const LISTED_COLUMNS = 20;

function columnList(columns: readonly string[]): string {
  const shown = columns.slice(0, LISTED_COLUMNS).join(', ');
  return columns.length > LISTED_COLUMNS ? `${shown}, … (${columns.length} in all)` : shown;
}

/** Resolves a column name: exact match first, else the one column equal to it ignoring case. */
function resolve(name: unknown, known: ReadonlySet<string>, byLower: ReadonlyMap<string, string[]>): unknown {
  if (typeof name !== 'string' || known.has(name) || name === '*') return name;
  const ci = byLower.get(name.toLowerCase());
  return ci && ci.length === 1 ? ci[0] : name;
}

/** Text (JSON or pattern) → a validated StatsQuery over `columns`; QueryError says why not. */
export function compileQuery(text: string, columns: string[]): StatsQuery {
  if (text.length > MAX_QUERY_CHARS) throw new QueryError(`the query is longer than ${MAX_QUERY_CHARS} characters`);
  let raw: unknown;
  if (text.trim().startsWith('{')) {
    // a query reached through a composite route (a string inside JSON) was not depth-scanned by the kernel
    if (jsonDepth(text, 8) > 8) throw new QueryError('the query nests deeper than a query can');
    try {
      raw = JSON.parse(text);
    } catch {
      throw new QueryError('the query looks like JSON but does not parse');
    }
  } else raw = parsePattern(text);
  const known = new Set(columns);
  const byLower = new Map<string, string[]>();
  for (const c of columns) {
    const k = c.toLowerCase();
    const list = byLower.get(k);
    if (list) list.push(c);
    else byLower.set(k, [c]);
  }
  const q = raw as Record<string, unknown>;
  if (q && typeof q === 'object' && !Array.isArray(q)) {
    if (q.filter && !Array.isArray(q.filter)) q.filter = [q.filter];
    q.column = resolve(q.column, known, byLower);
    if (q.group !== undefined) q.group = resolve(q.group, known, byLower);
    if (Array.isArray(q.filter)) for (const c of q.filter) if (c && typeof c === 'object') (c as Record<string, unknown>).column = resolve((c as Record<string, unknown>).column, known, byLower);
  }
  const errors: string[] = [];
  const validateShape = queryShape();
  if (!validateShape(q)) {
    for (const e of validateShape.errors ?? []) errors.push(`${e.instancePath || '/'} ${e.message}`);
  } else {
    const sq = q as unknown as StatsQuery;
    const unknownColumn = (path: string, name: string) => errors.push(`${path} must be one of the CSV's columns (columns: ${columnList(columns)}), not ${JSON.stringify(name.slice(0, 100))}`);
    // `*` (all rows) is meaningful only for count
    if (sq.column === '*' ? sq.aggregate !== 'count' : !known.has(sq.column)) {
      if (sq.column === '*') errors.push(`/column * applies only to count`);
      else unknownColumn('/column', sq.column);
    }
    (sq.filter ?? []).forEach((c, i) => {
      if (!known.has(c.column)) unknownColumn(`/filter/${i}/column`, c.column);
    });
    if (sq.group !== undefined && !known.has(sq.group)) unknownColumn('/group', sq.group);
  }
  if (errors.length) throw new QueryError(`invalid query: ${errors.slice(0, 5).join('; ')}`);
  return q as unknown as StatsQuery;
}
