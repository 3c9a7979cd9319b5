import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { defineCommand, type Command } from '../../core/cli.js';
import { readJsonFile } from '../../core/json/syntax.js';
import { insecureHttpOptIn, isLoopbackHost } from '../../core/http/loopback.js';
import { listTools, McpClientError, toolsFromSaved } from './client.js';
import { SERVER_NAME } from './config.js';
import type { McpPinResponse, McpToolsResponse } from '../../schemas/gen/index.js';
import { exitCode, pinsOf, renderSarif, renderText, scan, type PinFile, type ServerInput } from './scan.js';

/**
 * `proofgate mcp scan` (offline: no sidecar needed) and `proofgate mcp approve` (an operator's
 * approval through a running sidecar's admin route, so it is audited like any other).
 */
const SCAN_USAGE = `proofgate mcp scan [--config mcp.json] [--tools-list FILE ...] [--pins FILE] [--write-pins FILE]
                  [--format text|json|sarif] [--output FILE] [--timeout-ms N]

Connects to every Streamable HTTP server of an MCP client config (mcpServers, servers or mcp.servers:
name → {url, headers?, headers_from_env?, tools_file?}) — or reads saved tools/list answers — and
reports poisoned definitions, and with --pins the definitions that changed since they were pinned
or are not pinned at all. Definition hash: SHA-256 over the RFC 8785 form of name, description,
inputSchema and annotations.
  --config FILE      MCP client config; a server's tools_file (relative to it) is read instead of connecting
  --tools-list FILE  a saved tools/list (result, JSON-RPC response or array); the server is named after the file
  --pins FILE        pin file {server: {tool: "sha256:…"}} to compare against
  --write-pins FILE  write the current clean hashes as a pin file (first approval offline)
  --format F         text (default), json or sarif (SARIF 2.1.0)
  --output FILE      write the report there instead of standard output
  --timeout-ms N     per-request deadline when connecting (default 15000)
Exit: 0 clean, 1 findings (errors or warnings), 2 usage error, a file that cannot be read or written,
or a server that could not be read (each named on stderr).`;

type Entry = { url?: unknown; headers?: unknown; headers_from_env?: unknown; tools_file?: unknown; command?: unknown; type?: unknown };

function serversOf(config: unknown): Record<string, Entry> {
  const c = (config ?? {}) as Record<string, unknown>;
  const mcp = c.mcp as Record<string, unknown> | undefined;
  const raw = c.mcpServers ?? c.servers ?? mcp?.servers;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the config has no mcpServers (or servers / mcp.servers) object');
  const out: Record<string, Entry> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = (typeof v === 'string' ? { url: v } : (v ?? {})) as Entry;
  return out;
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) throw new Error(`${what} must map names to strings`);
  return v as Record<string, string>;
}

async function gather(name: string, e: Entry, base: string, timeoutMs: number): Promise<ServerInput> {
  if (typeof e.tools_file === 'string') {
    const file = resolve(base, e.tools_file);
    return fromFile(name, file);
  }
  if (typeof e.url !== 'string') return { name, source: name, skipped: typeof e.command === 'string' ? 'a stdio command (only Streamable HTTP servers are scanned)' : 'no url' };
  if (e.type === 'sse' || e.type === 'stdio') return { name, source: e.url, skipped: `transport ${String(e.type)} is not Streamable HTTP` };
  try {
    const headers = { ...stringMap(e.headers, `${name}.headers`) };
    for (const [h, variable] of Object.entries(stringMap(e.headers_from_env, `${name}.headers_from_env`))) {
      const v = process.env[variable];
      if (!v) throw new Error(`environment variable ${variable} (header ${h}) is not set`);
      headers[h] = v;
    }
    return { name, source: e.url, tools: await listTools(e.url, headers, timeoutMs) };
  } catch (err) {
    return { name, source: e.url, error: err instanceof McpClientError ? err.message : (err as Error).message };
  }
}

const isFsError = (err: unknown): err is NodeJS.ErrnoException => typeof (err as NodeJS.ErrnoException)?.code === 'string' && typeof (err as NodeJS.ErrnoException).syscall === 'string';

/** `file` and what stops reading or writing it, in words: node's EISDIR message does not name the file */
function fileProblem(file: string, err: unknown, doing: 'read' | 'written'): string {
  const code = isFsError(err) ? err.code : undefined;
  const why =
    code === 'ENOENT'
      ? doing === 'read'
        ? 'file not found'
        : 'its directory does not exist'
      : code === 'EISDIR'
        ? 'is a directory, not a file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'ENOTDIR'
            ? 'a part of the path is not a directory'
            : `cannot be ${doing} (${code ?? (err as Error).message})`;
  return `${file}: ${why}`;
}

