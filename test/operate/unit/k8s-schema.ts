import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { renderChart } from '../../helpers/helm-render.js';
import { k8sSchemaProblems } from '../../helpers/k8s-schema.js';
import { k8sFieldProblems } from '../../helpers/k8s-fields.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CHART = join(ROOT, 'deploy/helm/proofgate');
const K8S = join(ROOT, 'docs/k8s');
const yamlDocs = (file: string) => parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as any).filter(Boolean);

t.test('the rendered chart, with each values file, passes the Kubernetes schemas', async (t) => {
  const checked: any[] = [];
  for (const [name, layers] of [['values.yaml', []], ['values-shared.yaml', [parse(readFileSync(join(CHART, 'values-shared.yaml'), 'utf8'))]]] as const) {
    const docs = renderChart(CHART, 'pg', [...layers]);
    t.ok(docs.length > 0, `${name}: rendered`);
    checked.push(...docs);
    t.same(k8sSchemaProblems(docs), [], `${name}: every object valid`);
  }
  // every optional template, too: the monitors and the scrape token
  const all = renderChart(CHART, 'pg', [{ monitoring: { enabled: true }, metrics: { tokenKey: 'METRICS_TOKEN' } }]);
  t.ok(all.some((d) => d.kind === 'PodMonitor'));
  t.same(k8sSchemaProblems(all), []);
  // one compile for all of them (k8s-fields.ts)
  t.same(k8sFieldProblems([...checked, ...all]), [], 'no field the schemas do not declare');
});

t.test('docs/k8s: every manifest passes the Kubernetes schemas; the alert rules as a PrometheusRule', async (t) => {
  const checked: any[] = [];
  const files = readdirSync(K8S).filter((f) => f.endsWith('.yaml'));
  t.ok(files.includes('sidecar.yaml') && files.includes('shared.yaml'));
  for (const f of files) {
    const docs = yamlDocs(join(K8S, f));
    // a plain rule file (promtool's format): the operator's CRD carries the same groups in its spec
    const objects = f === 'alerts.yaml' ? docs.map((spec) => ({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'proofgate' }, spec })) : docs;
    t.ok(objects.length > 0, `${f}: has objects`);
    t.same(k8sSchemaProblems(objects), [], `${f}: every object valid`);
    checked.push(...objects);
  }
  t.same(k8sFieldProblems(checked), [], 'no field the schemas do not declare');
});

t.test('the validation refuses what the API server would', async (t) => {
  const good = renderChart(CHART, 'pg', []);
  const deployment = () => structuredClone(good.find((d) => d.kind === 'Deployment')) as any;
  const cases: Array<[string, (d: any) => void]> = [
    ['a container port by name where a number belongs', (d) => { d.spec.template.spec.initContainers[0].ports[0].containerPort = 'http'; }],
    ['replicas as a string', (d) => { d.spec.replicas = '3'; }],
    ['a container without its required name', (d) => { delete d.spec.template.spec.containers[0].name; }],
    ['env as a map instead of a list', (d) => { d.spec.template.spec.containers[0].env = { A: 'b' }; }],
    ['a selector without matchLabels written as a string', (d) => { d.spec.selector = 'app=pg'; }],
  ];
  for (const [what, spoil] of cases) {
    const d = deployment();
    spoil(d);
    t.not(k8sSchemaProblems([d]).length, 0, what);
  }
  t.match(k8sSchemaProblems([{ apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'x' } }])[0], /no schema/, 'a removed apiVersion is refused');
  const rule = { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'x' }, spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up', for: 5 }] }] } };
  t.not(k8sSchemaProblems([rule]).length, 0, 'an alert `for:` that is no duration string');

  // unknown fields: the OpenAPI validators let them through, the field check does not
  const unknown: Array<[string, (d: any) => void]> = [
    ['a misspelt restartPolicy on the native sidecar', (d) => { const c = d.spec.template.spec.initContainers[0]; c.restartpolicy = c.restartPolicy; delete c.restartPolicy; }],
    ['a probe one level too high', (d) => { d.spec.template.spec.startupProbe = d.spec.template.spec.initContainers[0].startupProbe; }],
    ['an unknown field in metadata', (d) => { d.metadata.label = { a: 'b' }; }],
  ];
  const spoilt = unknown.map(([what, spoil], i) => {
    const d = deployment();
    d.metadata.name = `spoilt-${i}`;
    spoil(d);
    t.same(k8sSchemaProblems([d]), [], `${what}: passes the OpenAPI schema`);
    return d;
  });
  const found = k8sFieldProblems([good.find((d) => d.kind === 'ConfigMap')!, ...spoilt]);
  unknown.forEach(([what], i) => t.ok(found.some((p) => p.startsWith(`Deployment/spoilt-${i}:`)), `${what}: refused by the field check`));
  t.notOk(found.some((p) => p.startsWith('ConfigMap/')), 'the untouched object beside them is not blamed');
});
