import type { JsNode } from '../parser.js';
import { type Cat, type V, allFlow, truthy, unknownOrigin } from '../../python/flow/index.js';
import { type JsHit, lineOf } from './value.js';
import { ARGV_EXEC, CODE_EXEC, DESERIALISERS, PATH_CALLS, SAFE_YAML_SCHEMAS, SHELLS, SHELL_STRING_EXEC, SQL_METHODS, TWO_PATHS, WEAK_HASH_NAMES } from './tables.js';

export interface JsCallInfo {
  node: JsNode;
  /** qualified names of the callee, `.default` dropped */
  qs: string[];
  method: string | null;
  recv: V | null;
  args: V[];
  /** the response of the handler being run declared a content type other than HTML */
  plainResponse: boolean;
}

/**
 * One visit of a sink with the value of its dangerous argument; `undefined` only where the rule has
 * proven the argument harmless (an argv without a shell, a safe schema). A tainted flow is a finding;
 * data of unknown origin leaves the sink undecided.
 */
export function sink(hits: JsHit[], cat: Cat, node: JsNode, v: V | undefined): void {
  const f = v ? allFlow(v, 'flow') : undefined;
  const u = v ? allFlow(v, 'unk') : undefined;
  hits.push({ cat, node, flow: f && !f.clean.has(cat) ? f : undefined, undecided: u && !u.clean.has(cat) ? u : undefined });
}

const missing = (node: JsNode): V => unknownOrigin('an argument not written out at the call', lineOf(node));
/** Qualified names the analysis gives the objects of a handler (`<request>`, `<response>`, Koa's context). */
export const isMarker = (q: string): boolean => /^<(request|response|koa|session|socket|class)/.test(q);
const isResponse = (v: V | null): boolean => !!v?.q?.includes('<response>');
const isObjectShaped = (v: V): boolean => !!(v.keys || v.items);
/** Programs that run source given on their command line. */
const INTERPRETERS = /^(\/(usr\/)?(local\/)?bin\/)?(node|nodejs|deno|bun|python[0-9.]*|perl|ruby|php|lua|Rscript)$/;
const mayBeShell = (v: V): boolean => !v.known || (typeof v.k === 'string' && SHELLS.test(v.k.trim()));

/**
 * A target whose constant start fixes the host: a path on this host ('/users/', not '//' or '/\\'),
 * or a scheme, host and the '/', '?' or '#' that ends the host.
 */
