import { SERVICE_NAME, SERVICE_VERSION } from '../../core/version.js';
import { definitionHash, isToolDefinition, screenDefinition, type Finding } from './definitions.js';

/**
 * The offline scan's model and its three renderings. Pure: the CLI gathers each server's tool list
 * (from the server or a saved tools/list) and the optional pin file; this decides what is wrong.
 *  - error: a poisoned definition, a definition changed since it was pinned, two tools under one name;
 *  - warning: a tool that is not pinned (only when a pin file is given);
 *  - note: a pinned tool the server no longer lists, a server that was skipped (stdio).
 * Errors and warnings fail CI (exit 1); notes do not.
 */
export type Level = 'error' | 'warning' | 'note';

export interface ScanRule {
  id: string;
  level: Level;
  short: string;
  full: string;
}

export const RULES: ScanRule[] = [
  { id: 'mcp/tool-poisoning', level: 'error', short: 'Tool definition poisoning', full: 'A tool definition holds text addressed to the model (hidden instructions, invisible characters, requests to read sensitive files or send data out).' },
  { id: 'mcp/definition-changed', level: 'error', short: 'Tool definition changed since it was pinned', full: 'The SHA-256 of the RFC 8785 form of the tool name, description, inputSchema and annotations differs from its pin (a possible rug pull).' },
  { id: 'mcp/duplicate-tool', level: 'error', short: 'Two tools share a name', full: 'The server lists more than one definition under the same tool name; which one a call reaches is up to the server.' },
  { id: 'mcp/unpinned-tool', level: 'warning', short: 'Tool definition not pinned', full: 'The tool is not in the pin file: nobody has approved this definition yet.' },
  { id: 'mcp/pinned-tool-missing', level: 'note', short: 'Pinned tool no longer listed', full: 'The pin file names a tool the server does not list any more.' },
  { id: 'mcp/server-skipped', level: 'note', short: 'Server not scanned', full: 'The entry is not a Streamable HTTP server (e.g. a stdio command) and has no saved tools/list.' },
];
const RULE = new Map(RULES.map((r, i) => [r.id, { ...r, index: i }]));

export interface ScanFinding {
  rule: string;
  level: Level;
  server: string;
  tool: string | null;
  hash: string | null;
  pinned_hash: string | null;
  constraint_id: string | null;
  message: string;
}

export interface ScannedTool {
  name: string;
  hash: string;
  status: 'clean' | 'poisoned' | 'changed' | 'unpinned' | 'pinned' | 'duplicate';
  findings: Finding[];
}

export interface ServerInput {
  name: string;
  /** where the definitions came from: the server URL or the saved file (the SARIF artifact) */
  source: string;
  tools?: unknown[];
  skipped?: string;
  error?: string;
}

export interface ScanReport {
  version: 1;
  servers: Array<{ name: string; source: string; tools: ScannedTool[]; error: string | null; skipped: string | null }>;
  findings: ScanFinding[];
  summary: { servers: number; tools: number; errors: number; warnings: number; notes: number; unreadable: number };
}

/** pins: server → tool → hash; undefined when no pin file was given (then nothing is "unpinned") */
export type PinFile = Record<string, Record<string, string>>;

export function scan(inputs: ServerInput[], pins?: PinFile): ScanReport {
  const report: ScanReport = { version: 1, servers: [], findings: [], summary: { servers: 0, tools: 0, errors: 0, warnings: 0, notes: 0, unreadable: 0 } };
  const add = (f: Omit<ScanFinding, 'level'>) => report.findings.push({ ...f, level: RULE.get(f.rule)!.level });
  for (const s of inputs) {
    const entry = { name: s.name, source: s.source, tools: [] as ScannedTool[], error: s.error ?? null, skipped: s.skipped ?? null };
    report.servers.push(entry);
    if (s.skipped) add({ rule: 'mcp/server-skipped', server: s.name, tool: null, hash: null, pinned_hash: null, constraint_id: null, message: `server ${s.name} not scanned: ${s.skipped}` });
    if (s.error || !s.tools) continue;
    const defs = s.tools.filter(isToolDefinition);
    const counts = new Map<string, number>();
    for (const d of defs) counts.set(d.name, (counts.get(d.name) ?? 0) + 1);
    const pinned = pins?.[s.name] ?? {};
    for (const d of defs) {
      const hash = definitionHash(d);
      const findings = screenDefinition(d);
      const base = { server: s.name, tool: d.name, hash };
      const pin = Object.hasOwn(pinned, d.name) ? pinned[d.name] : null;
      let status: ScannedTool['status'] = pins ? (pin === null ? 'unpinned' : pin === hash ? 'pinned' : 'changed') : 'clean';
      if (counts.get(d.name)! > 1) {
        status = 'duplicate';
        add({ ...base, rule: 'mcp/duplicate-tool', pinned_hash: pin, constraint_id: null, message: `server ${s.name} lists tool ${d.name} more than once` });
      } else if (status === 'changed') {
        add({ ...base, rule: 'mcp/definition-changed', pinned_hash: pin, constraint_id: 'mcp.pin.changed', message: `tool ${d.name} of server ${s.name} changed since it was pinned (pinned ${pin}, now ${hash})` });
      } else if (status === 'unpinned') {
        add({ ...base, rule: 'mcp/unpinned-tool', pinned_hash: null, constraint_id: 'mcp.pin.pending', message: `tool ${d.name} of server ${s.name} is not pinned (${hash})` });
      }
      for (const f of findings) {
        add({ ...base, rule: 'mcp/tool-poisoning', pinned_hash: pin, constraint_id: f.constraint_id, message: `tool ${d.name} of server ${s.name}: ${f.details} (${f.constraint_id})` });
      }
      if (findings.length && status !== 'duplicate') status = 'poisoned';
      entry.tools.push({ name: d.name, hash, status, findings });
    }
    const listed = new Set(defs.map((d) => d.name));
    for (const [tool, hash] of Object.entries(pinned)) {
      if (!listed.has(tool)) add({ rule: 'mcp/pinned-tool-missing', server: s.name, tool, hash: null, pinned_hash: hash, constraint_id: null, message: `pinned tool ${tool} is no longer listed by server ${s.name}` });
    }
    report.summary.tools += entry.tools.length;
  }
  report.summary.servers = report.servers.length;
  report.summary.unreadable = report.servers.filter((s) => s.error).length;
  for (const f of report.findings) report.summary[f.level === 'error' ? 'errors' : f.level === 'warning' ? 'warnings' : 'notes']++;
  return report;
}

