import t from 'tap';
import { verify } from '../../../../plugins/engines/code/engine.js';
import { GUARD_PATTERNS, advisoryChecks, heuristicSignals, RULES_VERSION, MAX_CODE_BYTES, resolveLanguage } from '../../../../plugins/engines/code/index.js';
import { proofRefOf, diagnosticBody } from '../../../../core/verdict.js';
import { sha256Hex } from '../../../../core/json/canonical.js';
import { corpusLines } from '../../../../bench/harness.js';

t.test('proven-unsafe code: VERIFIED, is_valid false, admission BLOCKED', async (t) => {
  const d = await verify({ code: 'import pickle\npickle.loads(b)\n' });
  t.equal(d.status, 'VERIFIED');
  t.equal(d.admission, 'BLOCKED');
  t.equal(d.developer_fields.is_valid, false);
  t.equal(d.developer_fields.is_safe, false);
  t.equal(d.developer_fields.language, 'python', 'python is the default language');
  t.equal(d.developer_fields.rules_version, RULES_VERSION);
  const vulns = d.developer_fields.vulnerabilities as Array<Record<string, unknown>>;
  t.ok(vulns.length >= 1);
  for (const v of vulns) t.same(Object.keys(v).sort(), ['column', 'line', 'message', 'rule_id', 'severity', 'type']);
  t.match(d.proof_ref, /^sha256:[0-9a-f]{64}$/);
});

t.test('safe code: VERIFIED, is_valid true, ADMIT, rules_version', async (t) => {
  const code = 'def add(a, b):\n    return a + b\n';
  const d = await verify({ code, language: 'python' });
  t.equal(d.status, 'VERIFIED');
  t.equal(d.admission, 'ADMIT');
  t.equal(d.developer_fields.is_valid, true);
  t.equal(d.developer_fields.is_safe, true);
  t.same(d.developer_fields.vulnerabilities, []);
  t.equal(d.developer_fields.rules_version, RULES_VERSION);
  // proof_ref binds engine, version, language, the code hash, the rule set and the findings
  const expected = proofRefOf({
    engine: 'code',
    engine_version: '1.2.0',
    input: { language: 'python', code_sha256: sha256Hex(code) },
    parameters: { rules_version: RULES_VERSION },
    result: { findings: [] },
  });
  t.equal(d.proof_ref, expected);
});

t.test('proof_ref differs for different inputs and languages, repeats for the same one', async (t) => {
  const a = await verify({ code: 'x = 1\n' });
  const b = await verify({ code: 'x = 2\n' });
  const c = await verify({ code: 'x = 1\n' });
  const js = await verify({ code: 'x = 1\n', language: 'javascript' });
  t.not(a.proof_ref, b.proof_ref);
  t.not(a.proof_ref, js.proof_ref);
  t.equal(a.proof_ref, c.proof_ref);
});

t.test('diagnosticBody copies legacy is_safe / vulnerabilities to the top level', async (t) => {
  const body = diagnosticBody(await verify({ code: 'eval(x)', language: 'javascript' }));
  t.equal(body.is_safe, false);
  t.equal(body.is_valid, false);
  t.ok(Array.isArray(body.vulnerabilities) && (body.vulnerabilities as unknown[]).length > 0);
  t.equal(body.admission, 'BLOCKED');
  t.equal(body.status, 'VERIFIED');
});

t.test('parse errors are BLOCKED code_verifier.parse_error with no proof_ref', async (t) => {
  for (const [code, language] of [['def f(:\n', 'python'], ['function (', 'javascript'], ['let x: = 1', 'typescript']]) {
    const d = await verify({ code, language });
    t.equal(d.status, 'BLOCKED', `${language}: ${code}`);
    t.equal(d.developer_fields.constraint_id, 'code_verifier.parse_error');
    t.equal(d.developer_fields.is_valid, false);
    t.equal(d.proof_ref, null);
    t.equal(d.admission, 'BLOCKED');
    t.ok(d.developer_fields.parse_error);
  }
});

t.test('unsupported languages are BLOCKED and list the supported ones', async (t) => {
  const d = await verify({ code: 'puts 1', language: 'ruby' });
  t.equal(d.status, 'BLOCKED');
  t.equal(d.developer_fields.constraint_id, 'code_verifier.unsupported_language');
  t.same(d.developer_fields.supported_languages, ['python', 'javascript', 'typescript']);
  t.match(d.agent_message, /python, javascript, typescript/);
  t.equal(resolveLanguage('TypeScript'), 'typescript');
  t.equal(resolveLanguage('py'), 'python');
  t.equal(resolveLanguage(undefined), 'python');
  t.equal(resolveLanguage('cobol'), null);
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) t.equal(resolveLanguage(name), null, `${name} is no language`);
  t.equal((await verify({ code: 'x = 1\n', language: 'constructor' })).developer_fields.constraint_id, 'code_verifier.unsupported_language');
});

