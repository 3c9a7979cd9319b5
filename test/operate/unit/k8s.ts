import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { serviceEnvVars } from '../../../sidecar/config.js';
import { loadBootstrap } from '../../../sidecar/provision/file.js';
import { exportedSeries, family } from '../../helpers/metric-names.js';
import { checkNativeSidecar } from '../../helpers/k8s-shape.js';
import { tempDir } from '../../helpers/temp-dir.js';

const ROOT = new URL('../../../../', import.meta.url);
const MANIFEST = new URL('docs/k8s/sidecar.yaml', ROOT);
const DASHBOARD = new URL('docs/k8s/grafana-dashboard.json', ROOT);

/* eslint-disable @typescript-eslint/no-explicit-any */
const docs = parseAllDocuments(readFileSync(MANIFEST, 'utf8')).map((d) => {
  if (d.errors.length) throw new Error(`docs/k8s/sidecar.yaml: ${d.errors[0].message}`);
  return d.toJS() as any;
});
const byKind = (kind: string, name?: string) => docs.find((d) => d?.kind === kind && (!name || d.metadata?.name === name));
const deployment = byKind('Deployment');
const pod = deployment.spec.template;
const sidecar = pod.spec.initContainers.find((c: any) => c.name === 'proofgate');
const env = new Map<string, any>(sidecar.env.map((e: any) => [e.name, e]));

t.test('the example parses and runs the sidecar in sidecar mode', async (t) => {
  t.ok(deployment, 'a Deployment');
  t.ok(sidecar, 'a proofgate container');
  t.equal(env.get('SVC_MODE')?.value, 'sidecar');
  t.same(sidecar.args, ['start']);
  const known = new Set([...serviceEnvVars().map((v) => v.name), 'SVC_CONFIG']);
  for (const name of env.keys()) if (name.startsWith('SVC_')) t.ok(known.has(name), `${name} is a setting`);
  for (const s of ['SVC_API_KEY_LOOKUP_SECRET', 'SVC_JWT_SECRET_KEY', 'SVC_AUDIT_SECRET_KEY', 'SVC_A2A_SIGNING_KEY_PEM']) {
    t.equal(env.get(s)?.valueFrom?.secretKeyRef?.name, 'proofgate-secrets', `${s} from the Secret, never inline`);
  }
});

t.test('a native sidecar: probes gate the app, securityContext', async (t) => {
  checkNativeSidecar(t, pod.spec);
  const port = (name: string) => sidecar.ports.find((p: any) => p.name === name)?.containerPort;
  t.equal(port('http'), Number(env.get('SVC_PORT').value));
  t.same(sidecar.livenessProbe.httpGet, { path: '/healthz', port: 'http' });
  t.same(sidecar.readinessProbe.httpGet, { path: '/readyz', port: 'http' });
  t.same(sidecar.startupProbe.httpGet, { path: '/readyz', port: 'http' });
  t.equal(pod.spec.securityContext.runAsNonRoot, true);
  t.equal(pod.spec.securityContext.seccompProfile.type, 'RuntimeDefault');
  t.equal(pod.spec.automountServiceAccountToken, false);
  t.equal(sidecar.securityContext.allowPrivilegeEscalation, false);
  t.equal(sidecar.securityContext.readOnlyRootFilesystem, true);
  t.same(sidecar.securityContext.capabilities.drop, ['ALL']);
  const writable = sidecar.volumeMounts.filter((m: any) => !m.readOnly).map((m: any) => m.mountPath);
  t.ok(writable.includes(env.get('SVC_DATA_DIR').value), 'the data directory is a writable volume');
});

t.test('the bootstrap Secret is mounted and its file is valid', async (t) => {
  const path = env.get('SVC_BOOTSTRAP_FILE').value as string;
  const mount = sidecar.volumeMounts.find((m: any) => path.startsWith(m.mountPath + '/'));
  t.ok(mount, `a volume is mounted where ${path} lives`);
  t.equal(mount.readOnly, true);
  const volume = pod.spec.volumes.find((v: any) => v.name === mount.name);
  const secretName = volume.secret?.secretName;
  t.ok(secretName, 'the volume is a Secret');
  const secret = byKind('Secret', secretName);
  const fileName = path.slice(mount.mountPath.length + 1);
  const text = secret.stringData[fileName];
  t.type(text, 'string', `the Secret holds ${fileName}`);

  // every key_env it names is set in the container, from a Secret
  const dir = tempDir(t, 'pg-k8s-');
  writeFileSync(join(dir, fileName), text);
  const fakeEnv: Record<string, string> = {};
  for (const [name, e] of env) if (e.valueFrom?.secretKeyRef) fakeEnv[name] = 'svc_live_' + 'k'.repeat(43);
  const b = loadBootstrap(join(dir, fileName), { mode: 'sidecar', env: fakeEnv });
  t.equal(b.organizations?.length, 1, 'one organisation');
  const key = b.organizations![0].api_keys![0];
  t.equal(env.get(key.key_env!)?.valueFrom?.secretKeyRef?.name, 'proofgate-secrets', 'the key comes from the Secret');
  const app = pod.spec.containers.find((c: any) => c.name !== 'proofgate');
  const appKey = app.env.find((e: any) => e.name === key.key_env);
  t.same(appKey?.valueFrom, env.get(key.key_env!).valueFrom, 'the app sends the key the sidecar was provisioned with');
  t.same(key.a2a_senders, ['billing-agent']);
});

t.test('Prometheus scrapes the metrics listener by annotation', async (t) => {
  const a = pod.metadata.annotations;
  t.equal(a['prometheus.io/scrape'], 'true');
  t.equal(a['prometheus.io/path'], '/metrics');
  t.equal(a['prometheus.io/port'], env.get('SVC_METRICS_PORT').value);
  t.equal(sidecar.ports.find((p: any) => p.name === 'metrics')?.containerPort, Number(env.get('SVC_METRICS_PORT').value));
  t.equal(env.get('SVC_METRICS_HOST')?.valueFrom?.fieldRef?.fieldPath, 'status.podIP', 'bound to the pod network only');
});

t.test('the Grafana dashboard is built from series the service exports', async (t) => {
  const dash = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
  t.ok(dash.panels.length >= 6);
  // proofgate's own series from the code, prom-client's defaults (stock names, core/obs/metrics.ts) from a registry
  const series = exportedSeries(ROOT);
  const exprs: string[] = dash.panels.flatMap((p: any) => p.targets.map((x: any) => x.expr));
  const names = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:svc|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1])));
  t.ok(names.size >= 8);
  t.same([...names].filter((n) => !series.has(family(n, series))), [], 'every series a panel queries is exported');
  t.notOk(exprs.some((e) => /svc_(process|nodejs)_/.test(e)), 'no svc_ on a default series');
});
