import type { Store } from '../../core/store/store.js';
import type { McpPolicyResponse } from '../../schemas/gen/index.js';
import { classifyTool, normaliseToolName, type Finding } from '../agents/index.js';
import type { ToolDefinition } from './definitions.js';

/**
 * Which pinned tools of one upstream server the proxy admits (docs/mcp.md, "Policy"). A pin says
 * "this exact definition is the one an operator looked at"; the policy says what that approval is
 * worth for this server: `allow` admits a pinned definition (a first-use pin included), `require_approval`
 * only one an operator approved by hand, `deny` none. Rules match the tool's name (a glob over the
 * normalised name, as the built-in lists look names up) and, optionally, the pinned definition
 * itself (its annotations and its screening findings): the hash covers every member, so what a
 * rule reads is what the operator approved. The first matching rule decides; with none, `default`,
 * where `builtin` keeps the agents plugin's lists as defaults: a dangerous name is denied, a safe
 * one allowed, any other needs an operator's approval. Admission is never the end: the call's
 * arguments are still screened (tools.ts evaluateAdmitted).
 */
export type PolicyAction = 'allow' | 'deny' | 'require_approval';

export interface DefinitionMatch {
  /** annotations.readOnlyHint is true */
  read_only?: boolean;
  /** the MCP default reading: not read-only and destructiveHint not false */
  destructive?: boolean;
  /** annotations.openWorldHint, true when absent (the MCP default) */
  open_world?: boolean;
  /** `none`: screening found nothing in the definition; `any`: it found something (approved with accept_findings) */
  findings?: 'none' | 'any';
}

export interface PolicyRule {
  /** glob over the normalised tool name: `*` any run, `?` one character */
  tool: string;
  action: PolicyAction;
  definition?: DefinitionMatch;
  /** arguments naming files must stay in the sandbox directory (default true) */
  sandbox?: boolean;
}

export interface ServerPolicy {
  default: 'builtin' | PolicyAction;
  rules: PolicyRule[];
}

export const POLICY_COLLECTION = 'mcp.policies';
export const BUILTIN_POLICY: ServerPolicy = Object.freeze({ default: 'builtin', rules: [] }) as ServerPolicy;
export const MAX_RULES = 64;
export const MAX_PATTERN = 128;
/** `*` per pattern: a listing of thousands of tools is matched against every rule on the event loop */
export const MAX_STARS = 8;
const ACTIONS = new Set<string>(['allow', 'deny', 'require_approval']);
const DEFAULTS = new Set<string>(['builtin', 'allow', 'deny', 'require_approval']);
const RULE_KEYS = new Set(['tool', 'action', 'definition', 'sandbox']);
const MATCH_KEYS: Record<string, 'boolean' | 'findings'> = { read_only: 'boolean', destructive: 'boolean', open_world: 'boolean', findings: 'findings' };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Checks a policy from the configuration or the admin API; throws an Error naming the member at fault. */
export function parsePolicy(raw: unknown, where: string): ServerPolicy {
  if (!isObject(raw)) throw new Error(`${where}: expected an object {default?, rules?}`);
  for (const k of Object.keys(raw)) if (k !== 'default' && k !== 'rules') throw new Error(`${where}: unknown member ${k}`);
  const def = raw.default ?? 'builtin';
  if (typeof def !== 'string' || !DEFAULTS.has(def)) throw new Error(`${where}.default: one of builtin, allow, deny, require_approval`);
  const rules = raw.rules ?? [];
  if (!Array.isArray(rules)) throw new Error(`${where}.rules: expected an array`);
  if (rules.length > MAX_RULES) throw new Error(`${where}.rules: at most ${MAX_RULES} rules`);
  const out: PolicyRule[] = rules.map((r, i) => {
    const at = `${where}.rules[${i}]`;
    if (!isObject(r)) throw new Error(`${at}: expected an object {tool, action, definition?, sandbox?}`);
    for (const k of Object.keys(r)) if (!RULE_KEYS.has(k)) throw new Error(`${at}: unknown member ${k}`);
    if (typeof r.tool !== 'string' || !r.tool || r.tool.length > MAX_PATTERN) throw new Error(`${at}.tool: a name pattern of 1–${MAX_PATTERN} characters`);
    if (r.tool.split('*').length - 1 > MAX_STARS) throw new Error(`${at}.tool: at most ${MAX_STARS} * in a pattern`);
    if (typeof r.action !== 'string' || !ACTIONS.has(r.action)) throw new Error(`${at}.action: one of allow, deny, require_approval`);
    if (r.sandbox !== undefined && typeof r.sandbox !== 'boolean') throw new Error(`${at}.sandbox: expected a boolean`);
    const rule: PolicyRule = { tool: r.tool, action: r.action as PolicyAction };
    if (r.sandbox !== undefined) rule.sandbox = r.sandbox;
    if (r.definition !== undefined) {
      if (!isObject(r.definition)) throw new Error(`${at}.definition: expected an object`);
      const m: DefinitionMatch = {};
      for (const [k, v] of Object.entries(r.definition)) {
        const kind = Object.hasOwn(MATCH_KEYS, k) ? MATCH_KEYS[k] : undefined;
        if (!kind) throw new Error(`${at}.definition: unknown member ${k}`);
        if (kind === 'boolean' ? typeof v !== 'boolean' : v !== 'none' && v !== 'any') throw new Error(`${at}.definition.${k}: expected ${kind === 'boolean' ? 'a boolean' : 'none or any'}`);
        (m as Record<string, unknown>)[k] = v;
      }
      rule.definition = m;
    }
    return rule;
  });
  return { default: def as ServerPolicy['default'], rules: out };
}