t.test('oversized code is refused in the engine too', async (t) => {
  const d = await verify({ code: '#'.repeat(MAX_CODE_BYTES + 1) });
  t.equal(d.status, 'BLOCKED');
  t.equal(d.developer_fields.constraint_id, 'code_verifier.input_too_large');
});

t.test('text-only signals are advisory and never change the verdict', async (t) => {
  const code = "URL = 'http://203.0.113.7/payload'\nKEY_MATERIAL = 'q8Zr3VtX9pLm2KsY7wQe4HnB6cJd1FgA'\n# os.system(cmd) mentioned in a comment\n";
  const d = await verify({ code });
  t.equal(d.status, 'VERIFIED');
  t.equal(d.admission, 'ADMIT', 'advisory signals alone do not block');
  const checks = d.developer_fields.advisory_checks as Array<Record<string, unknown>>;
  const names = checks.map((c) => c.name);
  t.ok(names.includes('suspicious_url'));
  t.ok(names.includes('high_entropy_string'));
  t.ok(names.includes('pattern.os_system'), 'raw-text pattern seen in the comment, advisory only');
  for (const c of checks) {
    t.equal(c.advisory_only, true);
    t.match(c.constraint_id, /^code_verifier\.advisory\./);
  }
  t.same(advisoryChecks('x = 1\n'), []);
});

t.test('guard heuristics use the operations-api names', async (t) => {
  const names = heuristicSignals("getattr(__builtins__, n)\nglobals()['x']\nexec(b64decode(s))\n__import__(m)\nos.system(c)\nos.popen(c)\n").map((s) => s.name);
  t.same(names, ['getattr_builtin', 'builtins_dict_access', 'base64_exec', 'dynamic_import', 'os_system', 'os_popen']);
});

t.test("a guard pattern's `needs` words are in every text it matches (the substring pre-check never hides a match)", async (t) => {
  const texts = [
    "getattr( builtins , n)\nvars ( ) [k]\neval(codecs.decode(atob(s)))\nrequire(name)\nimportlib . import_module (m)\nos .system(c)\n",
    'x = builtins.__dict__ ["eval"]\nexec(base64.b32decode(p))\nexec(base64.decodebytes(p))\n',
    ...corpusLines('code.jsonl').map((l) => l.code as string),
  ];
  let matched = 0;
  for (const text of texts) {
    for (const { name, re, needs } of GUARD_PATTERNS) {
      const m = re.exec(text);
      if (!m) continue;
      matched++;
      t.ok(needs.some((w) => m[0].includes(w)), `${name} on ${JSON.stringify(m[0])}`);
    }
  }
  t.ok(matched >= 12, `the texts exercise the patterns (${matched} matches)`);
});

t.test('pathological input fails closed and leaves the parser usable', async (t) => {
  const quotes = ('"' + 'a"'.repeat(100_000)).slice(0, 200_000);
  const d = await verify({ code: quotes });
  t.equal(d.status, 'BLOCKED');
  t.match(String(d.developer_fields.constraint_id), /^code_verifier\.(complexity_limit_exceeded|parse_error)$/);
  t.equal(d.proof_ref, null);
  const next = await verify({ code: 'x = eval(y)\n' });
  t.equal(next.status, 'VERIFIED', 'a cancelled parse is not resumed by the next request');
  t.equal(next.admission, 'BLOCKED');
  t.same((next.developer_fields.vulnerabilities as Array<{ line: number }>).map((v) => v.line), [1]);
});

t.test('self-referential rebinding stays bounded and still resolves', async (t) => {
  const code = "import os\nx = 'a'\n" + 'x = x + x\n'.repeat(3000) + 'm = os\n' + 'm = m if c else m\n'.repeat(500) + 'm.system(cmd)\n';
  const d = await verify({ code });
  t.equal(d.status, 'VERIFIED');
  t.equal(d.admission, 'BLOCKED');
  t.ok((d.developer_fields.vulnerabilities as Array<{ rule_id: string }>).some((v) => v.rule_id === 'python.process.shell_injection'));
});
