import t, { type Test } from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';

/**
 * Control flow of the Python flow analysis (rules 1.14.0): `break`/`continue` and a loop that runs at
 * least once, and the states a `try`'s handlers, `finally` and a `with` body's end start from. Each
 * admission has hostile near misses beside it that must still block. Handlers written for these tests.
 */
const HEAD = 'from flask import Flask, request\nimport os, sqlite3\napp = Flask(__name__)\n';
const route = (body: string): string => `${HEAD}@app.route('/r', methods=['POST'])\ndef handler():\n${body.replace(/^/gm, '    ')}\n    return 'done'\n`;
const READ = "cmd = request.form.get('cmd', '')";
const RUN = 'os.system(cmd)';

const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => `${f.rule_id}@${f.line}`);
async function admits(t: Test, name: string, body: string): Promise<void> {
  const a = await analyzePython(route(body));
  t.ok(a.parseOk, `${name}: parses`);
  t.same(blocking(a.findings), [], `${name}: nothing blocks`);
}
async function flows(t: Test, name: string, body: string): Promise<void> {
  const a = await analyzePython(route(body));
  t.ok(a.findings.some((f) => f.rule_id === 'python.flow.cmdi' && isBlocking(f)), `${name}: cmdi flow (${blocking(a.findings).join(', ')})`);
}

t.test('a loop that surely runs once replaces what came before it', async (t) => {
  await admits(t, 'while True with break', `${READ}\nwhile True:\n    cmd = 'ls -l'\n    break\n${RUN}`);
  await admits(t, 'while on a constant-true name', `${READ}\nrunning = 1\nwhile running:\n    cmd = 'ls'\n    running = 0\n${RUN}`);
  await admits(t, 'for over a non-empty literal', `${READ}\nfor flag in ('-l', '-a'):\n    cmd = 'ls ' + flag\n${RUN}`);
  await admits(t, 'every break after the constant', `${READ}\nn = 0\nwhile True:\n    n += 1\n    if n > 3:\n        continue\n    cmd = 'ls'\n    break\n${RUN}`);
  await flows(t, 'a while whose condition is not known', `${READ}\nwhile request.form.get('again'):\n    cmd = 'ls'\n${RUN}`);
  await flows(t, 'for over a request list', `${READ}\nfor x in request.form.getlist('x'):\n    cmd = 'ls'\n${RUN}`);
  await flows(t, 'for over an empty literal', `${READ}\nfor x in []:\n    cmd = 'ls'\n${RUN}`);
  await flows(t, 'a break before the constant', `${READ}\nwhile True:\n    if cmd:\n        break\n    cmd = 'ls'\n${RUN}`);
  await flows(t, 'a continue skips the constant, then a break', `${READ}\nfor i in (1, 2):\n    if i == 1:\n        continue\n    break\nelse:\n    cmd = 'ls'\n${RUN}`);
  await flows(t, 'break skips the else', `${READ}\nfor i in (1, 2):\n    break\nelse:\n    cmd = 'ls'\n${RUN}`);
  await flows(t, 'the second pass sees the first pass', `${READ}\nsafe = 'ls'\nfor i in (1, 2):\n    os.system(safe)\n    safe = cmd\n`);
  await flows(t, 'continue goes back to the head', `${READ}\nsafe = 'ls'\nfor i in (1, 2):\n    os.system(safe)\n    if i:\n        safe = cmd\n        continue\n    safe = 'ls'\n`);
});

t.test('a while whose condition is false on entry runs its else', async (t) => {
  await flows(t, 'while False … else', `while False:\n    pass\nelse:\n    os.system(request.form.get('cmd', ''))`);
  await flows(t, 'a loop that stops on its condition', `${READ}\nn = 2\nwhile n:\n    n = 0\nelse:\n    ${RUN}`);
  await admits(t, 'the loop ends where the condition turns false', `${READ}\nrows = ['a']\nwhile rows:\n    rows.pop()\n    cmd = 'ls'\n${RUN}`);
});

