import { type PyNode, field } from './parser.js';
import { type Resolver, ident, keywordArg, positionalArgs } from './resolve.js';
import type { Report } from './rules.js';
import { envHookFinding, isEnvHookName } from '../env-hooks.js';

const ENVIRON = new Set(['os.environ', 'os.environb']);

/**
 * Writes of environment variables that make programs started later load code (`../env-hooks.ts`):
 * `os.environ['LD_PRELOAD'] = …` (also `+=`), `os.putenv`, `os.environ.setdefault/__setitem__`, and
 * any dict literal or keyword naming one (`env={**os.environ, 'LD_PRELOAD': …}`,
 * `os.environ.update({…})`, `dict(os.environ, BASH_ENV=…)`). A variable named by a computed key
 * (`os.environ[k] = v`, as a .env loader does) cannot be proven to be one of them and is not reported.
 */
export class EnvWrites {
  constructor(
    private readonly r: Resolver,
    private readonly report: Report,
  ) {}

  private judge(at: PyNode, name: string | null, value: PyNode | null | undefined): void {
    if (name === null || !isEnvHookName(name)) return;
    const hit = envHookFinding(name, value ? this.r.fold(value) : null);
    if (hit !== null) this.report(at, 'HIGH', 'code_execution', hit.rule, hit.message);
  }

  /** `os.environ[K] = v` / `os.environ[K] += v` (with `+=` the right side is what this program adds). */
  assignment(n: PyNode): void {
    const left = field(n, 'left');
    if (!left || left.type !== 'subscript') return;
    const key = field(left, 'subscript');
    if (key && this.r.qualify(field(left, 'value') as PyNode).some((q) => ENVIRON.has(q))) this.judge(n, this.r.fold(key), field(n, 'right'));
  }

  /** `{'LD_PRELOAD': v}` anywhere: an env mapping for subprocess, os.execve, `.update` or `|=`. */
  pair(n: PyNode): void {
    const key = field(n, 'key');
    if (key && (key.type === 'string' || key.type === 'concatenated_string')) this.judge(n, this.r.fold(key), field(n, 'value'));
  }

  /** `dict(os.environ, LD_PRELOAD=v)`, `os.environ.update(BASH_ENV=v)`. */
  keyword(n: PyNode): void {
    const name = field(n, 'name');
    if (name) this.judge(n, ident(name.text), field(n, 'value'));
  }

  call(n: PyNode, quals: readonly string[]): void {
    for (const q of quals) {
      if (q === 'os.putenv' || q === 'os.environ.setdefault' || q === 'os.environ.__setitem__' || q === 'os.environb.setdefault') {
        const [k, v] = positionalArgs(n);
        if (k) this.judge(n, this.r.fold(k), v ?? keywordArg(n, 'value'));
        return;
      }
    }
  }
}
