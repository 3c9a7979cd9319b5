import { createHash } from 'node:crypto';
import { SERVICE_VERSION } from '../../core/version.js';
import { OUTSIDE_ROOT_RULE } from './files.js';
import type { Finding, Outcome } from './items.js';

/**
 * SARIF 2.1.0 for code-scanning uploads: one rule per constraint/rule id, one result per finding
 * with its file, line and column, levels from severity, and a fingerprint over the rule and the
 * text of the flagged line (not its number), so a finding keeps its identity when lines move.
 */
export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const DOCS_BASE = 'https://proofgate.dev/docs/';

const LEVEL: Record<string, 'error' | 'warning' | 'note'> = { CRITICAL: 'error', HIGH: 'error', ERROR: 'error', MEDIUM: 'warning', LOW: 'note' };

function docFor(ruleId: string, kind: string): string {
  if (ruleId === OUTSIDE_ROOT_RULE) return `${DOCS_BASE}ci.md#files-outside-the-root`;
  const page = ruleId.startsWith('sql') ? 'engines/sql.md' : ruleId.startsWith('math') ? 'engines/math.md' : kind === 'math' ? 'engines/math.md' : kind === 'sql' ? 'engines/sql.md' : 'engines/code.md';
  return `${DOCS_BASE}${page}#${ruleId.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

function ruleName(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

export function fingerprint(f: Finding, file: string, lineText: string): string {
  return createHash('sha256').update(`${f.ruleId}\0${file}\0${lineText.trim().replace(/\s+/g, ' ')}`).digest('hex');
}

/**
 * The file as a SARIF `artifactLocation.uri`, which must be a URI reference: each path segment is
 * percent-encoded, or a space makes the log invalid, `#` and `?` cut the path short (fragment,
 * query) and a literal `%20` would name another file. A Windows drive path becomes a file URI, since
 * `C:` at the start of a relative reference reads as a scheme.
 */
export function artifactUri(file: string): string {
  const p = file.replace(/\\/g, '/');
  const drive = /^[A-Za-z]:\//.test(p);
  const encoded = p
    .split('/')
    .map((s, i) => (drive && i === 0 ? s : encodeURIComponent(s)))
    .join('/');
  return drive ? `file:///${encoded}` : encoded;
}

/** A flow as one SARIF thread: the source line first, each step, the sink line last. */
function codeFlow(path: number[], uri: string, lines: string[]): Record<string, unknown> {
  const locations = path.map((line, i) => ({
    location: {
      physicalLocation: { artifactLocation: { uri }, region: { startLine: line } },
      message: { text: i === 0 ? 'source' : i === path.length - 1 ? 'sink' : (lines[line - 1] ?? '').trim().slice(0, 120) || 'step' },
    },
  }));
  return { threadFlows: [{ locations }] };
}

export function toSarif(outcomes: Outcome[], sources: Map<string, string>): Record<string, unknown> {
  const rules = new Map<string, Record<string, unknown>>();
  const results: Record<string, unknown>[] = [];
  for (const o of outcomes) {
    const lines = (sources.get(o.item.file) ?? '').split('\n');
    for (const f of o.findings) {
      if (!rules.has(f.ruleId)) {
        rules.set(f.ruleId, {
          id: f.ruleId,
          name: ruleName(f.ruleId),
          shortDescription: { text: f.message.split('\n')[0].slice(0, 200) || f.ruleId },
          fullDescription: { text: `proofgate ${o.item.kind} check ${f.ruleId}: ${f.message}`.slice(0, 1000) },
          helpUri: docFor(f.ruleId, o.item.kind),
          defaultConfiguration: { level: LEVEL[f.severity] ?? 'warning' },
          properties: {
            'security-severity': f.severity === 'CRITICAL' ? '9.0' : f.severity === 'HIGH' ? '7.0' : f.severity === 'MEDIUM' ? '5.0' : '3.0',
            ...(f.cwe ? { tags: ['security', `external/cwe/cwe-${f.cwe}`] } : {}),
          },
          ...(f.cwe ? { relationships: [{ target: { id: `CWE-${f.cwe}`, toolComponent: { name: 'CWE' } }, kinds: ['superset'] }] } : {}),
        });
      }
      results.push({
        ruleId: f.ruleId,
        ruleIndex: [...rules.keys()].indexOf(f.ruleId),
        level: LEVEL[f.severity] ?? 'warning',
        message: { text: f.message || f.ruleId },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: artifactUri(o.item.file) },
              region: { startLine: Math.max(1, f.line), startColumn: Math.max(1, f.column) },
            },
          },
        ],
        ...(f.path ? { codeFlows: [codeFlow(f.path, artifactUri(o.item.file), lines)] } : {}),
        partialFingerprints: { primaryLocationLineHash: fingerprint(f, o.item.file, lines[f.line - 1] ?? '') },
        properties: { admission: o.admitted ? 'ADMIT' : 'DENY', status: o.answer.status ?? null },
      });
    }
  }
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'proofgate', version: SERVICE_VERSION, informationUri: `${DOCS_BASE}ci.md`, rules: [...rules.values()] } },
        results,
      },
    ],
  };
}
