import { posix } from 'node:path';
import type { AgentsToolResponse } from '../../schemas/gen/index.js';
import { detectBoth, detectCredentials, detectExternalTransfer } from './screening.js';

/**
 * Risk evaluation of an agent's tool call before it runs. Pure: (tool, arguments) → decision.
 * The lists decide; the score only explains. A dangerous tool is denied whatever its arguments, a
 * tool on neither list is denied by default whatever its score (spec), and a safe tool is allowed
 * only while its arguments stay below the risk threshold (a sandboxed read of `../../etc/passwd`
 * is not a sandboxed read).
 */
/** POST /agents/{agent_id}/tools/{tool}'s answer: schemas/agents/tool.response.json, generated (schemas/gen/agents.gen.ts) */
export type ToolEvaluation = AgentsToolResponse;
export type ToolDecision = ToolEvaluation['decision'];
export type ToolClass = ToolEvaluation['classification'];

/** Read-only tools with no side effect outside the sandbox, and their base risk. */
export const SAFE_TOOLS: Readonly<Record<string, number>> = {
  read_file: 0.1,
  list_directory: 0.1,
  search: 0.05,
  web_search: 0.1,
  calculator: 0,
  get_time: 0,
  get_weather: 0.05,
  verify: 0,
};

/** Tools with side effects nobody can undo from here: always denied. */
export const DANGEROUS_TOOLS: Readonly<Record<string, number>> = {
  shell: 1,
  bash: 1,
  exec: 1,
  execute_command: 1,
  run_code: 0.95,
  eval: 1,
  delete_file: 0.9,
  write_file: 0.8,
  move_file: 0.8,
  send_email: 0.8,
  http_post: 0.8,
  http_request: 0.8,
  transfer_funds: 1,
  make_payment: 1,
  sql_execute: 0.9,
  install_package: 0.9,
  change_permissions: 0.95,
  create_user: 0.9,
};

/** Safe tools whose `path` argument must stay inside the sandbox directory. */
const PATH_TOOLS = new Set(['read_file', 'list_directory']);
export const SANDBOX_DIR = '/sandbox';
/** a safe tool at or above this score is denied */
export const RISK_THRESHOLD = 0.5;
/** score of a tool on neither list before its arguments are looked at */
const UNKNOWN_BASE = 0.5;

const SENSITIVE_PATH = /(?:^|\/)\.(?:ssh|aws|env|netrc|git-credentials|kube|docker)(?:\/|$)|\bid_(?:rsa|ed25519|ecdsa)\b|^\/(?:etc|proc|sys|root|var\/run)(?:\/|$)/i;

/**
 * Is `p` inside the sandbox once normalised? Only an absolute path can show it: the tool's server
 * resolves a relative one against its own working directory (`etc/passwd` from `/` is the real one)
 * and many expand `~` to a home directory, neither of which this check can see.
 */
export function insideSandbox(p: string): boolean {
  if (p.includes('\0') || p.includes('\\') || !p.startsWith('/')) return false;
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return false;
      parts.pop();
    } else parts.push(seg);
  }
  return parts[0] === SANDBOX_DIR.slice(1);
}

/** Lookup name: case and `-`/`.` separators do not make a dangerous tool unknown. */
export function normaliseTool(tool: string): string {
  return tool.toLowerCase().replace(/[-.\s]+/g, '_');
}

export function classify(tool: string): { cls: ToolClass; base: number } {
  const n = normaliseTool(tool);
  if (Object.hasOwn(DANGEROUS_TOOLS, n)) return { cls: 'dangerous', base: DANGEROUS_TOOLS[n] };
  if (Object.hasOwn(SAFE_TOOLS, n)) return { cls: 'safe', base: SAFE_TOOLS[n] };
  return { cls: 'unknown', base: UNKNOWN_BASE };
}

/** A string a file tool would open as a path: absolute, home-relative, a file: URL, with backslashes, or climbing with `..`. */
const PATH_LIKE = /^(?:\/|~|file:)|\\|(?:^|\/)\.\.(?:\/|$)/i;

/** Every string value of the arguments, at any depth: an array of paths or an options object names each of them. */
function argumentStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) argumentStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) argumentStrings(x, out);
  return out;
}

/** key words that say an argument is a file or directory name (`file_path`, `outputDir`, `files`; not `profile`) */
const FILE_KEY_WORDS = new Set(['path', 'paths', 'file', 'files', 'filename', 'filenames', 'filepath', 'dir', 'dirs', 'directory', 'directories', 'folder', 'folders', 'uri']);
const fileKey = (k: string) => k.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[^a-z0-9]+/).some((w) => FILE_KEY_WORDS.has(w));

/**
 * The strings held under a key that names a file, at any depth (a list inherits its key). Such a
 * string is opened as a path whatever it looks like: a plain `notes.txt` is resolved against the
 * server's own working directory, outside the sandbox.
 */
function fileKeyed(v: unknown, keyed = false, out: string[] = []): string[] {
  if (typeof v === 'string') {
    if (keyed) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) fileKeyed(x, keyed, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) fileKeyed(x, fileKey(k), out);
  return out;
}

/** The path a server reads from `s` when it is a file: URL (percent-decoded) or an absolute path, normalised. */
function namedPath(s: string): string | null {
  if (/^file:/i.test(s)) {
    try {
      return posix.normalize(decodeURIComponent(new URL(s).pathname));
    } catch {
      return null;
    }
  }
  return s.startsWith('/') ? posix.normalize(s) : null;
}

