import { type PyNode, field } from '../parser.js';
import { namedChildren } from './kids.js';
import { paramsOf } from './writes.js';

const ROUTE_DECORATOR = /\.(route|get|post|put|patch|delete|api_route|websocket)\s*\(/;

/** How an entry point is reached: a route handler's parameters and return are the client's. */
export interface RouteDef {
  params: PyNode[];
  decorators: string[];
  /** a Django view: wired to a URL elsewhere, its path not fixed here */
  view: boolean;
  isRoute: boolean;
}

export function routeDef(def: PyNode): RouteDef {
  const decorators = def.parent?.type === 'decorated_definition' ? namedChildren(def.parent).filter((c) => c.type === 'decorator').map((d) => d.text) : [];
  const params = paramsOf(def);
  const view = djangoView(params);
  return { params, decorators, view, isRoute: view || decorators.some((d) => ROUTE_DECORATOR.test(d)) };
}

/** A Django view (function or class-based): its first parameter after self is the request. */
function djangoView(params: PyNode[]): boolean {
  const names = params.map((p) => (p.type === 'identifier' ? p.text : (field(p, 'name') ?? namedChildren(p).find((c) => c.type === 'identifier'))?.text ?? ''));
  const at = names[0] === 'self' ? 1 : 0;
  const p = params[at];
  return names[at] === 'request' || (p?.type === 'typed_parameter' && /\bHttpRequest$/.test(field(p, 'type')?.text ?? ''));
}
