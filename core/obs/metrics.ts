import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics, type Metric, type OpenMetricsContentType } from 'prom-client';
import { wantsOpenMetrics } from './metrics-accept.js';

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
    // prom-client's defaults keep their own names (process_cpu_seconds_total, nodejs_eventloop_lag_seconds…):
    // the stock Node.js dashboards and alerts query exactly those; svc_ is for proofgate's own series
    collectDefaultMetrics({ register: this.registry });
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

  /** A gauge whose values are read at scrape time, one per label value: nothing is set on the hot path. */
  sampledGauge<L extends string>(name: string, help: string, [label]: readonly [L], read: () => Array<[value: string, n: number]>): void {
    if (this.registry.getSingleMetric(name)) return;
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [v, n] of read()) this.set({ [label]: v } as Partial<Record<L, string>>, n);
      },
    });
  }

  /**
   * A counter read at scrape time from a running total the code keeps anyway: no work per event on the
   * hot path. `read` must never decrease (a process-lifetime total).
   */
  observedCounter(name: string, help: string, read: () => number): void {
    if (this.registry.getSingleMetric(name)) return;
    let last = 0;
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        const now = read();
        if (now > last) this.inc(now - last);
        last = Math.max(last, now);
      },
    });
  }

  /** The exposition the scraper asked for by its Accept header: OpenMetrics 1.0.0, else Prometheus text 0.0.4. */
  async text(accept?: string): Promise<{ contentType: string; body: string }> {
    if (!wantsOpenMetrics(accept)) return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    const om = new Registry<OpenMetricsContentType>();
    om.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    for (const m of this.registry.getMetricsAsArray()) om.registerMetric(openMetricsView(m as unknown as Metric));
    return { contentType: om.contentType, body: await om.metrics() };
  }
}

type Readable = Metric & { name: string; type: string; getForPromString?: () => Promise<unknown> };

/**
 * prom-client's OpenMetrics rendering renames a counter in place (drops `_total` from `metric.name`), so
 * after one OpenMetrics scrape every later Prometheus-text scrape would lose the suffix. The OpenMetrics
 * registry is given views instead: the family name without `_total`, the samples read from the real metric.
 */
function openMetricsView(metric: Metric): Metric {
  const m = metric as Readable;
  const name = m.type === 'counter' ? m.name.replace(/_total$/, '') : m.name;
  // a histogram's unsplayed form (getForPromString) is what the renderer formats
  const read = async () => ({ ...((await (m.getForPromString ? m.getForPromString() : m.get())) as object), name });
  return { name, type: m.type, get: read, getForPromString: read } as unknown as Metric;
}
