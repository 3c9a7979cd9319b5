import t from 'tap';
import { analyzeCode, initPython } from '../../../plugins/engines/code/analyze.js';
import { CODE_INLINE_CHARS, createCodeGuard, type SyntaxAnalyzer } from '../../../plugins/a2a/guards/code.js';
import { scanHeuristics, HEURISTICS } from '../../../plugins/a2a/guards/code-heuristics.js';
import type { SyntaxAnalysis } from '../../../plugins/a2a/guards/code-layer1.js';
import type { GuardContext } from '../../../plugins/a2a/guards/types.js';

const freshCtx = () => ({ signal: new AbortController().signal }) as GuardContext;

/** code_guard itself, its analyzer the code plugin's analysis run in process instead of in its pool */
async function inspect(code: string, language: 'python' | 'javascript' = 'python') {
  const guard = createCodeGuard({ analyzer: () => ({ analyze: (c, l) => analyzeCode(c, l) as Promise<SyntaxAnalysis> }) });
  return guard.check({ code, language }, freshCtx());
}

/** code_guard given one fixed analysis, for the shapes a real parse does not produce */
function guardSeeing(analysis: SyntaxAnalysis) {
  return createCodeGuard({ analyzer: () => ({ analyze: async () => analysis }) });
}

// the Python grammar loaded before the first case (a top-level await: this file shares a process, see unit.test.ts)
await initPython();

t.test('layer 1 (syntax tree) blocks the spec’s calls, receiver methods and imports', async (t) => {
  const cases: Array<[string, string]> = [
    ['eval', 'x = eval("1+1")\n'],
    ['exec', 'exec(user_code)\n'],
    ['compile', 'c = compile(src, "f", "exec")\n'],
    ['__import__', 'm = __import__("os")\n'],
    ['subprocess.run', 'import subprocess\nsubprocess.run(["ls"])\n'],
    ['os.system', 'import os\nos.system("id")\n'],
    ['os.popen', 'import os\nos.popen("id").read()\n'],
    ['import importlib', 'import importlib\n'],
    ['import ctypes', 'import ctypes\n'],
    ['from subprocess import', 'from subprocess import Popen\n'],
  ];
  for (const [name, code] of cases) {
    const r = await inspect(code);
    t.equal(r.status, 'blocked', name);
    t.equal(r.details?.layer, 1, `${name}: found by layer 1`);
  }
});

t.test('bypass attempts: aliases, getattr(__builtins__,…), namespace dicts, base64 + exec', async (t) => {
  const attempts: Array<[string, string]> = [
    ['import alias', 'import subprocess as sp\nsp.run(["ls"])\n'],
    ['from-import alias', 'from os import system as run_it\nrun_it("id")\n'],
    ['module alias', 'import os as o\no.popen("id")\n'],
    ['assignment alias of eval', 'e = eval\ne("2+2")\n'],
    ['alias chain', 'a = exec\nb = a\nb("print(1)")\n'],
    ['getattr on __builtins__', 'f = getattr(__builtins__, "ev" + "al")\nf("1")\n'],
    ['__builtins__ dict', '__builtins__.__dict__["ex" + "ec"]("print(1)")\n'],
    ['globals lookup', 'globals()["__builtins__"]\n'],
    ['base64 + exec', 'import base64\nexec(base64.b64decode("cHJpbnQoMSk="))\n'],
    ['alias inside a function', 'def helper():\n    return eval\n\ndef run(x):\n    return helper()(x)\n'],
  ];
  for (const [name, code] of attempts) {
    const r = await inspect(code);
    t.equal(r.status, 'blocked', name);
  }
});

t.test('a syntax error blocks', async (t) => {
  const r = await inspect('def f(:\n    return 1\n');
  t.equal(r.status, 'blocked');
  t.equal(r.details?.layer, 1);
  t.ok(r.details?.syntax_error);
  t.match(r.reason, /does not parse/);
});

t.test('layer 2 runs only when layer 1 is clean, and its findings block', async (t) => {
  const hidden: Array<[string, string]> = [
    ['base64_exec', 'import base64\ndata = base64.b64decode(blob)\nmode = "exec"\n'],
    ['os_system', 'doc = "call os.system(cmd) to run it"\nprint(doc)\n'],
    ['os_popen', 'note = "os.popen is deprecated"\n'],
    ['dynamic_import', 'hint = "__import__ is a builtin"\n'],
  ];
  for (const [heuristic, code] of hidden) {
    const r = await inspect(code);
    t.equal(r.status, 'blocked', heuristic);
    t.equal(r.details?.layer, 2, `${heuristic}: layer 1 found nothing`);
    t.ok((r.details?.heuristics as Array<{ name: string }>).some((h) => h.name === heuristic), `${heuristic} named`);
  }
  const both = await inspect('import os\nos.system("id")\n');
  t.equal(both.details?.layer, 1);
  t.notOk('heuristics' in (both.details ?? {}), 'layer 2 is not consulted after a layer-1 finding');
});

