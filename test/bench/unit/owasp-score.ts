import t from 'tap';
import { verify } from '../../../plugins/engines/code/engine.js';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findingCwe, scoreCase, type CaseVerdict } from '../../../bench/engines/owasp-score.js';
import { runOwaspBench } from '../../../bench/engines/code-owasp.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * bench/engines/owasp-score.ts: a case counts as flagged for its category only when a blocking
 * finding proves the category's CWE, as OWASP's scorecard matches a tool's result to a test case;
 * the admission (any blocking finding) is scored beside it. The handlers here are written for this
 * test, not taken from the benchmark.
 */
const found = (...fs: { rule_id: string; severity: string; cwe?: number }[]): CaseVerdict => ({
  status: 'VERIFIED',
  admission: fs.some((f) => f.severity === 'HIGH' || f.severity === 'CRITICAL') ? 'BLOCKED' : 'ADMIT',
  developer_fields: { vulnerabilities: fs.map((f) => ({ ...f, line: 1 })) },
});

t.test('a finding counts for its own class only', async (t) => {
  const xssOnly = found({ rule_id: 'python.flow.xss', severity: 'HIGH', cwe: 79 });
  t.same(scoreCase(xssOnly, 'codeinj'), { byCwe: false, byAdmission: true });
  t.same(scoreCase(xssOnly, 'xss'), { byCwe: true, byAdmission: true });
});

t.test('presence rules count for their family, and only when they block', async (t) => {
  t.equal(findingCwe({ rule_id: 'python.dangerous_call.eval' }), 94);
  t.equal(findingCwe({ rule_id: 'python.process.shell_injection' }), 78);
  t.equal(findingCwe({ rule_id: 'python.deserialization.pickle' }), 502);
  t.equal(findingCwe({ rule_id: 'python.sql_injection.string_built' }), 89);
  t.equal(findingCwe({ rule_id: 'python.secrets.hardcoded_credential' }), null);
  t.same(scoreCase(found({ rule_id: 'python.dangerous_call.eval', severity: 'LOW' }), 'codeinj'), { byCwe: false, byAdmission: false });
  t.same(scoreCase(found({ rule_id: 'python.dangerous_call.eval', severity: 'CRITICAL' }), 'codeinj'), { byCwe: true, byAdmission: true });
  // a blocking finding of no family blocks admission but flags no category
  t.same(scoreCase(found({ rule_id: 'python.dunder.globals', severity: 'CRITICAL' }), 'sqli'), { byCwe: false, byAdmission: true });
});

t.test('what proves nothing flags every class', async (t) => {
  t.same(scoreCase(found({ rule_id: 'python.flow.undecided', severity: 'HIGH' }), 'ldapi'), { byCwe: true, byAdmission: true });
  t.same(scoreCase({ status: 'BLOCKED', admission: 'BLOCKED' }, 'hash'), { byCwe: true, byAdmission: true });
});

t.test('through the engine: eval of a checked literal returned into the page is XSS, not code injection', async (t) => {
  await initPython();
  const code = [
    'from flask import Flask, request',
    'app = Flask(__name__)',
    "@app.route('/calc', methods=['POST'])",
    'def calc():',
    "    text = request.form.get('expr', '')",
    "    if not text.startswith('\"') or not text.endswith('\"') or '\"' in text[1:-1]:",
    "        return 'only a quoted literal'",
    "    return 'value: ' + eval(text)",
    '',
  ].join('\n');
  const v = (await verify({ code, language: 'python' })) as unknown as CaseVerdict;
  t.same(scoreCase(v, 'codeinj'), { byCwe: false, byAdmission: true }, 'the guard rules code injection out');
  t.same(scoreCase(v, 'xss'), { byCwe: true, byAdmission: true }, 'the evaluated text still reaches the page');
  const unguarded = (await verify({ code: code.replace(/ {4}if not[^\n]*\n[^\n]*\n/, ''), language: 'python' })) as unknown as CaseVerdict;
  t.same(scoreCase(unguarded, 'codeinj'), { byCwe: true, byAdmission: true });
});

t.test('`code-owasp --dir` on a copy laid out as the benchmark: the table, then the speed of warm passes beside the cold one', async (t) => {
  const dir = tempDir(t, 'owasp-copy-');
  mkdirSync(join(dir, 'testcode'));
  // two handlers written for this test: a request value reaches a shell, and a constant does
  const real = "from flask import request\nimport os\n\ndef handler():\n    os.system('ls ' + request.args.get('d'))\n";
  const fake = "from flask import request\nimport os\n\ndef handler():\n    d = request.args.get('d')\n    d = 'tmp'\n    os.system('ls ' + d)\n";
  writeFileSync(join(dir, 'testcode', 'Case1.py'), real);
  writeFileSync(join(dir, 'testcode', 'Case2.py'), fake);
  writeFileSync(join(dir, 'expected.csv'), '# test name, category, real vulnerability, cwe\nCase1,cmdi,true,78\nCase2,cmdi,false,78\nCase3,cmdi,true,78\n');
  const lines: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => void lines.push(a.join(' '));
  try {
    await runOwaspBench(['--dir', dir]);
  } finally {
    console.log = log;
  }
  t.ok(lines.includes('| cmdi | 1 | 1 | 1.00 | 0.00 | 1.00 | 1.00 |'), 'the real case flagged, the overwritten one not (Case3 has no file: not scored)');
  const speed = lines.find((l) => l.startsWith('2 files: '));
  t.match(speed, /^2 files: \d+ files\/s, p50 [\d.]+ ms, p99 [\d.]+ ms \(median of 3 warm passes after the scored one; no caching across passes\); cold scored pass \d+ files\/s, p99 [\d.]+ ms/);
});
