import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '../../core/obs/metrics.js';
import type { A2AMetricsResponse } from '../../schemas/gen/index.js';
import type { VerdictStatus } from './message.js';

/**
 * Intercept counters, twice: plain numbers for GET /a2a/metrics (per organisation and process, since start) and
 * Prometheus series on the kernel registry. Label values are bounded: `verdict` is the five
 * statuses, `engine` the guard names registered at start-up plus `trust_boundary`.
 */
export const TRUST_ENGINE = 'trust_boundary';

/** GET /a2a/metrics: schemas/a2a/metrics.response.json, generated (schemas/gen/a2a.gen.ts) */
export type A2AMetricsSnapshot = A2AMetricsResponse;

/** one organisation's counts since start */
class Counts {
  total = 0;
  forwarded = 0;
  blocked = 0;
  errors = 0;
  latencyMsSum = 0;
  readonly engines: A2AMetricsResponse['engines'] = { finance_guard: 0, code_guard: 0, logic_guard: 0, passthrough: 0 };
}

export class A2AMetrics {
  /**
   * GET /a2a/metrics answers for the caller's organisation only: process-wide numbers told every
   * tenant of a shared deployment how much the others sent and how much of it was blocked. The
   * Prometheus series stay process-wide (the scrape is the operator's, and has no tenant label).
   */
  private readonly byOrg = new Map<string, Counts>();
  private readonly intercepts: Counter<'verdict' | 'engine'>;
  private readonly duration: Histogram<'engine'>;
  // label children resolved once per combination: the labelled inc/observe re-hash labels per call
  private readonly counterChildren = new Map<string, { inc(): void }>();
  private readonly durationChildren = new Map<string, { observe(v: number): void }>();

  constructor(m: Metrics) {
    this.intercepts = m.counter('svc_a2a_intercepts_total', 'A2A messages intercepted, by verdict and engine', ['verdict', 'engine']);
    this.duration = m.histogram('svc_a2a_intercept_duration_seconds', 'A2A intercept latency (trust boundary, guard, signing)', ['engine'], [
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
    ]);
  }

  /** `orgId`: the caller's organisation ('' for a caller without one) */
  record(orgId: string, verdict: VerdictStatus, engine: string, latencyMs: number): void {
    let c = this.byOrg.get(orgId);
    if (!c) this.byOrg.set(orgId, (c = new Counts()));
    c.total++;
    if (verdict === 'forwarded') c.forwarded++;
    else if (verdict === 'blocked') c.blocked++;
    else if (verdict === 'error') c.errors++;
    c.latencyMsSum += latencyMs;
    c.engines[engine] = (c.engines[engine] ?? 0) + 1;
    const key = `${verdict}|${engine}`;
    let child = this.counterChildren.get(key);
    if (!child) this.counterChildren.set(key, (child = this.intercepts.labels({ verdict, engine })));
    child.inc();
    let h = this.durationChildren.get(engine);
    if (!h) this.durationChildren.set(engine, (h = this.duration.labels({ engine })));
    h.observe(latencyMs / 1000);
  }

  snapshot(orgId: string): A2AMetricsSnapshot {
    const c = this.byOrg.get(orgId) ?? new Counts();
    return {
      total_intercepts: c.total,
      forwarded: c.forwarded,
      blocked: c.blocked,
      errors: c.errors,
      avg_latency_ms: c.total ? Math.round((c.latencyMsSum / c.total) * 1000) / 1000 : 0,
      engines: { ...c.engines },
    };
  }
}