function sensitivePath(s: string): boolean {
  if (SENSITIVE_PATH.test(s)) return true;
  const p = namedPath(s);
  return p !== null && SENSITIVE_PATH.test(p);
}

function argumentRisks(tool: string, args: Record<string, unknown>): Array<[number, string]> {
  const risks: Array<[number, string]> = [];
  const text = JSON.stringify(args);
  const strings = argumentStrings(args);
  if (PATH_TOOLS.has(tool)) {
    const p = args.path;
    if (typeof p !== 'string' || !p) risks.push([0.5, `${tool} needs a string "path" argument inside ${SANDBOX_DIR}`]);
    else if (!insideSandbox(p)) risks.push([0.6, `path ${JSON.stringify(p.slice(0, 200))} is outside the sandbox directory ${SANDBOX_DIR}`]);
    // which argument the tool's server opens is its own affair: a second path beside a sandboxed
    // "path" (file_path, an options object, a list) would be read unchecked
    const other =
      strings.find((s) => s !== p && PATH_LIKE.test(s) && !insideSandbox(s)) ??
      fileKeyed(args).find((s) => s !== p && !insideSandbox(namedPath(s) ?? ''));
    if (other !== undefined) risks.push([0.6, `an argument names a path outside the sandbox directory ${SANDBOX_DIR}: ${JSON.stringify(other.slice(0, 200))}`]);
  }
  if (strings.some(sensitivePath)) risks.push([0.5, 'an argument names a sensitive system or credential path']);
  // the detectors read raw text: in the JSON text a quoted secret sits behind \" escapes its pattern
  // does not expect, so the strings are read as written too (the JSON text pairs a key with its value)
  const texts = [text, strings.join('\n')];
  if (texts.some((x) => detectBoth(x, detectCredentials).length)) risks.push([0.6, 'the arguments contain a credential or secret']);
  if (texts.some((x) => detectBoth(x, detectExternalTransfer).length)) risks.push([0.5, 'the arguments instruct sending data to an external destination']);
  return risks;
}

export function evaluateTool(tool: string, args: Record<string, unknown> = {}): ToolEvaluation {
  const n = normaliseTool(tool);
  const { cls, base } = classify(tool);
  const risks = argumentRisks(n, args);
  const score = Math.min(1, Math.round((base + risks.reduce((a, [r]) => a + r, 0)) * 100) / 100);
  const reasons = risks.map(([, why]) => why);
  let decision: ToolDecision;
  if (cls === 'dangerous') {
    decision = 'DENY';
    reasons.unshift(`${n} is on the dangerous list: always denied`);
  } else if (cls === 'unknown') {
    decision = 'DENY';
    reasons.unshift(`${n} is on neither the safe nor the dangerous list: denied by default`);
  } else if (score >= RISK_THRESHOLD) {
    decision = 'DENY';
    reasons.unshift(`${n} is on the safe list, but its risk score ${score} reaches the threshold ${RISK_THRESHOLD}`);
  } else {
    decision = 'ALLOW';
    reasons.unshift(`${n} is on the safe list and its arguments raise no risk signal`);
  }
  return { tool, decision, risk_score: score, reasons, classification: cls };
}

/** a string that names a file wherever it appears: a file: URL, or a path that climbs with `..` */
const NAMES_A_FILE = /^file:|(?:^|\/)\.\.(?:\/|$)/i;
/** a URL of another scheme is not a path, even under a file-naming key (`uri: "https://…"`) */
const OTHER_SCHEME = /^(?!file:)[a-z][a-z0-9+.-]*:/i;

/**
 * A tool that a policy outside this plugin admitted (the MCP proxy's, per upstream server, once an
 * operator approved its pinned definition): the lists no longer decide, its arguments still do.
 * Any argument risk signal denies the call (on the safe list a single signal already reaches the
 * threshold). With `sandbox`, every argument that names a file (under a file-naming key, a file:
 * URL, a climbing `..`) must stay inside the sandbox directory, as a safe file tool's `path` must.
 */
export function evaluateAdmitted(tool: string, args: Record<string, unknown>, o: { sandbox: boolean; why: string }): ToolEvaluation {
  const n = normaliseTool(tool);
  const { cls, base } = classify(tool);
  const risks = argumentRisks(n, args);
  if (o.sandbox && !PATH_TOOLS.has(n)) {
    const named = [...fileKeyed(args).filter((s) => !OTHER_SCHEME.test(s)), ...argumentStrings(args).filter((s) => NAMES_A_FILE.test(s))];
    const outside = named.find((s) => !insideSandbox(namedPath(s) ?? ''));
    if (outside !== undefined) risks.push([0.6, `an argument names a path outside the sandbox directory ${SANDBOX_DIR}: ${JSON.stringify(outside.slice(0, 200))}`]);
  }
  const score = Math.min(1, Math.round((base + risks.reduce((a, [r]) => a + r, 0)) * 100) / 100);
  const reasons = risks.map(([, why]) => why);
  const decision: ToolDecision = risks.length ? 'DENY' : 'ALLOW';
  reasons.unshift(risks.length ? `${o.why}, but its arguments raise a risk signal` : `${o.why}; its arguments raise no risk signal`);
  return { tool, decision, risk_score: score, reasons, classification: cls };
}

export { classify as classifyTool, normaliseTool as normaliseToolName };
