import { readdirSync, readFileSync } from 'node:fs';

// CPU time of a process and its threads, read from /proc (Linux): what the benches charge per request
/** CPU seconds (user + system) of one thread (`tid`) or, without it, of the whole process so far */
export function cpuSeconds(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  // fields after the parenthesised command name, which may itself hold spaces
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/** CPU seconds of every live thread of `pid`, keyed by tid, with its name (`comm`) */
export function threadCpu(pid: number): Map<string, { name: string; s: number }> {
  const out = new Map<string, { name: string; s: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out.set(tid, { name, s: cpuSeconds(pid, Number(tid)) });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * Node names none of its threads, so they are listed by creation order (tid): the main thread, V8's
 * platform threads (GC helpers, compiler), libuv's pool (crypto callbacks, LMDB commits), then the
 * engine workers, which start later.
 */
export function printThreads(a: Map<string, { name: string; s: number }>, b: Map<string, { name: string; s: number }>, perReq: (s: number) => number): void {
  const parts = [...b]
    .sort((x, y) => Number(x[0]) - Number(y[0]))
    .map(([tid, t]) => [tid, t.name, perReq(t.s - (a.get(tid)?.s ?? 0))] as const)
    .filter(([, , us]) => us > 0)
    .map(([tid, name, us]) => `${tid}${name === 'node' ? '' : `(${name})`} ${us}`);
  console.log(`  threads µs/req (tid µs): ${parts.join(', ')}`);
}

/** the kernel's USER_HZ: 100 on every Linux node runs on */
const CLK_TCK = 100;