/**
 * Glob match, linear in pattern × name and without a regular expression: a pattern is operator
 * input, and `*` runs compiled to a backtracking regex could be made to take exponential time.
 */
export function globMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

function annotations(def: ToolDefinition): Record<string, unknown> {
  return isObject(def.annotations) ? def.annotations : {};
}

function definitionMatches(m: DefinitionMatch | undefined, def: ToolDefinition, findings: Finding[]): boolean {
  if (!m) return true;
  const a = annotations(def);
  const readOnly = a.readOnlyHint === true;
  if (m.read_only !== undefined && m.read_only !== readOnly) return false;
  if (m.destructive !== undefined && m.destructive !== (!readOnly && a.destructiveHint !== false)) return false;
  if (m.open_world !== undefined && m.open_world !== (a.openWorldHint !== false)) return false;
  if (m.findings !== undefined && m.findings !== (findings.length ? 'any' : 'none')) return false;
  return true;
}

export interface Decision {
  action: PolicyAction;
  /** what decided, for the reason a client and the activity log read */
  source: string;
  sandbox: boolean;
}

/** the rules' patterns normalised once, not once per tool of a listing */
const compiled = new WeakMap<ServerPolicy, string[]>();
function patterns(policy: ServerPolicy): string[] {
  let p = compiled.get(policy);
  if (!p) compiled.set(policy, (p = policy.rules.map((r) => normaliseToolName(r.tool))));
  return p;
}

/** The policy's word on one pinned definition, before any call's arguments are looked at. */
export function decide(policy: ServerPolicy, tool: string, def: ToolDefinition, findings: Finding[]): Decision {
  const name = normaliseToolName(tool);
  const globs = patterns(policy);
  for (const [i, r] of policy.rules.entries()) {
    if (!globMatch(globs[i], name) || !definitionMatches(r.definition, def, findings)) continue;
    return { action: r.action, source: `rule ${i} (${JSON.stringify(r.tool)})`, sandbox: r.sandbox ?? true };
  }
  if (policy.default !== 'builtin') return { action: policy.default, source: 'the default', sandbox: true };
  const cls = classifyTool(tool).cls;
  if (cls === 'dangerous') return { action: 'deny', source: 'the built-in dangerous list', sandbox: true };
  if (cls === 'safe') return { action: 'allow', source: 'the built-in safe list', sandbox: true };
  return { action: 'require_approval', source: 'the built-in default for a tool on neither list', sandbox: true };
}

export const FIRST_USE = 'first_use';

