import type { Severity } from './types.js';

/**
 * Classifies a command string that the syntax tree proves is handed to a shell (a literal argument
 * of os.system, subprocess with shell=True, child_process.exec, …). The execution itself is the proven
 * finding; this only names what the literal command does, so the finding says "download piped to a
 * shell" instead of "runs a shell command".
 */
export interface ShellShape {
  type: string;
  severity: Severity;
  rule: string;
  message: string;
}

const FETCHER = String.raw`(?:curl|wget|fetch|iwr|invoke-webrequest|invoke-restmethod|irm)`;
const INTERPRETER = String.raw`(?:sudo\s+)?(?:\S*/)?(?:ba|z|da|k|c|tc|fi)?sh|(?:\S*/)?(?:python[0-9.]*|perl|ruby|node|php|iex|invoke-expression|powershell|pwsh)`;

const SHAPES: Array<{ re: RegExp; shape: ShellShape }> = [
  {
    re: new RegExp(String.raw`\b${FETCHER}\b[^|;&]*\|\s*(?:${INTERPRETER})\b`, 'i'),
    shape: { type: 'remote_code_execution', severity: 'CRITICAL', rule: 'rce.download_pipe_shell', message: 'downloads content and pipes it into an interpreter' },
  },
  {
    re: new RegExp(String.raw`(?:\$\(|\x60|<\()\s*${FETCHER}\b`, 'i'),
    shape: { type: 'remote_code_execution', severity: 'CRITICAL', rule: 'rce.download_substitution', message: 'executes downloaded content through shell substitution' },
  },
  {
    re: /\/dev\/(?:tcp|udp)\/|\b(?:nc|ncat|netcat)\b[^|;&]*\s-[a-z]*[ec]\b|\bmkfifo\b[^;]*\b(?:nc|ncat|netcat)\b|\bsocat\b[^;]*\bexec:/i,
    shape: { type: 'reverse_shell', severity: 'CRITICAL', rule: 'shell.reverse_shell_command', message: 'opens a reverse shell' },
  },
  {
    re: /\brm\s+(?:-{1,2}[a-z-]+\s+)*(?:\/|\/\*|~\/?|\$HOME\/?|\/home\/?|\/etc\/?|\/usr\/?|\/var\/?|\/boot\/?|\/root\/?)(?:\s|$|;|&)|\bmkfs(?:\.\w+)?\b|\bdd\b[^;]*\bof=\/dev\/(?:sd|hd|nvme|xvd|vd|disk)|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}/i,
    shape: { type: 'destructive_filesystem_operation', severity: 'CRITICAL', rule: 'shell.destructive_command', message: 'runs a destructive command on a system or home path' },
  },
];

export function classifyShellCommand(command: string): ShellShape | null {
  for (const { re, shape } of SHAPES) if (re.test(command)) return shape;
  return null;
}

/** Shapes that need a shell to mean anything: a pipe or `$(…)` handed to a program as argv is just text. */
const SHELL_ONLY_RULES = new Set(['rce.download_pipe_shell', 'rce.download_substitution']);

/**
 * Classifies an argv run without a shell (`subprocess.run([...])`, `execFile`, `spawn`). A shell
 * program given `-c <script>` runs the script through a shell, so the script is classified as one;
 * otherwise `["curl", url, "|", "bash"]` is curl with the arguments "|" and "bash", not a pipe.
 * `null` items are computed arguments.
 */
export function classifyArgv(program: string, items: Array<string | null>): ShellShape | null {
  const base = program.trim().split(/[\\/]/).pop()?.toLowerCase() ?? '';
  if (SHELL_NAMES.has(base)) {
    const i = items.findIndex((x) => x !== null && /^-[a-z]*c[a-z]*$/i.test(x));
    const script = i >= 0 ? items[i + 1] : undefined;
    if (typeof script === 'string') {
      const shape = classifyShellCommand(script);
      if (shape) return shape;
    }
  }
  const shape = classifyShellCommand([program, ...items.map((x) => x ?? '')].join(' '));
  return shape && !SHELL_ONLY_RULES.has(shape.rule) ? shape : null;
}