/** 2 when a server could not be read, 1 on any error or warning, else 0. */
export function exitCode(r: ScanReport): number {
  if (r.summary.unreadable) return 2;
  return r.summary.errors + r.summary.warnings > 0 ? 1 : 0;
}

/** Current clean hashes, in the pin-file shape (poisoned and duplicate tools are left out). */
export function pinsOf(r: ScanReport): PinFile {
  const out: PinFile = {};
  for (const s of r.servers) {
    if (s.error) continue;
    out[s.name] = {};
    for (const t of s.tools) if (t.status !== 'poisoned' && t.status !== 'duplicate') out[s.name][t.name] = t.hash;
  }
  return out;
}

export function renderText(r: ScanReport): string {
  const lines: string[] = [];
  for (const s of r.servers) {
    const head = s.error ? `ERROR ${s.error}` : s.skipped ? `skipped: ${s.skipped}` : `${s.tools.length} tool(s)`;
    lines.push(`${s.name} (${s.source}): ${head}`);
    for (const t of s.tools) lines.push(`  ${t.status.padEnd(9)} ${t.name}  ${t.hash}`);
  }
  if (r.findings.length) lines.push('', 'findings:');
  for (const f of r.findings) lines.push(`  ${f.level.padEnd(7)} ${f.rule}  ${f.message}`);
  const m = r.summary;
  lines.push('', `${m.servers} server(s), ${m.tools} tool(s): ${m.errors} error(s), ${m.warnings} warning(s), ${m.notes} note(s)${m.unreadable ? `, ${m.unreadable} server(s) unreadable` : ''}`);
  return lines.join('\n') + '\n';
}

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** SARIF 2.1.0: one run, the rules above, one result per finding located at its server's source. */
export function renderSarif(r: ScanReport): Record<string, unknown> {
  const sources = new Map(r.servers.map((s) => [s.name, s.source]));
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: `${SERVICE_NAME} mcp scan`,
            version: SERVICE_VERSION,
            informationUri: 'https://proofgate.dev/docs/mcp',
            rules: RULES.map((x) => ({ id: x.id, name: x.short.replace(/[^A-Za-z]+/g, ''), shortDescription: { text: x.short }, fullDescription: { text: x.full }, defaultConfiguration: { level: x.level } })),
          },
        },
        results: r.findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: RULE.get(f.rule)!.index,
          level: f.level,
          message: { text: f.message },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: sources.get(f.server) ?? f.server } },
              logicalLocations: [{ name: f.tool ?? f.server, fullyQualifiedName: f.tool ? `${f.server}/${f.tool}` : f.server, kind: f.tool ? 'function' : 'module' }],
            },
          ],
          ...(f.hash ? { partialFingerprints: { definitionHash: f.hash } } : {}),
          properties: { server: f.server, tool: f.tool, hash: f.hash, pinned_hash: f.pinned_hash, constraint_id: f.constraint_id },
        })),
        invocations: [{ executionSuccessful: r.summary.unreadable === 0, ...(r.summary.unreadable ? { toolExecutionNotifications: r.servers.filter((s) => s.error).map((s) => ({ level: 'error', message: { text: `${s.name}: ${s.error}` } })) } : {}) }],
      },
    ],
  };
}
