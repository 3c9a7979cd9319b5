import t, { type Test } from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript } from '../../../plugins/engines/code/analyze.js';

/**
 * Control flow of the JavaScript flow analysis (rules 1.14.0): `break`/`continue` (labelled too) end a
 * path, a loop that surely runs once (`while (true)`, `for (;;)`, do-while) runs its first pass, a
 * switch's `break` does not fall through; a catch and a finally start from every state of the try
 * body. Each admission has near misses beside it that must still block. Handlers written for these tests.
 */
const route = (body: string): string => `const { execSync } = require('child_process');\nconst app = require('express')();\napp.post('/r', (req, res) => {\n${body}\n  res.end('done');\n});\n`;
const READ = 'let cmd = req.body.cmd;';
const RUN = 'execSync(cmd);';

const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => `${f.rule_id}@${f.line}`);
function admits(t: Test, name: string, body: string): void {
  t.same(blocking(analyzeJavaScript(route(body)).findings), [], `${name}: nothing blocks`);
}
function flows(t: Test, name: string, body: string): void {
  const a = analyzeJavaScript(route(body));
  t.ok(a.findings.some((f) => f.rule_id === 'javascript.flow.cmdi' && isBlocking(f)), `${name}: cmdi flow (${blocking(a.findings).join(', ')})`);
}

t.test('break, continue and loops that surely run', async (t) => {
  admits(t, 'while (true) with break', `${READ}\nwhile (true) { cmd = 'ls'; break; }\n${RUN}`);
  admits(t, 'for (;;) with break', `${READ}\nfor (;;) { cmd = 'ls'; break; }\n${RUN}`);
  admits(t, 'do … while (false)', `${READ}\ndo { cmd = 'ls'; } while (false);\n${RUN}`);
  admits(t, 'every break after the constant', `${READ}\nlet n = 0;\nwhile (true) { n++; if (n > 3) continue; cmd = 'ls'; break; }\n${RUN}`);
  flows(t, 'a break before the constant', `${READ}\nwhile (true) { if (cmd) break; cmd = 'ls'; }\n${RUN}`);
  flows(t, 'a while whose test is not known', `${READ}\nwhile (req.body.again) { cmd = 'ls'; }\n${RUN}`);
  flows(t, 'a labelled continue skips the constant', `${READ}\nouter: for (const a of [1, 2]) { for (const b of [3]) { continue outer; } cmd = 'ls'; }\n${RUN}`);
  flows(t, 'a labelled block left early', `${READ}\nblk: { if (cmd.length) break blk; cmd = 'ls'; }\n${RUN}`);
  flows(t, 'the second pass sees the first', `let safe = 'ls';\nfor (const x of [1, 2]) { execSync(safe); safe = req.body.cmd; }`);
  flows(t, 'continue goes back to the head', `let safe = 'ls';\nfor (let i = 0; i < 3; i++) { execSync(safe); if (i) { safe = req.body.cmd; continue; } safe = 'ls'; }`);
});

t.test('a switch case that breaks does not fall through', async (t) => {
  admits(t, 'each case sets a constant', `let cmd = 'ls';\nswitch (req.body.k) {\n  case 'a': cmd = req.body.cmd; break;\n  case 'b': cmd = 'pwd';\n}\ncmd = 'ls';\n${RUN}`);
  flows(t, 'a case that keeps the request value', `let cmd = 'ls';\nswitch (req.body.k) {\n  case 'a': cmd = req.body.cmd; break;\n  case 'b': cmd = 'pwd'; break;\n}\n${RUN}`);
  flows(t, 'a fall through', `let cmd = 'ls';\nswitch (req.body.k) {\n  case 'a': cmd = req.body.cmd;\n  case 'b': execSync(cmd); break;\n}`);
});

t.test('catch and finally start from every state of the try body', async (t) => {
  flows(t, 'the request value between two constants', `let cmd = 'ls';\ntry { cmd = req.body.cmd; JSON.parse(cmd); cmd = 'ls'; } catch (e) { ${RUN} }`);
  flows(t, 'finally after a throw', `let cmd = 'ls';\ntry { cmd = req.body.cmd; JSON.parse(cmd); cmd = 'ls'; } finally { ${RUN} }`);
  flows(t, 'finally after a catch that throws', `let cmd = 'ls';\ntry { JSON.parse('1'); } catch (e) { cmd = req.body.cmd; JSON.parse(cmd); cmd = 'ls'; } finally { ${RUN} }`);
  flows(t, 'an inner try that rethrows', `let cmd = 'ls';\ntry { try { cmd = req.body.cmd; JSON.parse(cmd); cmd = 'ls'; } finally { } } catch (e) { ${RUN} }`);
  admits(t, 'both ways out set the constant', `${READ}\ntry { JSON.parse(cmd); cmd = 'ls'; } catch (e) { cmd = 'pwd'; }\n${RUN}`);
});

t.test('a break or continue out of a try leaves through its finally', async (t) => {
  flows(t, 'break', `let cmd = 'ls';\nfor (const i of [1]) { try { cmd = 'ls'; break; } finally { cmd = req.body.cmd; } }\n${RUN}`);
  flows(t, 'labelled continue', `let cmd = 'ls';\nouter: for (const i of [1, 2]) { for (const j of [3]) { try { continue outer; } finally { cmd = req.body.cmd; } } }\n${RUN}`);
  admits(t, 'a finally that sets a constant', `${READ}\nwhile (true) { try { break; } finally { cmd = 'ls'; } }\n${RUN}`);
});
