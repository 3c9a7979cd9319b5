import type { Server } from 'node:http';
import { HttpError } from '../../core/errors.js';
import type { App, Plugin, ServiceKey, Services } from '../../core/types.js';
import { registerComplianceRoutes } from './compliance.js';
import { OpsProblems } from './errors.js';
import { registerMetricsRoutes, startMetricsListener } from './metrics.js';
import { registerOrgRoutes } from './orgs.js';
import { registerThreatRoutes } from './threats.js';

/**
 * Operations: metrics (operator-only global view, per-tenant view, Prometheus text) and the
 * admin compliance and security routes. Reads what auth and audit recorded, through their
 * services and public exports; it owns no data of its own.
 */
function need<K extends ServiceKey>(app: App, name: K): () => NonNullable<Services[K]> {
  return () => {
    const s = app.service(name);
    if (!s) throw new HttpError(OpsProblems.unavailable, `${name} is not available (is the auth plugin loaded?)`);
    return s as NonNullable<Services[K]>;
  };
}

export const METRICS_LISTENER_SERVICE = 'ops.metrics_listener';

declare module '../../core/types.js' {
  interface Services {
    /** the separate Prometheus listener, when ops.metrics_port is set */
    'ops.metrics_listener': Server;
  }
}

const plugin: Plugin = {
  name: 'ops',
  provides: [METRICS_LISTENER_SERVICE],
  optional: ['auth.accounts', 'auth.keys', 'security.events', 'auth.orgs', 'audit.admin', 'audit.reader'],
  async register(app: App) {
    const services = {
      accounts: need(app, 'auth.accounts'),
      keys: need(app, 'auth.keys'),
      events: need(app, 'security.events'),
    };
    registerMetricsRoutes(app, services);
    registerComplianceRoutes(app, services);
    registerThreatRoutes(app, services);
    registerOrgRoutes(app, need(app, 'auth.orgs'));
    const listener = await startMetricsListener(app);
    if (listener) {
      app.provide(METRICS_LISTENER_SERVICE, listener);
      app.onClose(
        () =>
          new Promise<void>((resolve) => {
            listener.close(() => resolve());
            // a scraper's keep-alive connection must not hold shutdown open
            listener.closeAllConnections();
          }),
      );
    }
  },
};
export default plugin;

export { orgStats } from './stats.js';
export { threatLevel } from './threats.js';
export { isOperator } from './orgs.js';
