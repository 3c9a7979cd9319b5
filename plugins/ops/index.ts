import { HttpError } from '../../core/errors.js';
import type { App, Plugin } from '../../core/types.js';
import type { Accounts, ApiKeys, OrgAdmin, SecurityEvents } from '../auth/index.js';
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
function need<T>(app: App, name: string): () => T {
  return () => {
    const s = app.service<T>(name);
    if (!s) throw new HttpError(OpsProblems.unavailable, `${name} is not available (is the auth plugin loaded?)`);
    return s;
  };
}

export const METRICS_LISTENER_SERVICE = 'ops.metrics_listener';

const plugin: Plugin = {
  name: 'ops',
  async register(app: App) {
    const services = {
      accounts: need<Accounts>(app, 'auth.accounts'),
      keys: need<ApiKeys>(app, 'auth.keys'),
      events: need<SecurityEvents>(app, 'security.events'),
    };
    registerMetricsRoutes(app, services);
    registerComplianceRoutes(app, services);
    registerThreatRoutes(app, services);
    registerOrgRoutes(app, need<OrgAdmin>(app, 'auth.orgs'));
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
