import type { Table } from './schema-db.js';
import { isCredentialColumn } from './catalog.js';

/**
 * What a SELECT returns, with which of its columns carry a credential, so that a credential
 * renamed by an alias (`password_hash AS h`) or folded into an expression (`upper(password_hash)
 * AS h`) stays one when a CTE, a derived table or a view hands it on under the new name.
 */
export interface Column { name: string | null; credential: boolean }

export interface Output {
  /** lower-cased output names; null when a `*` expanded a source whose columns are not known */
  columns: Set<string> | null;
  /** output names that carry a credential */
  credentials: Set<string>;
  /** every output column in order, unnamed expressions included; null when the count is not known */
  ordered: Column[] | null;
  /** a credential is returned in a column no name reaches (an unnamed expression): `*` reads it */
  hidden: boolean;
}

/** a table reference in scope: a schema table or view, a CTE, a derived table, or an opaque source */
export interface Source extends Output { alias: string }

export const OPAQUE: Output = Object.freeze({ columns: null, credentials: new Set<string>(), ordered: null, hidden: false });

export function sourceOf(alias: string, o: Output): Source {
  return { alias, columns: o.columns, credentials: o.credentials, ordered: o.ordered, hidden: o.hidden };
}

export function tableSource(alias: string, t: Table): Source {
  return { alias, columns: t.columns, credentials: t.credentials, ordered: null, hidden: t.hidden === true };
}

/** the columns a `*` over this source returns, in order (null when not known); a credential name is one whatever it holds */
export function starColumns(src: Source): Column[] | null {
  if (src.ordered) return src.ordered.map((c) => (c.credential || !c.name || !isCredentialColumn(c.name) ? c : { name: c.name, credential: true }));
  if (!src.columns) return null;
  return [...src.columns].map((name) => ({ name, credential: src.credentials.has(name) || isCredentialColumn(name) }));
}

export function carriesCredential(o: Output): boolean {
  return o.credentials.size > 0 || o.hidden || (o.ordered?.some((c) => c.credential) ?? false);
}

/**
 * The output of a UNION/INTERSECT/EXCEPT chain: the first branch names the columns, and a
 * credential in column i of any branch is in column i of the result. When the branches' columns
 * cannot be lined up, a credential in any of them may be in any column.
 */
export function unionOf(outs: Output[]): Output {
  const head = outs[0];
  if (outs.length === 1) return head;
  const n = head.ordered?.length;
  if (head.ordered && outs.every((o) => o.ordered && o.ordered.length === n)) {
    const ordered = head.ordered.map((c, i) => ({ name: c.name, credential: outs.some((o) => o.ordered![i].credential) }));
    return {
      columns: head.columns,
      credentials: new Set([...head.credentials, ...ordered.filter((c) => c.credential && c.name).map((c) => c.name!)]),
      ordered,
      hidden: ordered.some((c) => c.credential && !c.name),
    };
  }
  if (!outs.some(carriesCredential)) return { ...head, ordered: null };
  return { columns: head.columns, credentials: new Set([...head.credentials, ...(head.columns ?? [])]), ordered: null, hidden: true };
}

/**
 * Columns renamed by a declared list (`WITH x(a, b) AS …`, `CREATE VIEW v(a, b) AS …`): by
 * position; when the positions are not known, every name carries a credential the body returns.
 */
export function renamed(names: string[], inner: Output): Output {
  const lower = names.map((n) => n.toLowerCase());
  const aligned = inner.ordered && inner.ordered.length === lower.length;
  const any = carriesCredential(inner);
  const ordered = lower.map((name, i) => ({ name, credential: aligned ? inner.ordered![i].credential : any }));
  return { columns: new Set(lower), credentials: new Set(ordered.filter((c) => c.credential).map((c) => c.name)), ordered, hidden: false };
}
