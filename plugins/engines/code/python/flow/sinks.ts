import type { PyNode } from '../parser.js';
import type { Hit } from './expr.js';
import { type Cat, type V, allFlow, mix, truthy, unknownOrigin } from './value.js';
import {
  ARGV_EXEC, CODE_EXEC, DESERIALISERS, HTML_RESPONSES, LDAP_SEARCH, MAPPING_WRITES, PATH_CALLS, PATH_METHODS, REDIRECTS, RESPONSE_CTORS, SAFE_YAML_LOADER, SHELLS,
  SHELL_STRING_EXEC, SQL_METHODS, WEAK_HASHES, WEAK_HASH_NAMES, XPATH_CALLS, XPATH_METHODS,
} from './tables.js';

export interface CallInfo {
  node: PyNode;
  qs: string[];
  method: string | null;
  recv: V | null;
  args: V[];
  kw: Map<string, V>;
}

/**
 * One visit of a sink with the value of its dangerous argument; `undefined` only where the rule has
 * proven the argument harmless (a safe loader, an argv without a shell). A tainted flow is a finding;
 * data of unknown origin leaves the sink undecided.
 */
function sink(hits: Hit[], cat: Cat, node: PyNode, v: V | undefined): void {
  const f = v ? allFlow(v, 'flow') : undefined;
  const u = v ? allFlow(v, 'unk') : undefined;
  hits.push({ cat, node, flow: f && !f.clean.has(cat) ? f : undefined, undecided: u && !u.clean.has(cat) ? u : undefined });
}

/** Popen's positional `executable` (after `args` and `bufsize`); run, call and check_* hand theirs on to Popen. */
const POPEN_EXECUTABLE = 2;

/** An argument the call does not write out where the rule looks (`f(*args)`, `f(**kw)`, none at all). */
const missing = (node: PyNode): V => unknownOrigin('an argument not written out at the call', node.row + 1);

const mayBeShell = (v: V): boolean => !v.known || (typeof v.k === 'string' && SHELLS.test(v.k.trim()));

/** Every sink rule that applies to one call. */
export function checkSinks(hits: Hit[], c: CallInfo): void {
  const { node, qs, method, recv, args, kw } = c;
  const has = (s: ReadonlySet<string> | Map<string, number>): string | undefined => qs.find((q) => s.has(q));
  if (has(SHELL_STRING_EXEC)) sink(hits, 'cmdi', node, args[0] ?? kw.get('cmd') ?? missing(node));
  if (has(ARGV_EXEC)) {
    // create_subprocess_exec takes the program and its arguments one by one
    const argv = qs.includes('asyncio.create_subprocess_exec') ? (args.length ? { items: args } : missing(node)) : (args[0] ?? kw.get('args') ?? missing(node));
    const shell = kw.get('shell');
    const t = shell ? truthy(shell) : false;
    // executable= is the program that runs; argv[0] is then only the name it is shown under
    const exe = kw.get('executable') ?? (qs.some((q) => q.startsWith('subprocess.')) ? args[POPEN_EXECUTABLE] : undefined);
    const exeSet = exe && !(exe.known && exe.k === null) ? exe : undefined;
    if (t !== false) sink(hits, 'cmdi', node, exeSet ? { items: [argv, exeSet] } : argv);
    else if (argv?.items) {
      // an argv list runs its first item; a shell there runs the item after `-c` as a command line.
      // A program of untrusted or unknown origin is itself the danger, whatever its arguments.
      const [first, ...rest] = argv.items;
      const prog = exeSet ?? first;
      const chosen = !!prog && !!(prog.flow || prog.unk);
      if (prog && (chosen || mayBeShell(prog))) sink(hits, 'cmdi', node, { items: chosen ? [prog, ...argv.items] : rest });
      else {
        const data = allFlow({ items: rest }, 'flow') ?? allFlow({ items: rest }, 'unk');
        hits.push(data ? { cat: 'cmdi', node, argsCarryData: true } : { cat: 'cmdi', node });
      }
    } else sink(hits, 'cmdi', node, argv.known && !exeSet ? undefined : { items: [argv, ...(exeSet ? [exeSet] : [])] });
  }
  if (qs.some((q) => CODE_EXEC.has(q))) sink(hits, 'codeinj', node, args[0] ?? kw.get('source') ?? missing(node));
  if (has(DESERIALISERS)) sink(hits, 'deserialization', node, args[0] ?? kw.get('data') ?? kw.get('file') ?? missing(node));
  if (qs.includes('yaml.load')) {
    const loader = kw.get('Loader') ?? args[1];
    const safe = loader?.q?.some((q) => SAFE_YAML_LOADER.test(q));
    sink(hits, 'deserialization', node, safe ? undefined : (args[0] ?? kw.get('stream') ?? missing(node)));
  }
  if (method && SQL_METHODS.has(method) && recv) sink(hits, 'sqli', node, args[0] ?? kw.get('sql') ?? kw.get('operation') ?? missing(node));
  if (qs.includes('sqlalchemy.text')) sink(hits, 'sqli', node, args[0]);
  const p = has(PATH_CALLS);
  if (p) sink(hits, 'pathtraver', node, args[PATH_CALLS.get(p) as number] ?? kw.get('file') ?? kw.get('path'));
  if (method && PATH_METHODS.has(method) && recv?.q?.includes('<path>')) sink(hits, 'pathtraver', node, recv);
  const x = has(XPATH_CALLS);
  if (x) sink(hits, 'xpathi', node, args[XPATH_CALLS.get(x) as number] ?? kw.get('path'));
  else if (method && XPATH_METHODS.has(method) && recv && !recv.known) sink(hits, 'xpathi', node, args[0] ?? kw.get('_path'));
  if (method && LDAP_SEARCH.test(method) && recv?.q?.some((q) => /ldap/i.test(q))) {
    sink(hits, 'ldapi', node, kw.get('search_filter') ?? kw.get('filterstr') ?? args[method === 'search' ? 1 : 2]);
  }
  const red = has(REDIRECTS);
  if (red) sink(hits, 'redirect', node, args[REDIRECTS.get(red) as number] ?? kw.get('location') ?? kw.get('url'));
  if (has(RESPONSE_CTORS)) locationHeader(hits, node, args[2] ?? kw.get('headers'));
  // an HTML response is a page wherever it is built (a FastAPI route's plain return is JSON, not a page)
  if (has(HTML_RESPONSES)) sink(hits, 'xss', node, args[0] ?? kw.get('content') ?? missing(node));
  if (qs.includes('flask.make_response')) {
    // make_response(body, status, headers), (body, headers), or one tuple of those
    const parts = args.length === 1 && args[0].items ? args[0].items : args;
    for (const h of parts.slice(1)) locationHeader(hits, node, h);
  }
  if (method && MAPPING_WRITES.has(method) && recv) sessionStore(hits, node, recv, {}, mix([...args, ...kw.values()], node.row + 1));
  if (qs.some((q) => /^xml\.dom\.(minidom|pulldom)\.(parseString|parse)$|^xml\.sax\.(parseString|parse)$/.test(q))) {
    const parser = args[1] ?? kw.get('parser');
    sink(hits, 'xxe', node, parser?.q?.includes('<xml-external-entities>') ? args[0] : undefined);
  }
  if (qs.some((q) => /^lxml\.etree\.(fromstring|parse|XML)$/.test(q))) {
    const parser = args[1] ?? kw.get('parser');
    sink(hits, 'xxe', node, parser?.q?.includes('<xml-external-entities>') ? args[0] : undefined);
  }
  // a parser object with external entities on, fed directly: `parser.parse(source)`, `parser.feed(data)`
  if ((method === 'parse' || method === 'feed') && recv?.q?.includes('<xml-external-entities>')) sink(hits, 'xxe', node, args[0] ?? kw.get('source') ?? kw.get('data') ?? missing(node));
  weakHash(hits, c);
  if (method === 'set_cookie' || method === 'set_signed_cookie') {
    const secure = kw.get('secure');
    const t = secure ? truthy(secure) : false;
    if (t !== true) hits.push({ cat: 'securecookie', node, unconditional: secure ? 'the cookie\'s secure flag is not provably true' : 'the cookie is set without secure=True' });
    const value = args[1] ?? kw.get('value');
    if (value?.weak) hits.push({ cat: 'weakrand', node, flow: value.weak });
  }
}

