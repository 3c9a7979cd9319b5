import type { PyNode } from '../parser.js';
import { MODULE_ALIAS_NAMES } from '../names.js';
import { NAME_RESOLVERS } from '../resolve.js';
import { ROUTE_VERBS } from './routes.js';
import {
  ARGV_EXEC, CODE_EXEC, DESERIALISERS, HTML_RESPONSES, PATH_CALLS, PATH_CTORS, REDIRECTS, RESPONSE_CTORS, SHELL_STRING_EXEC, SQL_METHODS, XPATH_CALLS, XPATH_METHODS,
} from './tables.js';

/**
 * The words by which the flow filters (prefilter.ts) know a sink may be named: the sinks' qualified
 * names, the sink methods, reflection that reads or writes by name, the receivers recognised by a
 * part of their name, and the text test built from them all.
 */

/** Sink names matched by regular expressions in the tables, written out (sinks.ts: xxe, weak hashes). */
const PATTERN_SINKS = [
  'xml.dom.minidom.parseString', 'xml.dom.minidom.parse', 'xml.dom.pulldom.parseString', 'xml.dom.pulldom.parse', 'xml.sax.parseString', 'xml.sax.parse',
  'lxml.etree.fromstring', 'lxml.etree.parse', 'lxml.etree.XML',
  // parser objects fed directly (sinks.ts: `parser.parse(source)`, `parser.feed(data)`)
  'lxml.etree.XMLParser', 'xml.sax.make_parser',
  'hashlib.md5', 'hashlib.sha1', 'hashlib.md4', 'hashlib.new',
  ...['Crypto', 'Cryptodome'].flatMap((m) => ['MD5', 'SHA1', 'MD4', 'MD2'].map((h) => `${m}.Hash.${h}.new`)),
  'cryptography.hazmat.primitives.hashes.MD5', 'cryptography.hazmat.primitives.hashes.SHA1',
];

/** Every qualified sink name: its first and last segments must both be written for it to be reachable. */
export const SINK_NAMES: readonly string[] = [
  ...SHELL_STRING_EXEC, ...ARGV_EXEC, ...CODE_EXEC, ...DESERIALISERS, ...PATH_CALLS.keys(), ...PATH_CTORS, ...REDIRECTS.keys(), ...XPATH_CALLS.keys(),
  'yaml.load', 'sqlalchemy.text', ...PATTERN_SINKS,
  // a Location header given to a response is a redirect
  ...RESPONSE_CTORS, 'flask.make_response', ...HTML_RESPONSES,
];

/** Sinks known by their method name whatever the receiver (a cursor's execute, an element's xpath, a response's cookie). */
export const METHOD_SINKS = new Set([...SQL_METHODS, ...XPATH_METHODS, 'set_cookie', 'set_signed_cookie']);

/**
 * Reflection that writes a name out of the binding forms read below (`setattr`, `globals()[…] = v`,
 * `vars(o)` handed on, `o.__dict__`, `f.__globals__`): a value may then reach any name, so nothing is
 * filtered. `globals()`, `locals()` and `vars()` only read from (writesByName) count as reads by name.
 */
export const WRITES_BY_NAME = new Set(['setattr', 'delattr', 'globals', 'locals', 'vars', '__dict__', '__setattr__', '__delattr__', '__globals__']);
const NAMESPACE_CALLS = new Set(['globals', 'locals', 'vars']);
const TARGET_PARTS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'parenthesized_expression', 'expression_list', 'list_splat_pattern', 'as_pattern_target']);

/**
 * Whether a use of a writing word may write: always, but for `globals()` (and locals, vars) called
 * and read at once — `globals()[k]` not assigned, augmented, deleted or looped into, or
 * `globals().get(k)`, the value read not changed through an attribute or subscript in turn.
 * Anything else (the namespace bound to a name, handed to a call, updated) may.
 */