t.test('clean code is heuristic_pass, never forwarded', async (t) => {
  const r = await inspect('def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n');
  t.equal(r.status, 'heuristic_pass');
  t.same(r.details?.heuristics, []);
  const js = await inspect('function add(a, b) { return a + b; }\n', 'javascript');
  t.equal(js.status, 'heuristic_pass', 'JavaScript goes through the code engine too');
  t.equal((await inspect('eval(userInput);\n', 'javascript')).status, 'blocked');
});

t.test('each of the six heuristics, on text alone', async (t) => {
  const samples: Record<(typeof HEURISTICS)[number], string> = {
    getattr_builtin: 'f = getattr(sys.modules["builtins"], name)',
    builtins_dict_access: 'fn = vars(builtins)[name]',
    base64_exec: 'codecs.decode(s, "base64"); run = "eval"',
    dynamic_import: 'mod = importlib.import_module(n)',
    os_system: 'getattr(os, "system")("id")',
    os_popen: 'import os\nos . popen("x")',
  };
  for (const [name, text] of Object.entries(samples)) {
    t.ok(scanHeuristics(text).some((h) => h.name === name), name);
  }
  t.same(scanHeuristics('total = sum(x for x in range(10))\nprint("system ready")'), [], 'ordinary text matches nothing');
  t.equal(scanHeuristics('a = 1\nb = 2\nimport os\nos.popen("x")').find((h) => h.name === 'os_popen')?.line, 4, 'line of the match');
});

t.test('fail closed on an incomplete analysis; the guard reads payload.code', async (t) => {
  const partial: SyntaxAnalysis = { parseOk: true, parser: 'fake', findings: [], limitExceeded: true };
  t.equal((await guardSeeing(partial).check({ code: 'x = 1' }, freshCtx())).status, 'blocked');
  const lowOnly: SyntaxAnalysis = {
    parseOk: true,
    parser: 'fake',
    findings: [{ rule_id: 'python.filesystem.rmtree_dynamic', type: 'x', severity: 'LOW', line: 1, column: 1, message: 'm' }],
  };
  t.equal((await guardSeeing(lowOnly).check({ code: 'x = 1' }, freshCtx())).status, 'heuristic_pass', 'a LOW finding outside the layer-1 families is not a threat');

  const seen: unknown[] = [];
  const clean: SyntaxAnalyzer = {
    async analyze(code, language) {
      seen.push({ code, language });
      return { parseOk: true, parser: 'fake', findings: [] };
    },
  };
  const guard = createCodeGuard({ analyzer: () => clean });
  const ctx = { signal: new AbortController().signal } as GuardContext;
  t.equal((await guard.check({}, ctx)).status, 'unverifiable', 'missing code');
  t.equal((await guard.check({ code: 42 }, ctx)).status, 'unverifiable', 'code not a string');
  t.equal((await guard.check({ code: '  \n' }, ctx)).status, 'unverifiable', 'blank code');
  t.equal((await guard.check({ code: 'x', language: 'cobol' }, ctx)).status, 'unverifiable', 'unknown language');
  t.equal((await guard.check({ code: 'x = 1' }, ctx)).status, 'heuristic_pass');
  t.same(seen, [{ code: 'x = 1', language: 'python' }], 'python is the default language');
});

t.test('no code.analyzer (code plugin absent): the message blocks with a constraint id', async (t) => {
  const guard = createCodeGuard({ analyzer: () => undefined });
  const ctx = { signal: new AbortController().signal } as GuardContext;
  const r = await guard.check({ code: 'print(1)\n' }, ctx);
  t.equal(r.status, 'blocked');
  t.equal(r.details?.constraint_id, 'a2a.code.analyzer_unavailable');
  t.match(r.reason, /code plugin is not loaded/);
});

t.test('long code: layer 2 goes to scanLarge, short code stays inline', async (t) => {
  const scanned: number[] = [];
  const guard = createCodeGuard({
    analyzer: () => ({ analyze: async () => ({ parseOk: true, parser: 'fake', findings: [] }) }),
    scanLarge: async (code) => {
      scanned.push(code.length);
      return scanHeuristics(code);
    },
  });
  const ctx = { signal: new AbortController().signal } as GuardContext;
  const long = 'x = 1\n'.repeat(Math.ceil(CODE_INLINE_CHARS / 6) + 1) + 'note = "os.popen"\n';
  const r = await guard.check({ code: long }, ctx);
  t.equal(r.status, 'blocked', 'the worker scan finds what the inline scan would');
  t.same((r.details?.heuristics as Array<{ name: string }>).map((h) => h.name), ['os_popen']);
  t.same(scanned, [long.length]);
  t.equal((await guard.check({ code: 'note = "os.popen"\n' }, ctx)).status, 'blocked');
  t.equal(scanned.length, 1, 'short code is scanned inline');
});
