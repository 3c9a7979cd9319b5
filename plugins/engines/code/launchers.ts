import { gitLaunch, gitOptionFinding, isGit } from './git-options.js';

/**
 * Programs whose job is to run another program named in their own argv: `env sh -c …`,
 * `timeout 5 bash`, `sudo -u root python3 …`, `xargs sh -c …`, `find . -exec sh -c … ;`. The
 * program that runs is the one they launch, so the argv[0] rules (interpreter, reconnaissance,
 * computed program) apply to it; without this `["env", "sh", "-c", cmd]` was a fixed program with
 * computed arguments (MEDIUM, admitted) while `["sh", "-c", cmd]` is HIGH.
 */
export interface LaunchedRun {
  /** the program that finally runs; null when an argv item in its place is computed */
  program: string | null;
  items: Array<string | null>;
  /** the launchers passed through, outermost first (empty: argv[0] runs itself) */
  via: string[];
}

interface Launcher {
  /** options that take the next item as their value */
  valued?: readonly string[];
  /** positional items before the program (timeout's duration, chroot's directory, flock's lock file) */
  before?: number;
  /** NAME=value items are settings, not the program */
  assignments?: boolean;
  /** options whose value is a command line given to a shell (`su -c`, `flock -c`) */
  script?: readonly string[];
  /** options after which the rest of argv is run by a shell (`sudo -s cmd`) */
  shellFlags?: readonly string[];
  /** the rest of argv is joined and run by `sh -c` (watch) */
  joinShell?: boolean;
  /** without a script option it starts a shell (su, script) */
  shellOtherwise?: boolean;
}

