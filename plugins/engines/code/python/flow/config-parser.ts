import type { Env, V } from './value.js';
import { UNKNOWN, mix, unknownOrigin } from './value.js';

/**
 * A ConfigParser built in this function is a dictionary of (section, option): what `get` returns is
 * what `set` stored under constant names; anything else read from it (a file) is of unknown origin.
 */
export function configParser(recv: V, m: string, args: V[], name: string | null, env: Env, line: number): V {
  const at = (s?: V, o?: V): string | null => (s?.known && o?.known ? `${String(s.k)}\u0000${String(o.k).toLowerCase()}` : null);
  const keys = recv.keys as Map<string, V>;
  if (m === 'add_section' || m === 'has_section' || m === 'has_option' || m === 'sections') return {};
  if (m === 'set' && name) {
    const k = at(args[0], args[1]);
    env.set(name, k !== null ? { ...recv, keys: new Map(keys).set(k, args[2] ?? UNKNOWN) } : { ...mix([recv, ...args], line), q: recv.q });
    return {};
  }
  if (m === 'get') {
    const k = at(args[0], args[1]);
    const got = k !== null ? keys.get(k) : undefined;
    if (got) return got;
  }
  return mix([recv, ...args, unknownOrigin(`a configuration value (.${m}())`, line)], line);
}
