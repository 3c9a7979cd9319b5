import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvDraft04Import from 'ajv-draft-04';
import addFormatsImport from 'ajv-formats';
import { toSarif } from '../../../sidecar/verify/sarif.js';
import type { Outcome } from '../../../sidecar/verify/items.js';

// both packages are CommonJS; under NodeNext their default import is the module object
const AjvDraft04 = ((AjvDraft04Import as unknown as { default?: unknown }).default ?? AjvDraft04Import) as unknown as new (o: object) => import('ajv').default;
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: unknown) => unknown;
const SARIF_SCHEMA = JSON.parse(readFileSync(fileURLToPath(new URL('../../../../test/fixtures/mcp/sarif-2.1.0-rtm.5.json', import.meta.url)), 'utf8'));

function denied(file: string): Outcome {
  return {
    item: { file, line: 1, kind: 'code', body: { code: 'eval(x)\n', language: 'javascript' } },
    answer: { status: 'VERIFIED', admission: 'DENY' },
    admitted: false,
    findings: [{ ruleId: 'javascript.dangerous_call.eval', severity: 'CRITICAL', message: 'eval of a computed value', line: 1, column: 1 }],
  };
}

t.test('artifact URIs are URI references that name the file, whatever characters its path holds', async (t) => {
  const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(SARIF_SCHEMA);
  const files = ['src/my file.js', 'src/a#b.js', 'src/x?y.js', 'src/literal%20.js', 'src/ünï cödé.js', 'a:b.js', '../outside.js', 'src\\win dows.js'];
  const sarif = toSarif(files.map(denied), new Map(files.map((f) => [f, 'eval(x)\n']))) as any;
  t.ok(validate(sarif), `valid SARIF 2.1.0: ${JSON.stringify(validate.errors)?.slice(0, 1000)}`);
  const uris: string[] = sarif.runs[0].results.map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri);
  const base = 'https://repo.example/root/';
  const named = uris.map((u) => decodeURIComponent(new URL(u, base).pathname));
  t.same(
    named,
    ['/root/src/my file.js', '/root/src/a#b.js', '/root/src/x?y.js', '/root/src/literal%20.js', '/root/src/ünï cödé.js', '/root/a:b.js', '/outside.js', '/root/src/win dows.js'],
    'resolved against a repository root, each URI names its own file (no fragment, query or decoded escape)',
  );
  t.same(uris.map((u) => new URL(u, base).protocol), Array(files.length).fill('https:'), 'no path reads as a scheme');

  const win = (toSarif([denied('C:\\checkout\\my repo\\x.js')], new Map()) as any).runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri;
  t.equal(win, 'file:///C:/checkout/my%20repo/x.js', 'a Windows drive path is a file URI');
});

t.test('a flow finding carries its CWE (rule tags and relationship) and its path as a codeFlow, and stays valid SARIF', async (t) => {
  const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(SARIF_SCHEMA);
  const src = "p = request.args['f']\nq = p.strip()\nopen(q)\n";
  const o: Outcome = {
    item: { file: 'app/views.py', line: 1, kind: 'code', body: { code: src, language: 'python' } },
    answer: { status: 'VERIFIED', admission: 'DENY' },
    admitted: false,
    findings: [{ ruleId: 'python.flow.pathtraver', severity: 'HIGH', message: 'untrusted request.args reaches a file path', line: 3, column: 1, cwe: 22, path: [1, 2, 3] }],
  };
  const sarif = toSarif([o], new Map([['app/views.py', src]])) as any;
  t.ok(validate(sarif), `valid SARIF 2.1.0: ${JSON.stringify(validate.errors)?.slice(0, 1000)}`);
  const rule = sarif.runs[0].tool.driver.rules[0];
  t.ok(rule.properties.tags.includes('external/cwe/cwe-22'), 'CWE tag as code scanning reads it');
  t.equal(rule.relationships[0].target.id, 'CWE-22');
  const locs = sarif.runs[0].results[0].codeFlows[0].threadFlows[0].locations;
  t.same(locs.map((l: any) => l.location.physicalLocation.region.startLine), [1, 2, 3], 'source → step → sink');
  t.same(locs.map((l: any) => l.location.message.text), ['source', 'q = p.strip()', 'sink']);
  const plain = toSarif([denied('a.js')], new Map()) as any;
  t.notOk('codeFlows' in plain.runs[0].results[0], 'a finding without a path has no codeFlow');
});