t.test('a try handler starts from any state of the body', async (t) => {
  await flows(t, 'the request value between two constants', `cmd = 'ls'\ntry:\n    ${READ}\n    int(cmd)\n    cmd = 'ls'\nexcept ValueError:\n    ${RUN}`);
  await flows(t, 'finally after an exception', `cmd = 'ls'\ntry:\n    ${READ}\n    int(cmd)\n    cmd = 'ls'\nfinally:\n    ${RUN}`);
  await flows(t, 'finally after a handler that raises', `cmd = 'ls'\ntry:\n    int('1')\nexcept ValueError:\n    ${READ}\n    int(cmd)\n    cmd = 'ls'\nfinally:\n    ${RUN}`);
  await flows(t, 'an inner try that does not catch it', `cmd = 'ls'\ntry:\n    try:\n        ${READ}\n        int(cmd)\n        cmd = 'ls'\n    except KeyError:\n        pass\nexcept ValueError:\n    ${RUN}`);
  await flows(t, 'a raise in the body', `cmd = 'ls'\ntry:\n    ${READ}\n    raise ValueError(cmd)\nexcept ValueError:\n    ${RUN}`);
  await flows(t, 'a with body that may swallow the exception', `import contextlib\ncmd = 'ls'\nwith contextlib.suppress(ValueError):\n    ${READ}\n    int(cmd)\n    cmd = 'ls'\n${RUN}`);
  await admits(t, 'a file\'s with lets the exception through', `${READ}\nwith open('/tmp/log', 'a') as log:\n    cmd = 'ls'\n    log.write('x')\n${RUN}`);
  await flows(t, 'a with of unknown origin may swallow it', `import custom\n${READ}\nwith custom.guard():\n    int(cmd)\n    cmd = 'ls'\n${RUN}`);
  await admits(t, 'a handler that sets its own constant', `try:\n    ${READ}\n    int(cmd)\nexcept ValueError:\n    cmd = 'ls'\nelse:\n    cmd = 'ls -l'\n${RUN}`);
  await admits(t, 'a finally that sets the constant', `try:\n    ${READ}\nfinally:\n    cmd = 'ls'\n${RUN}`);
});

t.test('a function reads its scope when it is called, not when it was defined', async (t) => {
  const mod = (tail: string): string => `from flask import Flask, request\nimport os, threading\napp = Flask(__name__)\nCMD = 'ls'\n@app.route('/r')\ndef r():\n    os.system(CMD)\n    return 'ok'\n${tail}`;
  const a = await analyzePython(mod("CMD = os.environ.get('X')\n"));
  t.ok(a.findings.some((f) => f.rule_id === 'python.flow.cmdi' && isBlocking(f)), 'a module name rebound after the handler');
  const b = await analyzePython(mod("CMD = 'pwd'\n"));
  t.same(blocking(b.findings), [], 'a module name rebound to another constant after the handler');
  await flows(t, 'a closure run by other code after its name changed', `safe = 'ls'\ndef later():\n    os.system(safe)\nsafe = request.form.get('cmd', '')\nimport threading\nthreading.Thread(target=later).start()`);
});

t.test('a break or continue out of a try leaves through its finally', async (t) => {
  await flows(t, 'break', `cmd = 'ls'\nfor i in (1,):\n    try:\n        cmd = 'ls'\n        break\n    finally:\n        ${READ}\n${RUN}`);
  await flows(t, 'continue', `cmd = 'ls'\nfor i in (1, 2):\n    try:\n        if i == 1:\n            continue\n        break\n    finally:\n        ${READ}\n${RUN}`);
  await admits(t, 'a finally that sets a constant', `${READ}\nfor i in (1,):\n    try:\n        break\n    finally:\n        cmd = 'ls'\n${RUN}`);
});

t.test('x := A if C else B binds the whole conditional (both parsers read (x := A) if C else B)', async (t) => {
  await flows(t, 'the else side', `${READ}\nn = 106\nif (c := 'ls' if n > 200 else cmd) or True:\n    pass\nos.system(c)`);
  await admits(t, 'the if side', `${READ}\nn = 106\nif (c := 'ls' if n < 200 else cmd) or True:\n    pass\nos.system(c)`);
  await flows(t, 'a condition not known', `${READ}\nif (c := 'ls' if request.form.get('x') else cmd):\n    pass\nos.system(c)`);
});
