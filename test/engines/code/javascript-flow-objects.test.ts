import t from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript } from '../../../plugins/engines/code/analyze.js';

/**
 * Hostile: an object whose own code makes its text — `toString`, `valueOf`, `Symbol.toPrimitive`, a
 * getter — hid a request value from the JavaScript flow analysis, and loose equality (`==`) with such an
 * object (or one of unknown origin) passed for a proof that it is the constant. Each handler here was
 * admitted before. Plain objects and strict equality keep their proofs. Written for this test.
 */
const route = (body: string): string =>
  `const express = require('express');\nconst { exec } = require('child_process');\nconst app = express();\napp.post('/q', (req, res) => {\n${body.replace(/^/gm, '  ')}\n  res.end();\n});\n`;
const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => f.rule_id);

t.test('an object converting itself to text by its own code is not a constant', async (t) => {
  const cases: Array<[string, string]> = [
    ['toString method', "const name = { toString() { return req.body.c; } };\nexec('cat ' + name);"],
    ['toString arrow in a template', 'const name = { toString: () => req.body.c };\nexec(`cat ${name}`);'],
    ['valueOf', "const name = { valueOf() { return req.body.c; } };\nexec('cat ' + name);"],
    ['Symbol.toPrimitive', "const name = { [Symbol.toPrimitive]() { return req.body.c; } };\nexec('cat ' + name);"],
    ['a getter', "const o = { get name() { return req.body.c; } };\nexec('cat ' + o.name);"],
    ['joined with others', "const name = { toString() { return req.body.c; } };\nexec(['cat', name].join(' '));"],
    ['a stateful toString past a loose equality test', "let n = 0;\nconst name = { toString() { return n++ ? req.body.c : 'notes.txt'; } };\nif (name != 'notes.txt') return res.end();\nexec('cat ' + name);"],
    ['loose equality on an imported value', "const { current } = require('./state');\nif (current != 'notes.txt') return res.end();\nexec('cat ' + current);"],
  ];
  for (const [name, body] of cases) {
    const a = analyzeJavaScript(route(body));
    t.ok(blocking(a.findings).length, `${name}: not admitted (${a.findings.map((f) => `${f.rule_id}:${f.severity}`).join(', ')})`);
  }
});

t.test('plain objects and strict or request-value equality keep their proofs', async (t) => {
  const cases: Array<[string, string]> = [
    ['a plain object', "const o = { file: 'notes.txt' };\nexec('cat ' + o.file);"],
    ['a computed key holding text', "const k = 'file';\nconst o = { [k]: 'notes.txt' };\nexec('cat ' + o.file);"],
    ['strict equality on a request value', "const f = req.body.f;\nif (f !== 'notes.txt') return res.end();\nexec('cat ' + f);"],
    ['loose equality on a request value', "const f = req.body.f;\nif (f != 'notes.txt') return res.end();\nexec('cat ' + f);"],
  ];
  for (const [name, body] of cases) {
    const a = analyzeJavaScript(route(body));
    // a command the flow proves constant is admitted since 1.14.0, even where the resolver folded it (`process.shell_exec`, kept as LOW)
    t.same(blocking(a.findings), [], `${name}: nothing blocks (${a.findings.map((f) => `${f.rule_id}:${f.severity}`).join(', ')})`);
  }
});
