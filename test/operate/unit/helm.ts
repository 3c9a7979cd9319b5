import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { serviceEnvVars } from '../../../sidecar/config.js';
import { renderChart } from '../../helpers/helm-render.js';
import { checkNativeSidecar } from '../../helpers/k8s-shape.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const CHART = fileURLToPath(new URL('../../../../deploy/helm/proofgate', import.meta.url));
const read = (f: string) => readFileSync(join(CHART, f), 'utf8');
const SHARED = parse(read('values-shared.yaml'));
const VALUES = parse(read('values.yaml'));
const SETTINGS = new Set([...serviceEnvVars().map((v) => v.name), 'SVC_CONFIG']);
const API: Record<string, string> = {
  ConfigMap: 'v1', Service: 'v1', Deployment: 'apps/v1', PodDisruptionBudget: 'policy/v1',
  ServiceMonitor: 'monitoring.coreos.com/v1', PodMonitor: 'monitoring.coreos.com/v1',
};
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * What the API server would refuse or the kubelet would misread beyond the OpenAPI schemas
 * (k8s-schema.ts validates against those): names, selectors, unique container/env/port names, probes
 * on declared ports, mounts of declared volumes, secrets only by reference.
 */
function validate(t: Test, docs: any[], secretNames: string[]): void {
  const problems: string[] = [];
  const configMaps = new Set(docs.filter((d) => d.kind === 'ConfigMap').map((d) => d.metadata.name));
  for (const d of docs) {
    const where = `${d.kind}/${d.metadata?.name}`;
    if (API[d.kind] !== d.apiVersion) problems.push(`${where}: apiVersion ${d.apiVersion}`);
    if (!DNS_LABEL.test(d.metadata?.name ?? '') || d.metadata.name.length > 63) problems.push(`${where}: name`);
    for (const [k, v] of Object.entries(d.metadata?.labels ?? {})) if (typeof v !== 'string' || !/^([A-Za-z0-9][-A-Za-z0-9_.]{0,61}[A-Za-z0-9]?)?$/.test(v)) problems.push(`${where}: label ${k}=${v}`);
    if (d.kind !== 'Deployment') continue;
    const pod = d.spec.template;
    for (const [k, v] of Object.entries(d.spec.selector.matchLabels)) if (pod.metadata.labels[k] !== v) problems.push(`${where}: selector ${k} does not match the pod`);
    const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
    const names = all.map((c: any) => c.name);
    if (new Set(names).size !== names.length) problems.push(`${where}: container names repeat`);
    const volumes = new Set(pod.spec.volumes.map((v: any) => v.name));
    for (const v of pod.spec.volumes) if (v.configMap && !configMaps.has(v.configMap.name)) problems.push(`${where}: volume ${v.name} names no rendered ConfigMap`);
    for (const c of all) {
      if (!c.image || !DNS_LABEL.test(c.name)) problems.push(`${where}/${c.name}: image and name`);
      const env = (c.env ?? []).map((e: any) => e.name);
      if (new Set(env).size !== env.length) problems.push(`${where}/${c.name}: env names repeat`);
      for (const e of c.env ?? []) {
        if ((e.value === undefined) === (e.valueFrom === undefined)) problems.push(`${where}/${c.name}: ${e.name} needs exactly one of value, valueFrom`);
        if (e.value !== undefined && typeof e.value !== 'string') problems.push(`${where}/${c.name}: ${e.name} value is not a string`);
        if (secretNames.includes(e.name) && !e.valueFrom?.secretKeyRef) problems.push(`${where}/${c.name}: ${e.name} not from a Secret`);
        if (e.name.startsWith('SVC_') && !SETTINGS.has(e.name)) problems.push(`${where}/${c.name}: ${e.name} is no setting`);
      }
      const ports = (c.ports ?? []).map((p: any) => p.name);
      if (new Set(ports).size !== ports.length || ports.some((p: string) => p.length > 15)) problems.push(`${where}/${c.name}: port names`);
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const port = c[probe]?.httpGet?.port;
        if (port !== undefined && !ports.includes(port)) problems.push(`${where}/${c.name}: ${probe} on undeclared port ${port}`);
      }
      for (const m of c.volumeMounts ?? []) if (!volumes.has(m.name)) problems.push(`${where}/${c.name}: mount of undeclared volume ${m.name}`);
    }
  }
  t.same(problems, [], 'the rendered manifests are well-formed');
}

const byKind = (docs: any[], kind: string) => docs.find((d) => d.kind === kind);
const envOf = (c: any) => new Map<string, any>(c.env.map((e: any) => [e.name, e]));

