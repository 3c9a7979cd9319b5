import t from 'tap';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { exportedSeries, family } from '../../helpers/metric-names.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = new URL('../../../../', import.meta.url);
const ALERTS = new URL('docs/k8s/alerts.yaml', ROOT);
const series = exportedSeries(ROOT);
/** labels Prometheus adds to every scraped series, and a histogram's bucket bound */
const TARGET_LABELS = new Set(['job', 'instance', 'le']);

const load = (u: URL) =>
  parseAllDocuments(readFileSync(u, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${u.pathname}: ${d.errors[0].message}`);
    return d.toJS() as any;
  });

/** the series an expression reads, with the label names it matches or groups on */
function reads(expr: string): { names: string[]; labels: string[] } {
  const names = [...expr.matchAll(/\b((?:svc|process|nodejs)_[a-z0-9_]+|up)\b(?=\s*[{[)\s]|$)/g)].map((m) => m[1]);
  const matchers = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1].matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]));
  const grouped = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()).filter(Boolean));
  return { names, labels: [...matchers, ...grouped] };
}

t.test('the example alert rules are a valid rule file over series the service exports', async (t) => {
  const file = parse(readFileSync(ALERTS, 'utf8'));
  t.ok(Array.isArray(file.groups) && file.groups.length >= 2, 'groups');
  const groupNames = file.groups.map((g: any) => g.name);
  t.equal(new Set(groupNames).size, groupNames.length, 'group names are unique');
  const alerts: any[] = file.groups.flatMap((g: any) => g.rules);
  t.ok(alerts.length >= 8);
  const problems: string[] = [];
  for (const r of alerts) {
    const where = r.alert ?? JSON.stringify(r).slice(0, 40);
    if (!/^[A-Z][A-Za-z0-9]+$/.test(r.alert ?? '')) problems.push(`${where}: alert name`);
    if (typeof r.expr !== 'string' || !r.expr.trim()) problems.push(`${where}: expr`);
    if (r.for !== undefined && !/^\d+[smh]$/.test(r.for)) problems.push(`${where}: for`);
    if (!['critical', 'warning'].includes(r.labels?.severity)) problems.push(`${where}: severity`);
    if (!r.annotations?.summary || !r.annotations?.description) problems.push(`${where}: summary and description`);
    const expr = String(r.expr);
    let depth = 0;
    for (const c of expr) if ((depth += c === '(' ? 1 : c === ')' ? -1 : 0) < 0) break;
    if (depth !== 0) problems.push(`${where}: unbalanced parentheses`);
    const { names, labels } = reads(expr);
    if (names.length === 0) problems.push(`${where}: reads no series`);
    const allowed = new Set(TARGET_LABELS);
    for (const n of names) {
      if (n === 'up') continue;
      const f = family(n, series);
      if (!series.has(f)) problems.push(`${where}: ${n} is not exported`);
      for (const l of series.get(f) ?? []) allowed.add(l);
    }
    for (const l of labels) if (!allowed.has(l)) problems.push(`${where}: label ${l} is on none of ${names.join(', ')}`);
  }
  t.same(problems, [], 'every rule is complete and reads exported series by their labels');
  t.ok(alerts.some((r) => /svc_audit_prune_refused_total/.test(r.expr) && r.labels.severity === 'critical'), 'a chain that does not verify pages');

  // promtool is Prometheus's own checker; the structure above holds where it is not installed
  const promtool = spawnSync('promtool', ['check', 'rules', fileURLToPath(ALERTS)], { encoding: 'utf8' });
  if (promtool.error === undefined) t.equal(promtool.status, 0, `promtool check rules: ${promtool.stdout}${promtool.stderr}`);
});

t.test('the ServiceMonitor and PodMonitor select what the manifests expose, as the job the alerts name', async (t) => {
  const monitors = load(new URL('docs/k8s/monitoring.yaml', ROOT));
  const shared = load(new URL('docs/k8s/shared.yaml', ROOT));
  const sidecarDocs = load(new URL('docs/k8s/sidecar.yaml', ROOT));
  const sm = monitors.find((d) => d?.kind === 'ServiceMonitor');
  const pm = monitors.find((d) => d?.kind === 'PodMonitor');
  for (const m of [sm, pm]) t.equal(m?.apiVersion, 'monitoring.coreos.com/v1');

  const service = shared.find((d) => d?.kind === 'Service');
  t.match(service.metadata.labels, sm.spec.selector.matchLabels, 'the ServiceMonitor selects the Service');
  const port = service.spec.ports.find((p: any) => p.name === sm.spec.endpoints[0].port);
  t.ok(port, 'by a port the Service has');
  const container = shared.find((d) => d?.kind === 'Deployment').spec.template.spec.containers[0];
  t.equal(container.ports.find((p: any) => p.name === port.targetPort)?.containerPort, Number(container.env.find((e: any) => e.name === 'SVC_METRICS_PORT')?.value), 'which is the metrics listener');
  t.equal(service.metadata.labels[sm.spec.jobLabel], 'proofgate', 'job="proofgate"');

  const pod = sidecarDocs.find((d) => d?.kind === 'Deployment').spec.template;
  t.match(pod.metadata.labels, pm.spec.selector.matchLabels, 'the PodMonitor selects the sidecar pods');
  const sidecar = pod.spec.initContainers.find((c: any) => c.name === 'proofgate');
  t.ok(sidecar.ports.some((p: any) => p.name === pm.spec.podMetricsEndpoints[0].port), 'by the sidecar metrics port');
  t.same(pm.spec.podMetricsEndpoints[0].relabelings, [{ targetLabel: 'job', replacement: 'proofgate' }], 'job="proofgate"');
  for (const e of [...sm.spec.endpoints, ...pm.spec.podMetricsEndpoints]) t.equal(e.path, '/metrics');
});