/** argv items that would be shell syntax if a shell read them; without one they reach the program as text. */
export function shellSyntaxInArgv(items: Array<string | null>): string | null {
  for (const x of items) if (x !== null && /^(\||\|\||&&|;|>|>>|<|\$\(.*|`.*)$/.test(x.trim())) return x.trim();
  return null;
}

const SHELL_NAMES = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'csh', 'tcsh', 'fish', 'ash', 'busybox']);

/**
 * Programs whose only effect is to report who and where the process runs (user, groups, host,
 * network, environment): run by generated code they are reconnaissance, not work.
 */
const RECON = new Set(['id', 'whoami', 'uname', 'hostname', 'hostnamectl', 'ifconfig', 'ipconfig', 'netstat', 'printenv', 'env', 'systeminfo', 'getent', 'groups', 'who', 'w', 'last', 'lastlog', 'arp', 'route', 'nltest', 'net', 'query', 'klist']);

export function isReconProgram(program: string): boolean {
  const base = program.trim().split(/[\\/]/).pop()?.toLowerCase().replace(/\.exe$/, '') ?? '';
  return RECON.has(base);
}

const SHELLS = new Set([
  'sh', 'bash', 'zsh', 'dash', 'ksh', 'csh', 'tcsh', 'fish', 'ash', 'busybox', 'cmd', 'cmd.exe', 'powershell', 'powershell.exe', 'pwsh',
  'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php', 'nc', 'ncat', 'netcat', 'socat', 'osascript',
  // awk's system() and getline-from-command, and the other script interpreters, run what the argv says
  'awk', 'gawk', 'mawk', 'nawk', 'nodejs', 'deno', 'bun', 'pypy', 'pypy3', 'lua', 'luajit', 'tclsh', 'wish', 'expect', 'rscript', 'irb',
  'cscript', 'wscript', 'mshta',
]);

/** True when argv[0] names a shell or script interpreter (running one is running arbitrary code). */
export function isInterpreter(program: string): boolean {
  const base = program.trim().split(/[\\/]/).pop()?.toLowerCase().replace(/\.exe$/, '') ?? '';
  return SHELLS.has(base) || /^(?:python|pypy|perl|ruby|php|lua|node)[0-9.]+$/.test(base);
}

/** Paths whose deletion destroys a system or a home directory. */
export function isCriticalPath(path: string): boolean {
  const p = path.trim().replace(/\\/g, '/');
  if (/^[a-z]:\/?$/i.test(p) || /^[a-z]:\/(windows|users)\/?$/i.test(p)) return true;
  const norm = p.length > 1 ? p.replace(/\/+$/, '') : p;
  return (
    norm === '/' || norm === '/*' || norm === '~' || norm === '~/*' || norm === '$HOME' ||
    /^\/(home|root|etc|usr|var|boot|bin|sbin|lib|lib64|opt|srv|dev|proc|sys|Users|System|Library)(\/\*)?$/.test(norm) ||
    /^\/home\/[^/]+$/.test(norm) || /^\/Users\/[^/]+$/.test(norm)
  );
}

/**
 * A command line split into argv as POSIX shell quoting does (`shlex.split`, pexpect's own split):
 * quotes and backslashes group, nothing else is interpreted (no pipes, variables or globs). Null when
 * a quote is left open.
 */
export function splitCommandLine(s: string): string[] | null {
  const out: string[] = [];
  let cur = '';
  let word = false;
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quote === "'") {
      if (ch === "'") quote = null;
      else cur += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < s.length && '"\\$`\n'.includes(s[i + 1])) cur += s[++i];
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word = true;
    } else if (ch === '\\' && i + 1 < s.length) {
      cur += s[++i];
      word = true;
    } else if (/\s/.test(ch)) {
      if (word) out.push(cur);
      cur = '';
      word = false;
    } else {
      cur += ch;
      word = true;
    }
  }
  if (quote !== null) return null;
  if (word) out.push(cur);
  return out;
}
