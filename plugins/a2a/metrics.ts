import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '../../core/metrics.js';
import type { VerdictStatus } from './message.js';

/**
 * Intercept counters, twice: plain numbers for GET /a2a/metrics (per process, since start) and
 * Prometheus series on the kernel registry. Label values are bounded: `verdict` is the five
 * statuses, `engine` the guard names registered at start-up plus `trust_boundary`.
 */
export const TRUST_ENGINE = 'trust_boundary';

export interface A2AMetricsSnapshot {
  total_intercepts: number;
  forwarded: number;
  blocked: number;
  errors: number;
  avg_latency_ms: number;
  engines: Record<string, number>;
}

export class A2AMetrics {
  private total = 0;
  private forwarded = 0;
  private blocked = 0;
  private errors = 0;
  private latencyMsSum = 0;
  private readonly engines: Record<string, number> = { finance_guard: 0, code_guard: 0, logic_guard: 0, passthrough: 0 };
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

  record(verdict: VerdictStatus, engine: string, latencyMs: number): void {
    this.total++;
    if (verdict === 'forwarded') this.forwarded++;
    else if (verdict === 'blocked') this.blocked++;
    else if (verdict === 'error') this.errors++;
    this.latencyMsSum += latencyMs;
    this.engines[engine] = (this.engines[engine] ?? 0) + 1;
    const key = `${verdict}|${engine}`;
    let c = this.counterChildren.get(key);
    if (!c) this.counterChildren.set(key, (c = this.intercepts.labels({ verdict, engine })));
    c.inc();
    let h = this.durationChildren.get(engine);
    if (!h) this.durationChildren.set(engine, (h = this.duration.labels({ engine })));
    h.observe(latencyMs / 1000);
  }

  snapshot(): A2AMetricsSnapshot {
    return {
      total_intercepts: this.total,
      forwarded: this.forwarded,
      blocked: this.blocked,
      errors: this.errors,
      avg_latency_ms: this.total ? Math.round((this.latencyMsSum / this.total) * 1000) / 1000 : 0,
      engines: { ...this.engines },
    };
  }
}