function fromFile(name: string, file: string): ServerInput {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { name, source: file, error: fileProblem(file, err, 'read') };
  }
  try {
    const tools = toolsFromSaved(readJsonFile(file, text));
    if (!tools) return { name, source: file, error: `${file} holds no tools/list answer` };
    return { name, source: file, tools };
  } catch (err) {
    // readJsonFile names the file and a position only
    return { name, source: file, error: (err as Error).message };
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(fileProblem(file, err, 'read'));
  }
}

function readPins(file: string): PinFile {
  const v = readJsonFile(file, readText(file));
  const servers = (v && typeof v === 'object' && 'servers' in v ? (v as { servers: unknown }).servers : v) as unknown;
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) throw new Error(`${file}: expected {server: {tool: hash}}`);
  const out: PinFile = {};
  for (const [s, tools] of Object.entries(servers as Record<string, unknown>)) out[s] = stringMap(tools, `${file}: ${s}`);
  return out;
}

export const mcpScanCommand: Command = defineCommand({
  name: 'mcp scan',
  summary: 'scan MCP servers (or saved tools/list answers) for poisoned, changed and unpinned tools',
  usage: SCAN_USAGE,
  options: {
          config: { type: 'string' },
          'tools-list': { type: 'string', multiple: true },
          pins: { type: 'string' },
          'write-pins': { type: 'string' },
          format: { type: 'string', default: 'text' },
          output: { type: 'string' },
          'timeout-ms': { type: 'string', default: '15000' },
        },
  async run({ values }) {
    const fail = (msg: string) => {
      console.error(`proofgate mcp scan: ${msg}`);
      return 2;
    };
    const format = values.format!;
    if (!['text', 'json', 'sarif'].includes(format)) return fail(`unknown format ${format} (text, json or sarif)`);
    const timeoutMs = Number(values['timeout-ms']);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 100) return fail('--timeout-ms must be an integer ≥ 100');
    if (!values.config && !values['tools-list']?.length) return fail('give --config or --tools-list');

    const inputs: ServerInput[] = [];
    try {
      if (values.config) {
        const servers = serversOf(readJsonFile(values.config, readText(values.config)));
        const base = dirname(resolve(values.config));
        for (const [name, e] of Object.entries(servers)) inputs.push(await gather(name, e, base, timeoutMs));
      }
      for (const file of values['tools-list'] ?? []) {
        const name = basename(file, extname(file));
        inputs.push(fromFile(SERVER_NAME.test(name) ? name : 'saved', file));
      }
    } catch (err) {
      return fail((err as Error).message);
    }
    let pins: PinFile | undefined;
    try {
      pins = values.pins ? readPins(values.pins) : undefined;
    } catch (err) {
      return fail((err as Error).message);
    }
    const report = scan(inputs, pins);
    const out = format === 'text' ? renderText(report) : JSON.stringify(format === 'json' ? report : renderSarif(report), null, 2) + '\n';
    const write = (file: string, text: string) => {
      try {
        writeFileSync(file, text);
        return true;
      } catch (err) {
        fail(fileProblem(file, err, 'written'));
        return false;
      }
    };
    if (values.output) {
      if (!write(values.output, out)) return 2;
    } else process.stdout.write(out);
    if (values['write-pins'] && !write(values['write-pins'], JSON.stringify({ servers: pinsOf(report) }, null, 2) + '\n')) return 2;
    // the report says it too, but a report goes to a file or a SARIF upload: a CI log shows stderr
    for (const s of report.servers) if (s.error) console.error(`proofgate mcp scan: server ${s.name} not read: ${s.error}`);
    return exitCode(report);
  },
});

const APPROVE_USAGE = `proofgate mcp approve --url SIDECAR --server NAME [--tool NAME [--hash sha256:…] [--accept-findings]] [--api-key KEY]

Without --tool: lists the server's tool definitions as the sidecar last saw them, with their status
(pinned, pending, changed, poisoned, duplicate), hash, and what the server's tool policy makes of
them (its action, and whether a call would be admitted now). With --tool: pins the definition the sidecar saw last;
--hash makes the approval fail when that is no longer the definition you reviewed; a definition
flagged by poisoning screening needs --accept-findings. The API key needs the admin:all scope and
an operator's user (SVC_OPERATOR_USER_IDS; default key: $PROOFGATE_API_KEY). The key is sent over
plain http:// only to a loopback address unless --allow-insecure-http (or
$PROOFGATE_ALLOW_INSECURE_HTTP=1) says otherwise. Exit: 0 done, 1 refused, 2 usage or connection error.`;

