import t from 'tap';
import { verify } from '../../../plugins/engines/code/engine.js';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { findingCwe, scoreCase, type CaseVerdict } from '../../../bench/engines/owasp-score.js';

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
