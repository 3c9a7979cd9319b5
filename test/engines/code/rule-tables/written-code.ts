import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeTypeScript } from '../../../../plugins/engines/code/analyze.js';
import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * A file the program writes and then imports, requires, loads as a Worker or runs as a program was
 * proven safe (VERIFIED, is_valid true, ADMIT) before: the import statement or the fixed program path
 * looked ordinary. Also a Python .pth or sitecustomize/usercustomize.py written, which the site module
 * runs at every interpreter start. Writing data, or code that is never loaded, stays admitted.
 */
const PY_UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ["write py then import", "import importlib\nwith open('plugin_x.py', 'w') as f:\n    f.write(src)\nimportlib.invalidate_caches()\nimport plugin_x\n", 'python.dangerous_call.written_code'],
  ["write pth", "import site\nopen(site.getsitepackages()[0] + '/x.pth', 'w').write('import os; os.system(\"id\")')\n", 'python.dangerous_call.startup_file'],
  ["write pth pathlib", "import site\nfrom pathlib import Path\n(Path(site.getusersitepackages()) / 'evil.pth').write_text(line)\n", 'python.dangerous_call.startup_file'],
  ["write sitecustomize", "open('/usr/lib/python3/dist-packages/sitecustomize.py', 'w').write(src)\n", 'python.dangerous_call.startup_file'],
  ["write sitecustomize join", "import os, site\nwith open(os.path.join(site.getsitepackages()[0], 'usercustomize.py'), 'a') as f:\n    f.write(src)\n", 'python.dangerous_call.startup_file'],
  ["write chmod exec", "import os, subprocess\nopen('/tmp/run.sh', 'w').write(script)\nos.chmod('/tmp/run.sh', 0o755)\nsubprocess.run(['/tmp/run.sh'])\n", 'python.dangerous_call.written_code'],
  ["write var exec", "import os, subprocess, tempfile\np = os.path.join(tempfile.mkdtemp(), 'run')\nwith open(p, 'w') as f:\n    f.write(script)\nos.chmod(p, 0o700)\nsubprocess.check_call([p, '--go'])\n", 'python.dangerous_call.written_code'],
  ["pathlib write then import", "from pathlib import Path\nPath('mod_y.py').write_text(src)\nimport mod_y\n", 'python.dangerous_call.written_code'],
  ["write then import_module", "import importlib, os\nwith open(os.path.join(d, 'gen_mod.py'), 'w') as f:\n    f.write(code)\nimportlib.invalidate_caches()\nm = importlib.import_module('gen_mod')\n", 'python.dangerous_call.written_code'],
];

const PY_SAFE: Array<[name: string, src: string]> = [
  ["write txt json read", "import json\nwith open('out.txt', 'w') as f:\n    f.write(text)\njson.dump(data, open('data.json', 'w'))\nprint(open('out.txt').read(), json.load(open('data.json')))\n"],
  ["write py only", "with open('generated_models.py', 'w') as f:\n    f.write(render(schema))\n"],
  ["read py then import", "import json\nsrc = open('helpers.py').read()\nimport helpers\n"],
  ["write log, run fixed", "import subprocess\nopen('/tmp/build.log', 'w').write(log)\nsubprocess.run(['make', 'all'])\n"],
];

const JS_UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ["write then require", "const fs = require('fs');\nconst p = '/tmp/x.js';\nfs.writeFileSync(p, src);\nrequire(p);\n", 'javascript.dangerous_call.written_code'],
  ["write then import", "import fs from 'node:fs';\nfs.writeFileSync('/tmp/x.mjs', src);\nawait import('/tmp/x.mjs');\n", 'javascript.dangerous_call.written_code'],
  ["write then Worker", "const fs = require('fs');\nconst { Worker } = require('worker_threads');\nfs.writeFileSync('/tmp/w.js', src);\nnew Worker('/tmp/w.js');\n", 'javascript.dangerous_call.written_code'],
  ["write chmod execFile", "const fs = require('fs');\nfs.writeFileSync('/tmp/r.sh', src);\nfs.chmodSync('/tmp/r.sh', 0o755);\nrequire('child_process').execFileSync('/tmp/r.sh');\n", 'javascript.dangerous_call.written_code'],
  ["write promises then import", "import { writeFile } from 'node:fs/promises';\nconst f = './gen.mjs';\nawait writeFile(f, src);\nawait import(f);\n", 'javascript.dangerous_call.written_code'],
  ["join write, relative require", "const fs = require('fs');\nconst path = require('path');\nfs.writeFileSync(path.join(__dirname, 'gen.js'), code);\nrequire('./gen');\n", 'javascript.dangerous_call.written_code'],
  ["computed path var", "const fs = require('fs');\nconst file = path.join(os.tmpdir(), name);\nfs.writeFileSync(file, code);\nrequire(file);\n", 'javascript.dangerous_call.written_code'],
];

const JS_SAFE: Array<[name: string, src: string]> = [
  ["write json read", "const fs = require('fs');\nfs.writeFileSync('/tmp/x.json', JSON.stringify(o));\nconst o2 = require('/tmp/x.json');\nconsole.log(fs.readFileSync('/tmp/x.json', 'utf8'));\n"],
  ["write js only", "const fs = require('fs');\nfs.writeFileSync('dist/bundle.js', out);\n"],
  ["write log, require lib", "const fs = require('fs');\nfs.appendFileSync('app.log', line);\nconst _ = require('lodash');\n"],
];

ruleTable('python: files written, then imported or run', 'python', PY_UNSAFE, PY_SAFE);

ruleTable('javascript: files written, then required, imported, run as a Worker or a program', 'javascript', JS_UNSAFE, JS_SAFE);

t.test('javascript: files written, then required, imported, run as a Worker or a program: TypeScript takes the same path', async (t) => {
  const ts = analyzeTypeScript("import * as fs from 'fs';\nconst p: string = '/tmp/plugin.js';\nfs.writeFileSync(p, body);\nrequire(p);\n");
  t.ok(ts.findings.some((f) => f.rule_id === 'typescript.dangerous_call.written_code' && isBlocking(f)), 'TypeScript takes the same path');
});

blockedOverHttp(
  'POST /verify/code answers BLOCKED admission for both languages',
  [...pick(PY_UNSAFE, ['write py then import', 'write pth', 'write chmod exec'], 'python'), ...pick(JS_UNSAFE, ['write then require', 'write then Worker'], 'javascript')],
  pick(PY_SAFE, [PY_SAFE[0][0]], 'python'),
);