function hostFixed(v: V | undefined): boolean {
  const pre = (v as { pre?: string } | undefined)?.pre;
  return !!pre && (/^\/[^/\\]/.test(pre) || /^https?:\/\/[^/?#\\@]+[/?#]/i.test(pre));
}

/** The options of spawn/execFile: the first argument after the program that is neither the argv array nor a callback. */
function options(args: V[]): V | undefined {
  return args.slice(1).find((a) => !a.items && !(a as { jfn?: unknown }).jfn && !(a.known && a.k === null));
}

/** Every sink rule that applies to one call. */
export function checkSinks(hits: JsHit[], c: JsCallInfo): void {
  const { node, qs, method, recv, args } = c;
  const has = (s: ReadonlySet<string>): string | undefined => qs.find((q) => s.has(q));
  if (has(SHELL_STRING_EXEC)) sink(hits, 'cmdi', node, args[0] ?? missing(node));
  if (has(ARGV_EXEC)) argvExec(hits, c);
  const code = qs.find((q) => CODE_EXEC.has(q));
  if (code) {
    const at = CODE_EXEC.get(code) as number;
    const src = at < 0 ? (args.length ? { items: args } : undefined) : (args[at] ?? missing(node));
    // a timer given a function runs it; only a string is compiled, and a parameter may well be a function
    const timer = code === 'setTimeout' || code === 'setInterval';
    const fnArg = timer && src && ((src as { jfn?: unknown }).jfn || src.q?.length || !src.flow || src.flow.what.startsWith('parameter '));
    if (src && !fnArg) sink(hits, 'codeinj', node, src);
    else if (code !== 'Function' || fnArg) hits.push({ cat: 'codeinj', node });
  }
  if (has(DESERIALISERS)) {
    // loadAll(text, iterator, options): an object in the iterator's place is the options (js-yaml reads it so)
    const opts = qs.some((q) => q.endsWith('.loadAll')) && !args[1]?.keys ? args[2] : args[1];
    const schema = opts?.keys?.get('schema');
    const safe = qs.some((q) => q.startsWith('js-yaml.')) && !!schema?.q?.some((q) => SAFE_YAML_SCHEMAS.test(q));
    sink(hits, 'deserialization', node, safe ? undefined : (args[0] ?? missing(node)));
  }
  if (method && SQL_METHODS.has(method) && recv && !recv.known && !recv.q?.some(isMarker)) {
    const a0 = args[0] ?? missing(node);
    // pg's { text, values }: the text is the statement, the values are bound
    sink(hits, 'sqli', node, a0.keys?.get('text') ?? a0.keys?.get('sql') ?? a0);
  }
  // sqlite3 and better-sqlite3 databases take SQL text in exec/all/get/run/each too; a statement
  // that prepare() made takes bound parameters there
  if (method && /^(exec|all|get|run|each)$/.test(method) && recv?.q?.some((q) => /sqlite/i.test(q) && !/\.prepare\(\)$/.test(q))) sink(hits, 'sqli', node, args[0] ?? missing(node));
  const p = qs.find((q) => PATH_CALLS.test(q));
  if (p) {
    sink(hits, 'pathtraver', node, args[0] ?? missing(node));
    if (TWO_PATHS.test(p)) sink(hits, 'pathtraver', node, args[1] ?? missing(node));
  }
  if (isResponse(recv)) response(hits, c);
  if (recv?.q?.includes('<koa>') && method === 'redirect') sink(hits, 'redirect', node, hostFixed(args[0]) ? undefined : (args[0] ?? missing(node)));
  if (recv?.q?.includes('<koa-cookies>') && method === 'set') cookie(hits, node, args[1], args[2], true);
  weakHash(hits, c);
}

function argvExec(hits: JsHit[], c: JsCallInfo): void {
  const { node, args } = c;
  const program = args[0] ?? missing(node);
  const argv = args[1]?.items ? args[1] : args[1] && !args[1].keys ? args[1] : undefined;
  const opts = options(args);
  // options the analysis cannot see into may set shell: true
  const shell = opts?.keys ? opts.keys.get('shell') : opts;
  const t = shell ? truthy(shell) : false;
  if (t !== false) {
    // with a shell, the program and its arguments are joined into one command line
    sink(hits, 'cmdi', node, { items: [program, ...(argv?.items ?? (argv ? [argv] : []))] });
    return;
  }
  if (program.flow || program.unk) {
    sink(hits, 'cmdi', node, program);
    return;
  }
  // an interpreter's -e/-c/-p/--eval runs the next argument as a program
  const interp = program.known && typeof program.k === 'string' && INTERPRETERS.test(program.k.trim()) ? argv?.items : undefined;
  const flag = interp?.findIndex((i) => i.known && typeof i.k === 'string' && /^(-[ecp]|-\w*[ec]|--eval|--print|-r)$/.test(i.k)) ?? -1;
  if (interp && flag >= 0) sink(hits, 'codeinj', node, interp[flag + 1] ?? missing(node));
  if (mayBeShell(program) && argv) {
    // `sh -c <line>`: the item after -c is a command line
    const items = argv.items;
    if (!items) sink(hits, 'cmdi', node, argv);
    else {
      const at = items.findIndex((i) => i.known && typeof i.k === 'string' && /^-\w*c$/.test(i.k));
      sink(hits, 'cmdi', node, at >= 0 ? { items: items.slice(at + 1) } : undefined);
    }
    return;
  }
  hits.push({ cat: 'cmdi', node });
}

function response(hits: JsHit[], c: JsCallInfo): void {
  const { node, method, args } = c;
  const a0 = args[0];
  if (method === 'send' || method === 'write' || method === 'end') {
    if (!a0) return;
    if (a0.weak) hits.push({ cat: 'weakrand', node, flow: a0.weak });
    // an object is sent as JSON; a declared text or JSON type is not parsed as HTML
    sink(hits, 'xss', node, c.plainResponse || isObjectShaped(a0) ? undefined : a0);
  } else if (method === 'json' || method === 'jsonp') {
    if (a0?.weak) hits.push({ cat: 'weakrand', node, flow: a0.weak });
  } else if (method === 'redirect' || method === 'location') {
    sink(hits, 'redirect', node, hostFixed(args[args.length - 1]) ? undefined : (args[args.length - 1] ?? missing(node)));
  } else if (method === 'sendFile' || method === 'download') {
    // with a root, send refuses a path that climbs out of it
    const root = args[1]?.keys?.get('root');
    sink(hits, 'pathtraver', node, root ? undefined : (a0 ?? missing(node)));
  } else if (method === 'cookie') {
    cookie(hits, node, args[1], args[2], false);
  } else if ((method === 'setHeader' || method === 'set' || method === 'header') && a0?.known && typeof a0.k === 'string' && a0.k.toLowerCase() === 'location') {
    sink(hits, 'redirect', node, args[1] ?? missing(node));
  } else if (method === 'writeHead') {
    const headers = args.find((a) => a.keys);
    const loc = headers && [...(headers.keys as Map<string, V>)].find(([k]) => k.toLowerCase() === 'location');
    if (loc) sink(hits, 'redirect', node, loc[1]);
  }
}

/** A cookie must be provably secure (HTTPS only) and, for Express, httpOnly; Koa's default is httpOnly. */
function cookie(hits: JsHit[], node: JsNode, value: V | undefined, opts: V | undefined, httpOnlyDefault: boolean): void {
  if (value?.weak) hits.push({ cat: 'weakrand', node, flow: value.weak });
  const flag = (name: string): boolean | null => {
    const v = opts?.keys?.get(name);
    return v ? truthy(v) : opts && !opts.keys ? null : false;
  };
  const missingFlags = [flag('secure') === true ? null : 'secure', flag('httpOnly') === true || (httpOnlyDefault && flag('httpOnly') !== false) ? null : 'httpOnly'].filter((x) => x);
  if (missingFlags.length) hits.push({ cat: 'securecookie', node, unconditional: `the cookie is set without ${missingFlags.map((f) => `${f}: true`).join(' and ')}` });
}

function weakHash(hits: JsHit[], c: JsCallInfo): void {
  if (!c.qs.includes('crypto.createHash')) return;
  const name = c.args[0];
  if (!name?.known) hits.push({ cat: 'hash', node: c.node, unconditional: 'crypto.createHash with an algorithm not known to be strong' });
  else if (typeof name.k === 'string' && WEAK_HASH_NAMES.test(name.k)) hits.push({ cat: 'hash', node: c.node, unconditional: `crypto.createHash('${name.k}') is a broken hash` });
}