export type Admission =
  | { ok: true; sandbox: boolean; why: string }
  | { ok: false; constraint_id: 'mcp.policy.deny' | 'mcp.policy.approval_required'; reason: string };

/** Does the decision admit a definition pinned by `approvedBy`? */
export function admission(d: Decision, server: string, tool: string, approvedBy: string): Admission {
  if (d.action === 'deny') return { ok: false, constraint_id: 'mcp.policy.deny', reason: `the policy of server ${server} denies tool ${tool} (${d.source})` };
  if (d.action === 'require_approval' && approvedBy === FIRST_USE) {
    return { ok: false, constraint_id: 'mcp.policy.approval_required', reason: `tool ${tool} of server ${server} needs an operator's approval of its definition (${d.source}); it was only pinned on first use` };
  }
  const how = approvedBy === FIRST_USE ? 'pinned on first use' : 'approved by an operator';
  return { ok: true, sandbox: d.sandbox, why: `${tool} is admitted by the policy of server ${server} (${d.source}: ${d.action}), its definition ${how}` };
}

/** GET/PUT/DELETE /admin/mcp/servers/{server}/policy: schemas/mcp's policy response (generated), with the policy as this module reads it */
export type PolicyView = Omit<McpPolicyResponse, 'policy'> & { policy: ServerPolicy };

interface StoredPolicy {
  server: string;
  policy: ServerPolicy;
  updated_at: string;
  updated_by: string;
}

/**
 * Where a server's policy comes from: the admin API's (shared store, so every replica reads the
 * same), else the configuration's, else the built-in defaults. Read per call and per listing: a
 * tightened policy holds from the next request on, on every replica.
 */
export class Policies {
  constructor(
    private readonly store: Store,
    private readonly configured: ReadonlyMap<string, ServerPolicy | undefined>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get stored() {
    return this.store.collection<StoredPolicy>(POLICY_COLLECTION);
  }

  async view(server: string): Promise<PolicyView> {
    const s = await this.stored.get(server);
    // a record of another server under this key is not this server's policy
    if (s && s.server === server) return { server, source: 'admin', policy: s.policy, updated_at: s.updated_at, updated_by: s.updated_by };
    const c = this.configured.get(server);
    return { server, source: c ? 'config' : 'builtin', policy: c ?? BUILTIN_POLICY, updated_at: null, updated_by: null };
  }

  async of(server: string): Promise<ServerPolicy> {
    return (await this.view(server)).policy;
  }

  async set(server: string, policy: ServerPolicy, by: string): Promise<PolicyView> {
    const rec: StoredPolicy = { server, policy, updated_at: this.now().toISOString(), updated_by: by };
    await this.stored.put(server, rec);
    return { server, source: 'admin', policy, updated_at: rec.updated_at, updated_by: by };
  }

  /** Drops the admin API's policy: the configuration's (or the built-in one) holds again. */
  async reset(server: string): Promise<PolicyView> {
    await this.stored.delete(server);
    return this.view(server);
  }
}

/**
 * A tools/list page after the pins' review: a pinned tool the policy would not let be called is not
 * offered either (a client cannot tell an unusable tool from a usable one by its definition).
 */
export function admitListed(policy: ServerPolicy, server: string, tools: ToolDefinition[], pinned: ReadonlyMap<string, { approved_by: string; findings: Finding[] }>): { visible: ToolDefinition[]; refused: number } {
  const visible = tools.filter((t) => {
    const p = pinned.get(t.name);
    return !!p && admission(decide(policy, t.name, t, p.findings), server, t.name, p.approved_by).ok;
  });
  return { visible, refused: tools.length - visible.length };
}

/** What the operator's tool listing shows of the policy: its word on the definition last seen, and whether a call would pass it now. */
export function describe(policy: ServerPolicy, server: string, t: { tool: string; status: string; findings: Finding[]; approved_by: string | null; definition: ToolDefinition | null }) {
  if (!t.definition) return null;
  const d = decide(policy, t.tool, t.definition, t.findings);
  return { action: d.action, source: d.source, admitted: t.status === 'pinned' && t.approved_by !== null && admission(d, server, t.tool, t.approved_by).ok };
}
