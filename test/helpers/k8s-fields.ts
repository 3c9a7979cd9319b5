import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Unknown fields, which the OpenAPI-derived validators (k8s-schema.ts) let through and the API
 * server's strict field validation refuses: each object is written as an object literal typed with
 * the kubernetes-models interface of its kind, and TypeScript's excess-property check names any
 * field that interface (at any depth) does not declare, a misspelt `restartPolicy` or a `startupProbe`
 * one level too high included. One compile for all objects.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const TYPES: Record<string, [string, string]> = {
  'v1/ConfigMap': ['kubernetes-models/v1/ConfigMap', 'IConfigMap'],
  'v1/Secret': ['kubernetes-models/v1/Secret', 'ISecret'],
  'v1/Service': ['kubernetes-models/v1/Service', 'IService'],
  'apps/v1/Deployment': ['kubernetes-models/apps/v1/Deployment', 'IDeployment'],
  'policy/v1/PodDisruptionBudget': ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
  'monitoring.coreos.com/v1/PodMonitor': ['@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor', 'IPodMonitor'],
  'monitoring.coreos.com/v1/PrometheusRule': ['@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule', 'IPrometheusRule'],
  'monitoring.coreos.com/v1/ServiceMonitor': ['@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor', 'IServiceMonitor'],
};

/** One line per field no schema of its kind declares (or kind without a schema here); empty when none. */
export function k8sFieldProblems(docs: Array<Record<string, unknown>>): string[] {
  const imports = new Set<string>();
  const lines: string[] = [];
  const problems: string[] = [];
  docs.forEach((d, i) => {
    const type = TYPES[`${String(d.apiVersion)}/${String(d.kind)}`];
    const meta = d.metadata as { name?: unknown } | undefined;
    if (!type) {
      problems.push(`${String(d.kind)}/${String(meta?.name)}: no schema for ${String(d.apiVersion)} ${String(d.kind)}`);
      return;
    }
    imports.add(`import type { ${type[1]} } from '${type[0]}';`);
    // JSON is a TypeScript object literal; the object's index names it in the messages
    lines.push(`export const o${i}: ${type[1]} = ${JSON.stringify(d)};`);
  });
  const file = join(ROOT, '__k8s_fields_check__.ts');
  const source = [...imports, ...lines].join('\n');
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true, types: [] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (name === file ? ts.createSourceFile(name, source, lang) : getSourceFile(name, lang, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  for (const diag of ts.getPreEmitDiagnostics(program)) {
    const where = diag.file && diag.start !== undefined ? source.slice(0, diag.start).split('\n').length - imports.size - 1 : -1;
    const d = docs.filter((x) => TYPES[`${String(x.apiVersion)}/${String(x.kind)}`])[where];
    const name = d ? `${String(d.kind)}/${String((d.metadata as { name?: unknown } | undefined)?.name)}` : 'check';
    problems.push(`${name}: ${ts.flattenDiagnosticMessageText(diag.messageText, ' ')}`);
  }
  return problems;
}
