import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

/**
 * Validation against the Kubernetes API's own schemas: kubernetes-models ships validators that ajv
 * compiled from the official OpenAPI definitions (and the Prometheus Operator's CRD schemas for the
 * monitoring kinds), so a wrong type, a missing required field or a value outside an enum fails
 * here as the API server would refuse it. Those schemas do not forbid unknown fields (the API
 * server's strict field validation does): test/operate/unit/helm.ts checks names and references by hand.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ModelClass = new (data: any) => { validate(): void };
const MODELS: Record<string, ModelClass> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

/** One line per object the schemas refuse (or whose apiVersion/kind has no schema here); empty when all pass. */
export function k8sSchemaProblems(docs: Array<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const d of docs) {
    const meta = d.metadata as { name?: unknown } | undefined;
    const where = `${String(d.kind)}/${String(meta?.name)}`;
    const Model = MODELS[`${String(d.apiVersion)}/${String(d.kind)}`];
    if (!Model) {
      problems.push(`${where}: no schema for ${String(d.apiVersion)} ${String(d.kind)}`);
      continue;
    }
    try {
      // the constructor copies the object; validate() runs the compiled schema over it
      new Model(structuredClone(d)).validate();
    } catch (err) {
      problems.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return problems;
}
