import { type PyNode, field, namedChildren } from '../parser.js';
import { paramsOf } from './writes.js';

/** the methods of a framework's app or router that register a handler */
export const ROUTE_VERBS = ['route', 'get', 'post', 'put', 'patch', 'delete', 'api_route', 'websocket'];
/** `.route(` and the like, with the decorator's spaces, line continuations and comments taken out, and brackets closed before the call (`@(app.route)('/')`) */
const ROUTE_DECORATOR = new RegExp(`\\.(${ROUTE_VERBS.join('|')})\\)*\\(`);
const compact = (d: string): string => d.replace(/\\\r?\n/g, '').replace(/#[^\n]*/g, '').replace(/\s+/g, '');

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
  return { params, decorators, view, isRoute: view || decorators.some((d) => ROUTE_DECORATOR.test(compact(d))) };
}

/** A Django view (function or class-based): its first parameter after self is the request. */
function djangoView(params: PyNode[]): boolean {
  const names = params.map((p) => (p.type === 'identifier' ? p.text : (field(p, 'name') ?? namedChildren(p).find((c) => c.type === 'identifier'))?.text ?? ''));
  const at = names[0] === 'self' ? 1 : 0;
  const p = params[at];
  return names[at] === 'request' || (p?.type === 'typed_parameter' && /\bHttpRequest$/.test(field(p, 'type')?.text ?? ''));
}
