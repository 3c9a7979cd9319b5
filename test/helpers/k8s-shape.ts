import type { Test } from 'tap';

/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * The native-sidecar shape (Kubernetes >= 1.29, KEP-753) of a pod spec, shared by the example manifest's
 * test and the Helm chart's: proofgate is an initContainers entry with restartPolicy Always, so the kubelet
 * starts it first and holds every later container until its startupProbe passes; the probe asks /readyz,
 * so "started" means "can verify". Returns the sidecar container.
 */
export function checkNativeSidecar(t: Test, podSpec: any, name = 'proofgate'): any {
  const inits: any[] = podSpec.initContainers ?? [];
  const sidecar = inits.find((c) => c.name === name);
  t.ok(sidecar, `${name} is an initContainers entry`);
  t.notOk((podSpec.containers ?? []).some((c: any) => c.name === name), `${name} is not a plain container`);
  t.equal(sidecar?.restartPolicy, 'Always', 'restartPolicy: Always makes the init container a sidecar');
  // an init container before it that runs to completion would not delay the app behind the probe, but a
  // plain init container after it could start and use the gateway before it is ready: none may follow
  t.equal(inits.indexOf(sidecar), inits.length - 1, 'no init container runs after the sidecar starts');
  const probe = sidecar?.startupProbe;
  t.ok(probe?.httpGet, 'a startupProbe gates the containers after it');
  t.equal(probe?.httpGet?.path, '/readyz', 'started means ready to verify, not merely alive');
  t.ok((probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3) >= 60, 'the startup budget covers engine warm-up');
  t.equal(sidecar?.livenessProbe?.httpGet?.path, '/healthz');
  t.equal(sidecar?.readinessProbe?.httpGet?.path, '/readyz');
  t.ok((podSpec.containers ?? []).length >= 1, 'an app container it guards');
  return sidecar;
}
