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

const SHELLS = new Set([
  'sh', 'bash', 'zsh', 'dash', 'ksh', 'csh', 'tcsh', 'fish', 'ash', 'busybox', 'cmd', 'cmd.exe', 'powershell', 'powershell.exe', 'pwsh',
  'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php', 'nc', 'ncat', 'netcat', 'socat', 'osascript',
]);

/** True when argv[0] names a shell or script interpreter (running one is running arbitrary code). */
export function isInterpreter(program: string): boolean {
  const base = program.trim().split(/[\\/]/).pop()?.toLowerCase() ?? '';
  return SHELLS.has(base) || /^python[0-9.]+$/.test(base);
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