function weakHash(hits: Hit[], c: CallInfo): void {
  const used = c.kw.get('usedforsecurity');
  if (used && truthy(used) === false) return;
  if (c.qs.some((q) => WEAK_HASHES.test(q))) {
    hits.push({ cat: 'hash', node: c.node, unconditional: `${c.qs[0]} is a broken hash` });
    return;
  }
  if (c.qs.includes('hashlib.new')) {
    const name = c.args[0] ?? c.kw.get('name');
    if (!name?.known) hits.push({ cat: 'hash', node: c.node, unconditional: 'hashlib.new with an algorithm not known to be strong' });
    else if (typeof name.k === 'string' && WEAK_HASH_NAMES.test(name.k)) hits.push({ cat: 'hash', node: c.node, unconditional: `hashlib.new('${name.k}') is a broken hash` });
  }
}

/**
 * Response headers written out as a dict (`{'Location': url}`): a `Location` is where the client is
 * sent, a redirect sink. Headers of another shape (a name bound elsewhere, a list of pairs) are not
 * read here; the redirect rules of REDIRECTS still apply to them.
 */
export function locationHeader(hits: Hit[], node: PyNode, headers: V | undefined): void {
  if (!headers?.keys) return;
  for (const [k, v] of headers.keys) if (k.toLowerCase() === 'location') sink(hits, 'redirect', node, v);
}

/** A store into a server-side session: trust boundary for request data, a secret for random values. */
export function sessionStore(hits: Hit[], node: PyNode, container: V, key: V, value: V): void {
  if (!container.q?.some((q) => /(^|\.)session$/i.test(q) || /session/i.test(q.split('.').pop() ?? ''))) return;
  const isFlask = container.q.some((q) => /^(flask|quart)\.session$/.test(q));
  if (isFlask) sink(hits, 'trustbound', node, { items: [key, value] });
  if (value.weak) hits.push({ cat: 'weakrand', node, flow: value.weak });
}

/** A call whose result is a store's data (a query), not the text it was given. */
export function isQuery(qs: string[], method: string | null, recv: V | null): boolean {
  if (qs.some((q) => XPATH_CALLS.has(q))) return true;
  if (!method || !recv || recv.flow) return false;
  return SQL_METHODS.has(method) || (XPATH_METHODS.has(method) && !recv.known) || (LDAP_SEARCH.test(method) && !!recv.q?.some((q) => /ldap/i.test(q)));
}