const LAUNCHERS = new Map<string, Launcher>([
  ['env', { valued: ['-u', '--unset', '-C', '--chdir'], assignments: true }],
  ['nice', { valued: ['-n', '--adjustment'] }],
  ['nohup', {}],
  ['setsid', {}],
  ['unbuffer', {}],
  ['fakeroot', {}],
  ['catchsegv', {}],
  ['timeout', { valued: ['-s', '--signal', '-k', '--kill-after'], before: 1 }],
  ['sudo', { valued: ['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '--user', '--group', '--host', '--prompt', '--chdir', '--role', '--type', '--other-user', '--close-from', '--command-timeout'], assignments: true, shellFlags: ['-s', '-i', '--shell', '--login'] }],
  ['doas', { valued: ['-u', '-C'], shellFlags: ['-s'] }],
  ['stdbuf', { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] }],
  ['time', { valued: ['-o', '--output', '-f', '--format'] }],
  ['chroot', { before: 1 }],
  ['ionice', { valued: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'] }],
  ['chrt', { before: 1 }],
  ['taskset', { before: 1 }],
  ['flock', { valued: ['-w', '--timeout', '-E', '--conflict-exit-code'], before: 1, script: ['-c', '--command'] }],
  ['xargs', { valued: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'] }],
  ['nsenter', { valued: ['-t', '--target', '-S', '--setuid', '-G', '--setgid'] }],
  ['unshare', {}],
  ['strace', { valued: ['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-P', '-S', '-I', '-b', '-X'] }],
  ['ltrace', { valued: ['-o', '-e', '-p', '-s', '-u', '-a', '-n', '-x', '-L'] }],
  ['su', { valued: ['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w'], script: ['-c', '--command'], shellOtherwise: true }],
  ['runuser', { valued: ['-u', '--user', '-g', '--group', '-G', '--supp-group', '-s', '--shell', '-w'], script: ['-c', '--command'] }],
  ['script', { valued: ['-E', '--echo', '-O', '--log-out', '-I', '--log-in', '-B', '--log-io', '-T', '--log-timing', '-m', '--logging-format'], script: ['-c', '--command'], shellOtherwise: true }],
  ['watch', { valued: ['-n', '--interval', '-d', '--differences'], joinShell: true }],
]);

/** `find` runs the program after each -exec/-execdir/-ok/-okdir (up to `;` or `+`). */
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

const baseName = (program: string): string => program.trim().split(/[\\/]/).pop()?.toLowerCase().replace(/\.exe$/, '') ?? '';

function shellRun(script: Array<string | null> | string | null, via: string[]): LaunchedRun {
  const text = Array.isArray(script) ? (script.some((s) => s === null) ? null : script.join(' ')) : script;
  return { program: 'sh', items: ['-c', text], via };
}

/** The program `program items…` finally runs, through any launchers (at most 8 deep); `step` sees each program on the way. */
export function launchedProgram(program: string, items: Array<string | null>, step?: (program: string, items: Array<string | null>) => void): LaunchedRun {
  let prog = program;
  let rest = items;
  const via: string[] = [];
  for (let depth = 0; depth < 8; depth++) {
    step?.(prog, rest);
    const base = baseName(prog);
    if (base === 'find') {
      const at = rest.findIndex((x) => x !== null && FIND_EXEC.has(x));
      if (at < 0) return { program: prog, items: rest, via };
      const end = rest.findIndex((x, i) => i > at && (x === ';' || x === '+'));
      via.push(base);
      const next = rest[at + 1];
      if (next === null || next === undefined) return { program: next === null ? null : prog, items: rest, via };
      prog = next;
      rest = rest.slice(at + 2, end < 0 ? undefined : end);
      continue;
    }
    if (base === 'git') {
      // git bisect run <program>, git submodule foreach <shell command>
      const g = gitLaunch(rest);
      if (g === null) return { program: prog, items: rest, via };
      via.push(base);
      if (g.shell) return shellRun(g.items, via);
      if (g.items[0] === null) return { program: null, items: g.items.slice(1), via };
      prog = g.items[0];
      rest = g.items.slice(1);
      continue;
    }
    const l = LAUNCHERS.get(base);
    if (!l) return { program: prog, items: rest, via };
    via.push(base);
    // `su root -c cmd`: the command option may follow the positional user name
    const at = l.script ? rest.findIndex((x) => x !== null && l.script?.includes(x)) : -1;
    if (at >= 0) return shellRun(rest[at + 1] ?? null, via);
    let before = l.before ?? 0;
    let shell = false;
    let i = 0;
    let split = 0;
    while (i < rest.length) {
      const x = rest[i];
      if (x === '--') {
        i++;
        break;
      }
      if (x !== null && x.length > 1 && x.startsWith('-')) {
        // env -S 'sh -c id' splits its value into arguments
        if (base === 'env' && (x === '-S' || x === '--split-string') && split++ < 4) {
          const v = rest[i + 1];
          if (v === null || v === undefined) return { program: null, items: rest.slice(i + 2), via };
          rest = [...v.trim().split(/\s+/).filter(Boolean), ...rest.slice(i + 2)];
          i = 0;
          continue;
        }
        if (l.shellFlags?.includes(x)) shell = true;
        i += l.valued?.includes(x) ? 2 : 1;
        continue;
      }
      if (l.assignments && x !== null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(x)) {
        i++;
        continue;
      }
      if (before > 0) {
        before--;
        i++;
        continue;
      }
      break;
    }
    const tail = rest.slice(i);
    if (shell) return tail.length ? shellRun(tail, via) : { program: 'sh', items: [], via };
    if (l.joinShell) return shellRun(tail, via);
    if (l.shellOtherwise) return { program: 'sh', items: [], via };
    // a launcher with nothing to launch runs itself (`env` alone prints the environment)
    if (!tail.length) return { program: prog, items: rest, via: via.slice(0, -1) };
    if (tail[0] === null) return { program: null, items: tail.slice(1), via };
    prog = tail[0];
    rest = tail.slice(1);
  }
  return { program: null, items: rest, via };
}

/**
 * Why `program items…` (through any launchers) is a git that runs a program its argv names
 * (`-c core.sshCommand=…`, `--upload-pack=…`, an `ext::` remote), or null. `items` may hold known
 * prefixes ending in COMPUTED_TAIL (git-options.ts).
 */
export function gitFinding(program: string, items: Array<string | null>): string | null {
  let why: string | null = null;
  // every git on the way counts: `git -c core.sshCommand=… bisect run make` launches make
  launchedProgram(program, items, (p, rest) => {
    if (why === null && isGit(p)) why = gitOptionFinding(rest);
  });
  return why;
}
