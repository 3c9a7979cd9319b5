import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Metrics } from '../../core/obs/metrics.js';
import { sourceFiles } from './sources.js';

/**
 * Every series the service can export, with its label names: proofgate's own read off the code (each
 * `counter('svc_…', 'help', ['label', …])` call (labels optional) of core/ and plugins/), prom-client's defaults off a live
 * registry. The example dashboard and alert rules are checked against it.
 */
export function exportedSeries(root: URL): Map<string, Set<string>> {
  const code = ['core/', 'plugins/']
    .flatMap((d) => sourceFiles(fileURLToPath(new URL(d, root))))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const series = new Map<string, Set<string>>();
  // the name, its help text, then the label names when the series has any
  const call = /'(svc_[a-z0-9_]+)',\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`)\s*(?:,\s*\[([^\]]*)\])?/g;
  for (const m of code.matchAll(call)) series.set(m[1], new Set([...(m[2] ?? '').matchAll(/'([a-z_]+)'/g)].map((l) => l[1])));
  for (const m of new Metrics().registry.getMetricsAsArray() as unknown as { name: string; labelNames?: string[] }[]) {
    series.set(m.name, new Set(m.labelNames ?? []));
  }
  return series;
}

/** A series as a query names it, back to its family (`_bucket`, `_sum`, `_count` of a histogram). */
export function family(name: string, known: Map<string, Set<string>>): string {
  if (known.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return known.has(base) ? base : name;
}
