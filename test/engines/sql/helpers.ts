import { verify, type SqlInput } from '../../../plugins/engines/sql/engine.js';

export const SHOP =
  'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, created_at TEXT, password_hash TEXT);\n' +
  'CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), total REAL, status TEXT, created_at TEXT);\n' +
  'CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, price REAL, category TEXT);';

export type Verdict = 'clean' | 'malicious' | 'invalid' | 'blocked';

export async function run(query: string, extra: Partial<SqlInput> = {}) {
  const r = await verify({ query, schema_ddl: SHOP, ...extra });
  const f = r.developer_fields as Record<string, any>;
  const verdict: Verdict = r.status !== 'VERIFIED' ? 'blocked' : f.malicious_classification ? 'malicious' : f.is_valid ? 'clean' : 'invalid';
  const rules: string[] = (f.issues ?? []).map((i: { rule: string }) => i.rule);
  return { r, f, verdict, rules };
}
