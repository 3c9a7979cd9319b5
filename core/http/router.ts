import FindMyWay from 'find-my-way';
import type { HttpMethod, RouteDef } from '../types.js';

export interface Match {
  route: RouteDef;
  params: Record<string, string>;
}

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const API_PREFIX = '/v1';

type Fmw = ReturnType<typeof FindMyWay>;

/**
 * The route table. Every route is served at its path and under /v1 (the spec's base address; the
 * local development server serves the bare paths). HEAD follows GET. A path that exists with other
 * methods answers 405 with Allow rather than 404.
 */
export class Router {
  private readonly fmw: Fmw = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 512 });
  private readonly table: RouteDef[] = [];

  add(route: RouteDef): void {
    if (!route.path.startsWith('/') || route.path.startsWith(API_PREFIX + '/')) {
      throw new Error(`route path must start with / and not with ${API_PREFIX}: ${route.path}`);
    }
    const clash = this.table.find((r) => r.method === route.method && r.path === route.path);
    if (clash) throw new Error(`route ${route.method} ${route.path} declared twice (${clash.plugin} and ${route.plugin})`);
    const noop = () => undefined;
    this.fmw.on(route.method, route.path, noop, route);
    this.fmw.on(route.method, API_PREFIX + route.path, noop, route);
    this.table.push(route);
  }

  find(method: string, path: string): Match | null {
    const m = method === 'HEAD' ? 'GET' : method;
    if (!METHODS.includes(m as HttpMethod)) return null;
    const found = this.fmw.find(m as HttpMethod, path);
    if (!found) return null;
    return { route: found.store as RouteDef, params: found.params as Record<string, string> };
  }

  /** Methods served at `path`, for 405's Allow header (empty: the path is unknown). */
  allowed(path: string): string[] {
    const out: string[] = METHODS.filter((m) => this.fmw.find(m, path) !== null);
    if (out.includes('GET')) out.push('HEAD');
    return out;
  }

  routes(): readonly RouteDef[] {
    return this.table;
  }
}
