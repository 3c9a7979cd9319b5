import t from 'tap';
import code, { isBlocking } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript, analyzePython, analyzeTypeScript } from '../../../plugins/engines/code/analyze.js';
import { setFastPython } from '../../../plugins/engines/code/python/parser.js';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../../helpers/server.js';

/**
 * The shape every rule-gap test of the code engine shares: a table of snippets that must block with
 * a given rule, a table of look-alikes that must not, run on the engine directly (Python with the
 * fast parser on and off, since both must give tree-sitter's tree) and a few over HTTP.
 */
export type Unsafe = ReadonlyArray<readonly [name: string, src: string, rule: string]>;
export type Safe = ReadonlyArray<readonly [name: string, src: string]>;
export type Language = 'python' | 'javascript' | 'typescript';

const ANALYZE = { python: analyzePython, javascript: analyzeJavaScript, typescript: analyzeTypeScript };

/** Registers the table's tests. */
export function ruleTable(title: string, language: Language, unsafe: Unsafe, safe: Safe): void {
  const run = (label: string, fast?: boolean) =>
    t.test(label, async (t) => {
      if (fast !== undefined) {
        setFastPython(fast);
        t.teardown(() => void setFastPython(true));
      }
      for (const [name, src, rule] of unsafe) {
        const a = await ANALYZE[language](src);
        t.ok(a.parseOk, `${name}: parses`);
        t.ok(a.findings.some((f) => f.rule_id === rule && isBlocking(f)), `${name}: blocking ${rule} in [${a.findings.map((f) => f.rule_id).join(', ')}]`);
      }
      for (const [name, src] of safe) {
        const a = await ANALYZE[language](src);
        t.ok(a.parseOk, `${name}: parses`);
        t.same(a.findings.filter(isBlocking).map((f) => f.rule_id), [], `${name}: nothing blocking`);
      }
    });
  if (language !== 'python') return void run(title);
  for (const fast of [true, false]) void run(`${title} (fast parser ${fast ? 'on' : 'off'})`, fast);
}

type Row = readonly [name: string, src: string, language: Language];

/**
 * One code-engine server for every table of the process (rule-tables.test.ts runs them all in one):
 * requests to /verify/code share no state, and each server costs a worker thread and an engine load.
 */
let server: Promise<TestServer> | undefined;
function codeServer(): Promise<TestServer> {
  return (server ??= startServer({ plugins: [testAuthPlugin(), code], config: { workers: { threads: 1, task_timeout_ms: 10_000 } } }).then((s) => {
    t.teardown(() => s.close());
    return s;
  }));
}

/**
 * Registers a test: POST /verify/code answers each `blocked` snippet VERIFIED, admission BLOCKED,
 * is_valid false, and each `admitted` one ADMIT.
 */
export function blockedOverHttp(title: string, blocked: readonly Row[], admitted: readonly Row[] = []): void {
  t.test(title, async (t) => {
    const s = await codeServer();
    for (const [name, src, language] of blocked) {
      const r = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language, code: src } });
      t.equal(r.status, 200, name);
      t.match(r.body, { status: 'VERIFIED', admission: 'BLOCKED', developer_fields: { is_valid: false } }, name);
    }
    for (const [name, src, language] of admitted) {
      const r = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language, code: src } });
      t.match(r.body, { status: 'VERIFIED', admission: 'ADMIT' }, `${name}: admitted`);
    }
  });
}

/** The named rows of a table, for blockedOverHttp. */
export function pick(table: Unsafe | Safe, names: readonly string[], language: Language): Array<[string, string, Language]> {
  const rows = table.filter(([n]) => names.includes(n)).map(([n, src]) => [n, src, language] as [string, string, Language]);
  if (rows.length !== names.length) throw new Error(`no such rows: ${names.filter((n) => !table.some(([m]) => m === n)).join(', ')}`);
  return rows;
}