export const mcpApproveCommand: Command = defineCommand({
  name: 'mcp approve',
  summary: 'list or approve (pin) MCP tool definitions through a running sidecar',
  usage: APPROVE_USAGE,
  options: { url: { type: 'string' }, server: { type: 'string' }, tool: { type: 'string' }, hash: { type: 'string' }, 'accept-findings': { type: 'boolean' }, 'api-key': { type: 'string' }, 'allow-insecure-http': { type: 'boolean' } },
  async run({ values }) {
    const key = values['api-key'] ?? process.env.PROOFGATE_API_KEY;
    if (!values.url || !values.server || !key) {
      console.error(`proofgate mcp approve: --url, --server and an API key are required\n\n${APPROVE_USAGE}`);
      return 2;
    }
    let target: URL;
    try {
      target = new URL(values.url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      console.error(`proofgate mcp approve: --url must be an http(s) URL\n\n${APPROVE_USAGE}`);
      return 2;
    }
    const optIn = insecureHttpOptIn(values['allow-insecure-http'] === true);
    if ('error' in optIn) {
      console.error(`proofgate mcp approve: ${optIn.error}`);
      return 2;
    }
    // an operator's key over plain http to another host is readable by anyone on the path
    if (target.protocol === 'http:' && !optIn.allow && !isLoopbackHost(target.hostname)) {
      console.error(`proofgate mcp approve: refusing to send the API key over plain http:// to ${target.host}: use https://, a loopback address, or --allow-insecure-http; nothing was sent`);
      return 2;
    }
    // the generated client (packages/client), as `verify` uses it: the route's path, credential and
    // error shape come from the route table, and a server or tool name that is a `.`/`..` segment is
    // refused before anything is sent (in a raw URL it would be resolved away and call another route)
    const { ProofgateClient, ProofgateError } = await import('../../packages/client/src/index.js');
    // one attempt: an operator's command reports the status it got rather than waiting out a 503
    const client = new ProofgateClient({ baseUrl: values.url, apiKey: key, retries: 0, allowInsecureHttp: optIn.allow });
    let body: McpPinResponse | McpToolsResponse;
    try {
      body = values.tool
        ? await client.postAdminMcpServersByServerToolsByToolApprove(
            { server: values.server, tool: values.tool },
            { ...(values.hash ? { hash: values.hash } : {}), ...(values['accept-findings'] ? { accept_findings: true } : {}) },
          )
        : await client.getAdminMcpServersByServerTools({ server: values.server });
    } catch (err) {
      if (err instanceof ProofgateError) {
        const p = err.problem;
        console.error(`proofgate mcp approve: ${err.status} ${String(p.detail ?? p.title ?? '')}`);
        for (const f of (p.findings as Array<{ constraint_id: string; details: string }> | undefined) ?? []) console.error(`  ${f.constraint_id}: ${f.details}`);
        return err.status === 401 || err.status === 403 || err.status >= 500 ? 2 : 1;
      }
      if (err instanceof TypeError) {
        console.error(`proofgate mcp approve: ${err.message}; nothing was sent`);
        return 2;
      }
      console.error(`proofgate mcp approve: ${values.url} cannot be reached`);
      return 2;
    }
    // a 2xx that is not the route's answer (a proxy's page, another service): said, not crashed on
    if (!body || typeof body !== 'object' || (!('tool' in body) && !Array.isArray((body as { tools?: unknown }).tools))) {
      console.error(`proofgate mcp approve: ${values.url} did not answer as a proofgate sidecar`);
      return 2;
    }
    if ('tool' in body) {
      console.log(`pinned ${body.server}/${body.tool} ${body.hash}${body.previous_hash ? ` (was ${body.previous_hash})` : ''}`);
      return 0;
    }
    for (const t of body.tools) {
      // what the server's tool policy makes of it: an approval alone does not admit a denied tool
      const policy = t.policy ? `  policy ${t.policy.action}, ${t.policy.admitted ? 'admitted' : 'not admitted'}` : '';
      console.log(`${t.status.padEnd(9)} ${t.tool}  ${t.hash}${t.findings.length ? `  [${t.findings.map((f) => f.constraint_id).join(', ')}]` : ''}${policy}`);
    }
    return 0;
  },
});
