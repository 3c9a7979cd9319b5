import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSyntaxErrorAt } from '../../core/json/syntax.js';
import { loadBootstrap } from '../../sidecar/provision/file.js';
import { nodeCommand } from '../helpers/child.js';
import { keysNewCommand } from '../../sidecar/commands/keys.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const dir = tempDir(t, 'proofgate-secret-echo-');
const SECRET = 'svc_live_TOPSECRETVALUE0123456789abcdefghijkl';

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(...nodeCommand([CLI, ...args]), { env: { PATH: String(process.env.PATH), ...env }, cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

// the spawned runs get no SVC_ variable; nor does `keys new` run here (a lookup secret in the
// environment would stand in for the unreadable file)
for (const k of Object.keys(process.env)) if (k.startsWith('SVC_')) delete process.env[k];

/** `proofgate keys new ARGS` in this process: its exit code, and all it printed */
async function keysNewHere(t: Test, args: string[]): Promise<{ code: number; out: string }> {
  const log = t.capture(console, 'log');
  const error = t.capture(console, 'error');
  try {
    const code = await keysNewCommand.run(args);
    return { code, out: [...log(), ...error()].map((c) => c.args.join(' ')).join('\n') };
  } finally {
    log.restore();
    error.restore();
  }
}

// each is cut where V8's message quotes the text around the error (or the whole text)
const BROKEN: Array<[string, string, string]> = [
  ['unquoted', `{"secrets": {"api_key_lookup_secret": ${SECRET}}}`, 'line 1, column 39'],
  ['bare', SECRET, 'line 1, column 1'],
  ['trailing comma', `{\n  "secrets": {\n    "api_key_lookup_secret": "${SECRET}",\n  }\n}`, 'line 4, column 3'],
  ['unterminated', `{"secrets": {"api_key_lookup_secret": "${SECRET}`, `line 1, column ${40 + SECRET.length}`],
  ['after the value', `{"a": "${SECRET}"} ${SECRET}`, `line 1, column ${11 + SECRET.length}`],
];

t.test('a config file that is not JSON is reported by path, line and column, never quoted', async (t) => {
  for (const [i, [name, text, at]] of BROKEN.entries()) {
    const file = join(dir, `${name.replace(/ /g, '-')}.json`);
    writeFileSync(file, text);
    // through the CLI processes for the first file (both streams, exit status); the others vary only
    // the text, whose message every command prints alike: keys new here, 0.3 s less a process
    const keys = i === 0 ? await cli(['keys', 'new', '--config', file], {}) : await keysNewHere(t, ['--config', file]);
    t.equal(keys.code, 2, `${name}: keys new`);
    t.match(keys.out, `${file}: not valid JSON (${at})`, `${name}: ${keys.out}`);
    t.notMatch(keys.out, /TOPSECRET/, `${name}: keys new does not echo the file`);
    if (i > 0) continue;
    const start = await cli(['start'], { SVC_CONFIG: file });
    t.not(start.code, 0, `${name}: start refuses`);
    t.match(start.out, `${file}: not valid JSON (${at})`);
    t.notMatch(start.out, /TOPSECRET/, `${name}: start does not echo the file`);
  }
});

t.test('jsonSyntaxErrorAt agrees with JSON.parse on what is JSON and where it stops', async (t) => {
  const samples = ['{"a":[1,2.5e3,-0,true,false,null,"x\\u00e9\\n"],"b":{}}', '[]', ' "s" ', '0', '{"k":{"k":[[],{}]}}'];
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const alphabet = '{}[]:,"\\ \n0-1.eEtruefalsnx\u0001';
  let checked = 0;
  const disagreements: string[] = [];
  for (const s of samples) {
    t.equal(jsonSyntaxErrorAt(s), null, `valid: ${s}`);
    for (let n = 0; n < 400; n++) {
      // one character changed, inserted or removed, at a random place
      const i = rand(s.length + 1);
      const c = alphabet[rand(alphabet.length)];
      const op = rand(3);
      const m = op === 0 ? s.slice(0, i) + c + s.slice(i + 1) : op === 1 ? s.slice(0, i) + c + s.slice(i) : s.slice(0, i) + s.slice(i + 1);
      let position: number | null = null;
      let valid = true;
      try {
        JSON.parse(m);
      } catch (err) {
        valid = false;
        const p = /at position (\d+)/.exec((err as Error).message);
        position = p ? Number(p[1]) : null;
      }
      const at = jsonSyntaxErrorAt(m);
      const wrong = valid ? at !== null : !at || (position !== null && !m.includes('\n') && at.column - 1 !== position);
      if (wrong) disagreements.push(`${JSON.stringify(m)}: ${JSON.stringify(at)} where JSON.parse says ${valid ? 'valid' : `position ${position}`}`);
      checked++;
    }
  }
  t.equal(checked, samples.length * 400);
  t.same(disagreements, [], 'valid exactly when JSON.parse says so, and at the offset it names');
  t.same(jsonSyntaxErrorAt('['.repeat(200_000)), { line: 1, column: 200_001 }, 'any depth, no recursion');
});

t.test('a bootstrap file that does not parse is reported by position and code, never quoted', async (t) => {
  const cases: Array<[string, RegExp]> = [
    [`organizations:\n  - id: org\n    name: ${SECRET}\n      bad: [x\n`, /not valid YAML\/JSON at line \d+, column \d+ \(\w+\)$/],
    [`organizations: []\norganizations: ${SECRET}\n`, /not valid YAML\/JSON at line 2, column 1 \(DUPLICATE_KEY\)$/],
    [`{"organizations": [{"id": "${SECRET}" ]}`, /not valid YAML\/JSON at line 1, column \d+ \(\w+\)$/],
    [`organizations: *${SECRET}\n`, /not valid YAML\/JSON: Unresolved alias \(the anchor must be set before the alias\)$/],
  ];
  for (const [i, [text, want]] of cases.entries()) {
    const file = join(dir, `bootstrap-${i}.yaml`);
    writeFileSync(file, text);
    const err = (() => {
      try {
        loadBootstrap(file, { mode: 'server', env: null });
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    t.match(err?.message, want, String(i));
    t.notMatch(err?.message, /TOPSECRET/, `case ${i} does not echo the file`);
  }
  // a warning (an unknown tag) is emitted with its position, not the line's text
  const warned: string[] = [];
  const onWarning = (w: Error) => warned.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const file = join(dir, 'bootstrap-tag.yaml');
  writeFileSync(file, `organizations: []\nplans: !secret ${SECRET}\n`);
  t.throws(() => loadBootstrap(file, { mode: 'server', env: null }), /plans: must be object/);
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  t.match(warned.join('\n'), /bootstrap-tag\.yaml: line 2, column 8 \(TAG_RESOLVE_FAILED\)/);
  t.notMatch(warned.join('\n'), /TOPSECRET/);
});
