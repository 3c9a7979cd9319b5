import { type PyNode, field, namedChildren } from './parser.js';

/** Positional arguments of a call (splats excluded). */
export function positionalArgs(call: PyNode): PyNode[] {
  const list = field(call, 'arguments');
  if (!list || list.type !== 'argument_list') return list ? [list] : [];
  return namedChildren(list).filter((c) => !['keyword_argument', 'list_splat', 'dictionary_splat'].includes(c.type));
}

/** Keyword argument value by name (NFKC-compared), or null. */
export function keywordArg(call: PyNode, name: string): PyNode | null {
  const list = field(call, 'arguments');
  if (!list) return null;
  for (const c of namedChildren(list)) {
    if (c.type === 'keyword_argument' && (field(c, 'name') as PyNode).text.normalize('NFKC') === name) return field(c, 'value');
  }
  return null;
}

/** True when the call spreads `*args` / `**kwargs`, whose contents are unknown. */
export function hasSplat(call: PyNode, kind: 'list_splat' | 'dictionary_splat'): boolean {
  const list = field(call, 'arguments');
  return !!list && namedChildren(list).some((c) => c.type === kind);
}

