import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';

/**
 * One registry per App (not prom-client's global one), so two apps in one process — tests, or an
 * embedding host — never collide. Label sets stay bounded: the route template, never the raw URL,
 * and never a tenant id on high-volume series.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly engineDuration: Histogram<'engine' | 'fn' | 'outcome'>;

  constructor() {
    // one prefix for every series: prom-client's default names already start with process_/nodejs_
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
    this.httpRequests = this.counter('svc_http_requests_total', 'HTTP requests by route template and status', ['method', 'route', 'status']);
    this.httpDuration = this.histogram('svc_http_request_duration_seconds', 'HTTP request latency', ['method', 'route', 'status'], [
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]);
    this.engineDuration = this.histogram(
      'svc_engine_task_duration_seconds',
      'Engine worker-task latency (queue wait included) by engine, exported function and outcome (ok, error)',
      ['engine', 'fn', 'outcome'],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    );
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Counter<L>;
    return new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = [], buckets?: number[]): Histogram<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Histogram<L>;
    return new Histogram({ name, help, labelNames: [...labelNames], buckets, registers: [this.registry] });
  }

  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Gauge<L>;
    return new Gauge({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
