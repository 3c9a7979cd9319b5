import { type PyNode, field } from '../parser.js';
import { type Env, type V, UNKNOWN, carried, mix, nested, unknownOrigin } from './value.js';

/**
 * A method called on a list, tuple, set or deque whose items are known one by one, bound to `name`.
 * The methods modelled keep the items known (`append`, `pop`, `insert`, `extend`, `copy`, a deque's
 * `appendleft`/`popleft`); any other may
 * reorder, drop or add items (`reverse`, `sort`, `remove`, a set's `add`, …), so the items are then no
 * longer known one by one, only what they carry together — never dropped, which would lose a flow
 * (`l.reverse(); l[0]` is the former last item).
 */
export function listMethod(recv: V, m: string, args: V[], all: V[], name: string, env: Env, line: number): V {
  const items = [...(recv.items as V[])];
  const keep = (next: V[]): V => {
    env.set(name, { ...recv, items: next });
    return {};
  };
  if (m === 'append' && args.length === 1 && all.length === 1) return keep([...items, nested(args[0], line)]);
  // collections.deque's other end
  if (m === 'appendleft' && args.length === 1 && all.length === 1) return keep([nested(args[0], line), ...items]);
  if (m === 'popleft' && all.length === 0) {
    const got = items.shift() ?? UNKNOWN;
    keep(items);
    return got;
  }
  if (m === 'pop' && all.length === args.length && args.length <= 1) {
    // an index not known could be any item
    const at = args.length === 0 ? -1 : args[0].known && typeof args[0].k === 'number' ? args[0].k : null;
    if (at !== null) {
      const i = at < 0 ? items.length + at : at;
      const [got] = i >= 0 && i < items.length ? items.splice(i, 1) : [UNKNOWN];
      keep(items);
      return got;
    }
  }
  if (m === 'insert' && args.length === 2 && all.length === 2 && args[0].known && typeof args[0].k === 'number') {
    items.splice(args[0].k, 0, nested(args[1], line));
    return keep(items);
  }
  if (m === 'extend' && args.length === 1 && all.length === 1 && args[0].items) return keep([...items, ...args[0].items.map((x) => nested(x, line))]);
  if (m === 'copy' && all.length === 0) return { ...recv, items };
  if ((m === 'index' || m === 'count') && !recv.flow && !recv.unk) return {};
  const carriedAll = mix([recv, ...all], line);
  env.set(name, { ...carriedAll, ...(recv.q ? { q: recv.q } : {}) });
  return carriedAll;
}

/** The name a subscript chain starts from: `rows[0][1]` → `rows`. */
export function rootName(n: PyNode | null): string | null {
  let x = n;
  while (x?.type === 'subscript') x = field(x, 'value');
  return x && (x.type === 'identifier' || x.type === 'attribute') ? x.text : null;
}

/**
 * A container changed through a path not followed item by item (`rows[0].append(v)`, `rows[0][1] = v`,
 * `del rows[0]`): it keeps only what it carried, with what was put in.
 */
export function forget(env: Env, name: string, put: V[], line: number): void {
  const cur = env.get(name);
  if (cur) env.set(name, { ...mix([cur, ...put], line), ...(cur.q ? { q: cur.q } : {}) });
}

/** A list or dict other code holds too: its members are no longer known one by one, and are of unknown origin. */
export function share(name: string, v: V, why: string, env: Env, line: number): V {
  const out: V = { ...carried(v), unk: carried({ ...v, unk: unknownOrigin(`the members of ${name} (${why}, so they may change out of sight)`, line).unk }).unk };
  if (v.q) out.q = v.q;
  env.set(name, out);
  return out;
}