t.test('chart, sidecar mode (the default values): one Deployment with proofgate as its native sidecar', async (t) => {
  const docs = renderChart(CHART, 'billing');
  t.same(docs.map((d) => d.kind).sort(), ['ConfigMap', 'Deployment'], 'no Service, PDB or monitor by default');
  const values = VALUES;
  validate(t, docs, [...values.secrets.env, ...values.bootstrap.keyEnv]);
  const pod = byKind(docs, 'Deployment').spec.template;
  const sidecar = checkNativeSidecar(t, pod.spec);
  const env = envOf(sidecar);
  t.equal(env.get('SVC_MODE').value, 'sidecar');
  t.equal(env.get('SVC_METRICS_HOST').valueFrom.fieldRef.fieldPath, 'status.podIP', 'metrics on the pod network only');
  for (const s of values.secrets.env) t.equal(env.get(s).valueFrom.secretKeyRef.name, 'proofgate-secrets', `${s} from the Secret`);
  const app = pod.spec.containers[0];
  t.same(envOf(app).get('PROOFGATE_API_KEY').valueFrom, env.get('PROOFGATE_API_KEY').valueFrom, 'the app sends the key the sidecar is provisioned with');
  const bootstrap = pod.spec.volumes.find((v: any) => v.name === 'bootstrap');
  t.equal(bootstrap.secret.defaultMode, 0o440, 'the bootstrap file readable by the node user only');
  t.equal(env.get('SVC_BOOTSTRAP_FILE').value, '/etc/proofgate-bootstrap/bootstrap.yaml');
  t.same(JSON.parse(byKind(docs, 'ConfigMap').data['config.json']), {}, 'a config file that exists, holding no secret');

  // the same probes as the example manifest
  const example = parseAllDocuments(read('../../../docs/k8s/sidecar.yaml')).map((d) => d.toJS() as any);
  const exampleSidecar = byKind(example, 'Deployment').spec.template.spec.initContainers[0];
  for (const p of ['startupProbe', 'livenessProbe', 'readinessProbe']) t.same(sidecar[p].httpGet, exampleSidecar[p].httpGet, `${p} as in docs/k8s/sidecar.yaml`);
});

t.test('chart, shared mode: replicas behind a Service, a PDB and a ServiceMonitor', async (t) => {
  const docs = renderChart(CHART, 'pg', [SHARED]);
  t.same(docs.map((d) => d.kind).sort(), ['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Service', 'ServiceMonitor']);
  validate(t, docs, [...VALUES.secrets.env, ...VALUES.shared.secretEnv]);
  const d = byKind(docs, 'Deployment');
  t.equal(d.spec.replicas, 3);
  t.notOk(d.spec.template.spec.initContainers, 'no sidecar');
  const c = d.spec.template.spec.containers[0];
  const env = envOf(c);
  t.equal(env.get('SVC_MODE').value, 'server');
  t.equal(env.get('SVC_STORE_URL').valueFrom.secretKeyRef.name, 'proofgate-shared');
  t.equal(env.get('SVC_ATTESTATION_KEY_CONTINUITY_POLICY').value, 'persistent', 'every replica signs with the same key');
  t.same(c.startupProbe.httpGet, { path: '/readyz', port: 'http' });
  t.same(JSON.parse(byKind(docs, 'ConfigMap').data['config.json']), SHARED.config);

  const svc = byKind(docs, 'Service');
  t.match(d.spec.template.metadata.labels, svc.spec.selector, 'the Service selects the pods');
  for (const p of svc.spec.ports) t.ok(c.ports.some((cp: any) => cp.name === p.targetPort), `Service port ${p.name} targets a container port`);
  t.match(d.spec.template.metadata.labels, byKind(docs, 'PodDisruptionBudget').spec.selector.matchLabels);
  t.equal(byKind(docs, 'PodDisruptionBudget').spec.minAvailable, 2);
  const sm = byKind(docs, 'ServiceMonitor');
  t.match(svc.metadata.labels, sm.spec.selector.matchLabels, 'the ServiceMonitor selects the Service');
  t.ok(svc.spec.ports.some((p: any) => p.name === sm.spec.endpoints[0].port));
  t.same(sm.spec.endpoints[0].relabelings, [{ targetLabel: 'job', replacement: 'proofgate' }], 'job="proofgate", as docs/k8s/alerts.yaml selects');
});

