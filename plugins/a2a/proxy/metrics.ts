import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '../../../core/obs/metrics.js';

/**
 * Per-peer series of the proxy. The `peer` label is a configured receiver id (bounded by the
 * configuration) or `unknown`; methods are the proxy's four kinds, decisions three values.
 */
export class ProxyMetrics {
  private readonly requests: Counter<'peer' | 'method'>;
  private readonly verdicts: Counter<'peer' | 'decision'>;
  private readonly latency: Histogram<'peer'>;
  private readonly errors: Counter<'peer' | 'kind'>;

  constructor(
    m: Metrics,
    private readonly peers: ReadonlySet<string>,
  ) {
    this.requests = m.counter('svc_a2a_proxy_requests_total', 'A2A JSON-RPC requests proxied, by peer and method kind', ['peer', 'method']);
    this.verdicts = m.counter('svc_a2a_proxy_verdicts_total', 'A2A proxy decisions (forward, block, not_forwarded), by peer', ['peer', 'decision']);
    this.latency = m.histogram('svc_a2a_proxy_upstream_seconds', 'Time to the peer response headers', ['peer'], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30]);
    this.errors = m.counter('svc_a2a_proxy_upstream_errors_total', 'Peer requests that failed (connect_failed, timeout, failed, card_refused, egress_refused)', ['peer', 'kind']);
  }

  private label(peer: string): string {
    return this.peers.has(peer) ? peer : 'unknown';
  }

  request(peer: string, method: string): void {
    this.requests.inc({ peer: this.label(peer), method });
  }

  decision(peer: string, decision: string): void {
    this.verdicts.inc({ peer: this.label(peer), decision });
  }

  upstream(peer: string, seconds: number): void {
    this.latency.observe({ peer: this.label(peer) }, seconds);
  }

  error(peer: string, kind: string): void {
    this.errors.inc({ peer: this.label(peer), kind });
  }
}