export function writesByName(id: PyNode): boolean {
  if (!NAMESPACE_CALLS.has(id.text) || id.field !== 'function') return true;
  const call = id.parent;
  const use = call?.parent;
  if (!call || call.type !== 'call' || !use) return true;
  // what is read must not be changed in turn (`globals()['l'].append(v)` writes into a global)
  const readOnly = (v: PyNode): boolean => !(v.parent?.type === 'attribute' && v.field === 'object') && !(v.parent?.type === 'subscript' && v.field === 'value');
  if (use.type === 'attribute' && call.field === 'object') {
    const m = use.children.find((c) => c.field === 'attribute')?.text;
    const got = use.parent;
    return !(m === 'get' && got?.type === 'call' && use.field === 'function' && readOnly(got));
  }
  if (use.type !== 'subscript' || call.field !== 'value' || !readOnly(use)) return true;
  let x: PyNode = use;
  while (x.parent && TARGET_PARTS.has(x.parent.type)) x = x.parent;
  const p = x.parent;
  if (!p) return false;
  if (p.type === 'delete_statement' || p.type === 'as_pattern') return true;
  return (p.type === 'assignment' || p.type === 'augmented_assignment' || p.type === 'for_statement' || p.type === 'for_in_clause') && x.field === 'left';
}

/**
 * Reflection that reads a name made from strings (getattr, `__import__`, `sys.modules`, each resolver
 * of names by its last segment) or walks from one object to another (`().__class__.__base__`): the
 * name may be a sink's, so the word counts as one. Dunder names of ordinary classes do not.
 */
const READS_BY_NAME = new Set([
  'globals', 'locals', 'vars', 'getattr', '__import__', 'import_module', 'modules', 'attrgetter', 'methodcaller', '__builtins__',
  ...[...NAME_RESOLVERS].map((q) => q.split('.').pop() as string), 'resolve', 'ext_convert',
]);
const ORDINARY_DUNDER = /^__(init|name|main|all|file|doc|future|slots|repr|str|version|author|post_init|enter|exit|iter|next|len|eq|ne|lt|le|gt|ge|hash|bool|contains)__$/;
export const readsByName = (w: string): boolean => READS_BY_NAME.has(w) || (w.length > 4 && w.startsWith('__') && w.endsWith('__') && !ORDINARY_DUNDER.test(w));

/** receivers the rules recognise by a part of their name: an LDAP connection, a session store */
export const NAMED_RECEIVERS = /ldap|session/i;

/**
 * The words without one of which SinkNames.anySink() is false, as one expression over the source
 * text: each sink's module (or the alias the resolver maps to it; a builtin's own name), the sink
 * methods, reflection, the LDAP/session receivers, a special name no ordinary class has, a route
 * decorator (or one that starts with a bracket or goes on past a line end) and a Django view's
 * request. Text that matches none names no sink, and the identifier passes are not made at all.
 */
const SINK_TEXT = new RegExp(
  [
    `\\b(${[...new Set([...SINK_NAMES.map((n) => n.split('.')[0] as string), ...MODULE_ALIAS_NAMES, ...METHOD_SINKS, ...READS_BY_NAME, ...WRITES_BY_NAME, 'request', 'HttpRequest'])].join('|')})\\b`,
    `@[^\\n]*\\b(${ROUTE_VERBS.join('|')})\\b`, '@\\s*\\(', '@[^\\n]*\\\\\\r?\\n',
    // special names, matched as the identifiers are
    `(?<![A-Za-z0-9_])__(?!(${ORDINARY_DUNDER.source.slice(4, -4)})__(?![A-Za-z0-9_]))[A-Za-z0-9_]+__(?![A-Za-z0-9_])`,
  ].join('|'),
);

/** Whether text is all ASCII: its own NFKC form, so its identifiers need no normalising. */
export function isAscii(code: string): boolean {
  return !/[^\x00-\x7f]/.test(code);
}

/**
 * False only where SinkNames.anySink() is surely false: ASCII text (`ascii`, isAscii) without any
 * word SINK_TEXT looks for (identifiers are case-sensitive) and without a receiver NAMED_RECEIVERS
 * would recognise.
 */
export function mayNameSink(code: string, ascii = isAscii(code)): boolean {
  return !ascii || SINK_TEXT.test(code) || NAMED_RECEIVERS.test(code);
}

/** first segments of the sink names, by last segment */
export const BY_LAST = new Map<string, string[]>();
for (const name of SINK_NAMES) {
  const parts = name.split('.');
  const last = parts[parts.length - 1] as string;
  (BY_LAST.get(last) ?? BY_LAST.set(last, []).get(last))?.push(parts[0] as string);
}