t.test('chart options: PodMonitor, a scrape token, another Secret, no metrics, a wrong mode', async (t) => {
  const docs = renderChart(CHART, 'x', [{ monitoring: { enabled: true }, metrics: { tokenKey: 'METRICS_TOKEN' }, secrets: { existingSecret: 'other' } }]);
  const pod = byKind(docs, 'Deployment').spec.template;
  const pm = byKind(docs, 'PodMonitor');
  t.match(pod.metadata.labels, pm.spec.selector.matchLabels, 'the PodMonitor selects the pods');
  const sidecar = pod.spec.initContainers[0];
  t.ok(sidecar.ports.some((p: any) => p.name === pm.spec.podMetricsEndpoints[0].port));
  const token = envOf(sidecar).get('SVC_METRICS_TOKEN').valueFrom.secretKeyRef;
  t.same(token, { name: 'other', key: 'METRICS_TOKEN' }, 'the scrape token from the Secret');
  t.same(pm.spec.podMetricsEndpoints[0].authorization.credentials, token, 'and Prometheus sends the same');
  for (const e of sidecar.env) if (e.valueFrom?.secretKeyRef) t.equal(e.valueFrom.secretKeyRef.name, 'other', `${e.name} follows secrets.existingSecret`);

  const off = renderChart(CHART, 'x', [{ metrics: { enabled: false }, monitoring: { enabled: true } }]);
  t.notOk(byKind(off, 'PodMonitor'), 'no monitor without the listener');
  const offSidecar = byKind(off, 'Deployment').spec.template.spec.initContainers[0];
  t.notOk(envOf(offSidecar).has('SVC_METRICS_PORT'));
  t.notOk(offSidecar.ports.some((p: any) => p.name === 'metrics'));

  t.throws(() => renderChart(CHART, 'x', [{ mode: 'cluster' }]), /mode must be sidecar or shared/);
  t.throws(() => renderChart(CHART, 'x', [{ mode: '' }]), /mode must be sidecar or shared/);
});

t.test('helm itself, where it is installed, renders the same objects', async (t) => {
  const helm = spawnSync('helm', ['template', 'billing', CHART], { encoding: 'utf8' });
  if (helm.error !== undefined) {
    t.pass('helm is not installed: the renderer above stands in for it (test/helpers/helm-render.ts)');
    return;
  }
  t.equal(helm.status, 0, helm.stderr);
  const theirs = parseAllDocuments(helm.stdout, { version: '1.1' }).map((d) => d.toJS() as any).filter(Boolean);
  const ours = renderChart(CHART, 'billing');
  t.same(theirs.map((d) => `${d.kind}/${d.metadata.name}`).sort(), ours.map((d) => `${d.kind}/${d.metadata.name}`).sort());
  t.same(byKind(theirs, 'Deployment').spec, byKind(ours, 'Deployment').spec, 'the same pod spec');
  t.equal(spawnSync('helm', ['lint', CHART], { encoding: 'utf8' }).status, 0, 'helm lint');
});

t.test('the stand-in renderer follows Go template semantics on what the chart uses', async (t) => {
  const { Templates } = await import('../../helpers/helm-render.js');
  const run = (src: string, data: unknown) => {
    const tp = new Templates();
    return tp.render(tp.add(src), { dot: data, root: data });
  };
  t.equal(run('a\n  {{- "b" }}\n{{ "c" -}}\n  d', {}), 'ab\ncd', '{{- and -}} trim every adjacent space and newline');
  t.equal(run('{{/* gone */}}x', {}), 'x', 'comments print nothing');
  t.equal(run('{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}', { b: 1 }), 'B');
  t.equal(run('{{ if .a }}A{{ else }}C{{ end }}', { a: {} }), 'C', 'an empty map is false');
  t.equal(run('{{ range .l }}[{{ . }}{{ $.s }}]{{ end }}', { l: [1, 2], s: '!' }), '[1!][2!]', 'range rebinds the dot, $ stays');
  t.equal(run('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: { k: 'v' } }), 'v');
  t.equal(run('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: {} }), 'none');
  t.equal(run('{{ default "d" .v }}|{{ default "d" .w }}', { w: 'w' }), 'd|w');
  t.equal(run('{{ .n | quote }}', { n: 9464 }), '"9464"');
  t.equal(run('x:{{ toYaml .m | nindent 2 }}', { m: { a: [1] } }), 'x:\n  a:\n    - 1');
  t.equal(run('{{ if not (or (eq .m "a") (eq .m "b")) }}no{{ end }}', { m: 'c' }), 'no');
  t.equal(run('{{ define "x" }}<{{ .v }}>{{ end }}{{ include "x" .inner }}', { inner: { v: 1 } }), '<1>');
  t.throws(() => run('{{ printf "%s" .v }}', {}), /unsupported function printf/, 'beyond the subset: an error, not a guess');
  t.throws(() => run('{{ .a.b }}', {}), /nil pointer/);
});
