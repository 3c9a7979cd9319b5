/**
 * Request dialect names → node-sql-parser `database` names, plus the lexical facts the token
 * scanner needs (which quotes escape with a backslash, whether `#` starts a comment). The map is
 * explicit so an unknown name is refused instead of silently parsed as some other dialect.
 */
export type ParserDatabase = 'sqlite' | 'postgresql' | 'mysql' | 'mariadb' | 'bigquery' | 'transactsql' | 'snowflake';

export interface DialectInfo {
  /** canonical name used in evidence and responses */
  name: ParserDatabase;
  parserDb: ParserDatabase;
  /** MySQL-family strings treat `\` as an escape character */
  backslashEscapes: boolean;
  /** `#` starts a line comment (MySQL family, BigQuery) */
  hashComments: boolean;
  /** `$tag$ … $tag$` strings (PostgreSQL, Snowflake) */
  dollarQuotes: boolean;
  /** `[ident]` quoting (T-SQL, SQLite) */
  bracketIdents: boolean;
  /** `--` starts a comment only before whitespace, a control character or the end (MySQL, MariaDB) */
  dashCommentNeedsSpace: boolean;
  /** `/* /* *\/ *\/` nests: a block comment ends at its matching `*\/` (PostgreSQL, SQL Server) */
  nestedComments: boolean;
}

const INFO: Record<ParserDatabase, DialectInfo> = {
  sqlite: { name: 'sqlite', parserDb: 'sqlite', backslashEscapes: false, hashComments: false, dollarQuotes: false, bracketIdents: true, dashCommentNeedsSpace: false, nestedComments: false },
  postgresql: { name: 'postgresql', parserDb: 'postgresql', backslashEscapes: false, hashComments: false, dollarQuotes: true, bracketIdents: false, dashCommentNeedsSpace: false, nestedComments: true },
  mysql: { name: 'mysql', parserDb: 'mysql', backslashEscapes: true, hashComments: true, dollarQuotes: false, bracketIdents: false, dashCommentNeedsSpace: true, nestedComments: false },
  mariadb: { name: 'mariadb', parserDb: 'mariadb', backslashEscapes: true, hashComments: true, dollarQuotes: false, bracketIdents: false, dashCommentNeedsSpace: true, nestedComments: false },
  bigquery: { name: 'bigquery', parserDb: 'bigquery', backslashEscapes: true, hashComments: true, dollarQuotes: false, bracketIdents: false, dashCommentNeedsSpace: false, nestedComments: false },
  transactsql: { name: 'transactsql', parserDb: 'transactsql', backslashEscapes: false, hashComments: false, dollarQuotes: false, bracketIdents: true, dashCommentNeedsSpace: false, nestedComments: true },
  snowflake: { name: 'snowflake', parserDb: 'snowflake', backslashEscapes: true, hashComments: false, dollarQuotes: true, bracketIdents: false, dashCommentNeedsSpace: false, nestedComments: false },
};

const ALIASES: Record<string, ParserDatabase> = {
  sqlite: 'sqlite', sqlite3: 'sqlite',
  postgresql: 'postgresql', postgres: 'postgresql', pg: 'postgresql', psql: 'postgresql',
  mysql: 'mysql',
  mariadb: 'mariadb',
  bigquery: 'bigquery',
  transactsql: 'transactsql', tsql: 'transactsql', mssql: 'transactsql', sqlserver: 'transactsql',
  snowflake: 'snowflake',
};

export const DIALECT_NAMES = Object.freeze(Object.keys(ALIASES));

/** null when the name is not one we map (the route answers 400). */
export function resolveDialect(raw: string | undefined): DialectInfo | null {
  const key = (raw ?? 'sqlite').trim().toLowerCase().replace(/[\s_-]/g, '');
  const db = ALIASES[key];
  return db ? INFO[db] : null;
}
