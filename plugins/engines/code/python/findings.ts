import { type PyNode, field, namedChildren } from './parser.js';
import { keywordArg, positionalArgs } from './args.js';
import { type Resolver, ident } from './resolve.js';
import { isKeyLiteral, isPasswordName, secretByValue } from '../secrets.js';
import type { Report } from './rules.js';

/**
 * Findings about data rather than dangerous calls (docs/engines/code.md, "Data findings"):
 * secrets recognised by value, literal keys handed to crypto constructors, fast hashes of
 * passwords, DataFrame.eval/query and SQL text built from request or input values. The SQL and
 * DataFrame rules follow taint inside one function (intra-procedural): sources are `input()`,
 * `sys.argv`, `request.args/form/json/values/cookies/headers/data/GET/POST/get_json()`, and the
 * parameters of route handlers (`@app.route`, `@router.get`, `@api_view`, …); a name assigned a
 * tainted value in the same function is tainted; `int()`/`float()`/`bool()`/`len()` clean a value.
 */

/** crypto constructors and the position of their key argument (a Map: keys are source names, never Object.prototype's) */
const KEY_ARG = new Map<string, number>([
  ['cryptography.fernet.Fernet', 0],
  ['hmac.new', 0],
  ['hmac.HMAC', 0],
  ['jwt.encode', 1],
  ['nacl.secret.SecretBox', 0],
  ['cryptography.hazmat.primitives.ciphers.aead.AESGCM', 0],
  ['cryptography.hazmat.primitives.ciphers.aead.ChaCha20Poly1305', 0],
  ['cryptography.hazmat.primitives.ciphers.algorithms.AES', 0],
]);
const CIPHER_NEW = /^(?:Crypto|Cryptodome)\.Cipher\.(?:AES|DES|DES3|ARC2|ARC4|Blowfish|CAST|ChaCha20|Salsa20)\.new$/;
const WEAK_HASH = new Set(['md5', 'sha1']);
const FAST_HASH = new Set(['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha3_256', 'sha3_512', 'blake2b', 'blake2s']);
const REQUEST_FIELDS = new Set(['args', 'form', 'json', 'values', 'cookies', 'headers', 'data', 'files', 'GET', 'POST', 'query_params', 'get_json', 'body', 'params']);
const SANITIZERS = new Set(['int', 'float', 'bool', 'len', 'abs', 'round']);
const SQL_SINKS = new Set(['execute', 'executemany', 'executescript', 'raw', 'read_sql', 'read_sql_query']);
/** the modules every qualified name checked by `call` starts with (a cheap test that rules most calls out) */
const SINK_HEADS = new Set(['cryptography', 'hmac', 'jwt', 'nacl', 'Crypto', 'Cryptodome', 'hashlib', 'pandas', 'sqlalchemy']);
function isDataSinkName(q: string): boolean {
  const dot = q.indexOf('.');
  return dot > 0 && SINK_HEADS.has(q.slice(0, dot));
}
const ROUTE_DECORATOR = /(?:^|\.)(?:route|get|post|put|delete|patch|api_view|websocket)\s*\(/;

function enclosingFunction(n: PyNode): PyNode | null {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition' || p.type === 'lambda') return p.type === 'function_definition' ? p : null;
  return null;
}

function paramNames(fn: PyNode): string[] {
  const params = field(fn, 'parameters');
  if (!params) return [];
  const out: string[] = [];
  for (const c of namedChildren(params)) {
    if (c.type === 'identifier') out.push(c.text);
    else {
      const name = field(c, 'name') ?? namedChildren(c).find((x) => x.type === 'identifier');
      if (name) out.push(name.text);
    }
  }
  return out;
}

function isRouteHandler(fn: PyNode): boolean {
  const dec = fn.parent?.type === 'decorated_definition' ? fn.parent : null;
  return !!dec && dec.children.some((c) => c.type === 'decorator' && ROUTE_DECORATOR.test(c.text));
}

export class DataFindings {
  private readonly taintCache = new Map<PyNode | null, Set<string>>();
  readonly importsPandas: boolean;

  constructor(
    private readonly r: Resolver,
    private readonly report: Report,
  ) {
    this.importsPandas = [...r.importedModules].some((m) => m === 'pandas' || m.startsWith('pandas.'));
  }

  /** a string literal whose exact value is a known secret shape */
  stringValue(n: PyNode): void {
    if (n.parent?.type === 'concatenated_string') return; // judged as a whole
    const v = this.r.fold(n);
    const hit = v !== null ? secretByValue(v) : null;
    if (hit) this.report(n, 'HIGH', 'hardcoded_credential', hit.rule, hit.message);
  }

  call(call: PyNode, quals: string[]): void {
    const fn = field(call, 'function') as PyNode;
    const method = fn.type === 'attribute' ? ident((field(fn, 'attribute') as PyNode).text) : null;
    if (!(method && (method === 'eval' || method === 'query' || SQL_SINKS.has(method))) && !quals.some(isDataSinkName)) return;
    const args = positionalArgs(call);
    for (const q of quals) {
      if (!isDataSinkName(q)) continue;
      const keyAt = KEY_ARG.get(q) ?? (CIPHER_NEW.test(q) ? 0 : undefined);
      if (keyAt !== undefined) {
        const key = args[keyAt] ?? keywordArg(call, 'key');
        const v = key ? this.r.fold(key) : null;
        if (v !== null && isKeyLiteral(v)) this.report(call, 'HIGH', 'hardcoded_credential', 'secrets.literal_crypto_key', `${q}() is given a literal key`);
      }
      const h = /^hashlib\.(\w+)$/.exec(q);
      if (h && (FAST_HASH.has(h[1]) || h[1] === 'new')) this.passwordHash(call, h[1] === 'new' ? (args[0] ? this.r.fold(args[0]) : null) : h[1], h[1] === 'new' ? args[1] : args[0]);
      const upd = /^hashlib\.(\w+)\(\)\.update$/.exec(q);
      if (upd && WEAK_HASH.has(upd[1]) && args[0]) this.passwordHash(call, upd[1], args[0]);
      if (q === 'pandas.eval' || q === 'pandas.query') this.dataframe(call, q, args[0]);
      if (q === 'pandas.read_sql' || q === 'pandas.read_sql_query' || q === 'sqlalchemy.text') this.sql(call, q, args[0]);
    }
    if (method && (method === 'eval' || method === 'query') && this.importsPandas && !quals.some((q) => q === 'pandas.eval' || q === 'pandas.query')) this.dataframe(call, `DataFrame.${method}`, args[0] ?? keywordArg(call, 'expr') ?? undefined);
    if (method && SQL_SINKS.has(method) && !quals.some((q) => q === 'pandas.read_sql' || q === 'pandas.read_sql_query')) this.sql(call, `.${method}`, args[0] ?? keywordArg(call, 'sql') ?? undefined);
  }

  private passwordHash(call: PyNode, algo: string | null, arg: PyNode | undefined): void {
    if (!arg || !algo || !this.mentionsPassword(arg)) return;
    const a = algo.toLowerCase().replace('-', '');
    if (WEAK_HASH.has(a)) {
      this.report(call, 'HIGH', 'weak_cryptography', 'crypto.weak_password_hash', `a password is hashed with ${a.toUpperCase()}`);
    } else if (FAST_HASH.has(a) && this.isBarePassword(arg)) {
      this.report(call, 'HIGH', 'weak_cryptography', 'crypto.weak_password_hash', `a password is hashed with unsalted ${a} (use a salted, slow KDF: hashlib.scrypt, pbkdf2_hmac, bcrypt, argon2)`);
    }
  }

  private mentionsPassword(n: PyNode): boolean {
    const stack = [n];
    while (stack.length) {
      const x = stack.pop() as PyNode;
      if (x.type === 'string') continue;
      if (x.type === 'identifier' && isPasswordName(x.text)) return true;
      for (const c of x.children) stack.push(c);
    }
    return false;
  }

  /** the password alone: `pw`, `pw.encode()`, `user.password`, `bytes(pw, 'utf8')` — nothing mixed in */
  private isBarePassword(n: PyNode): boolean {
    if (n.type === 'identifier' || n.type === 'attribute') return isPasswordName(n.type === 'identifier' ? n.text : (field(n, 'attribute') as PyNode).text);
    if (n.type === 'call') {
      const fn = field(n, 'function') as PyNode;
      const a = positionalArgs(n);
      if (fn.type === 'attribute' && (field(fn, 'attribute') as PyNode).text === 'encode') return this.isBarePassword(field(fn, 'object') as PyNode);
      if (fn.type === 'identifier' && (fn.text === 'bytes' || fn.text === 'str') && a[0]) return this.isBarePassword(a[0]);
    }
    if (n.type === 'parenthesized_expression') return namedChildren(n).length === 1 && this.isBarePassword(namedChildren(n)[0]);
    return false;
  }

  private dataframe(call: PyNode, what: string, arg: PyNode | undefined): void {
    if (arg && this.tainted(arg)) this.report(call, 'HIGH', 'code_injection', 'code_injection.dataframe_eval', `${what}() evaluates an expression taken from input (pandas eval can reach attributes and run code)`);
  }

  private sql(call: PyNode, what: string, arg: PyNode | undefined): void {
    if (!arg) return;
    const built = this.builtSql(arg, enclosingFunction(call));
    if (built) this.report(call, 'CRITICAL', 'sql_injection', 'sql_injection.string_built', `${what}() runs SQL text built by ${built} from request or input values`);
  }

  /** how the SQL text is assembled from tainted parts (f-string, %, .format, +), following names bound in the function */
  private builtSql(n: PyNode, fn: PyNode | null, depth = 0): string | null {
    if (depth > 4) return null;
    const how = this.buildKind(n);
    if (how && this.tainted(n)) return how;
    if (n.type === 'identifier') {
      for (const b of this.r.bindings.get(ident(n.text)) ?? []) {
        if (b.kind === 'expr' && enclosingFunction(b.node) === fn) {
          const inner = this.builtSql(b.node, fn, depth + 1);
          if (inner) return inner;
        }
      }
    }
    return null;
  }

  private buildKind(n: PyNode): string | null {
    if (n.type === 'string' && n.children.some((c) => c.type === 'interpolation')) return 'an f-string';
    if (n.type === 'binary_operator') {
      const op = n.children.find((c) => c.field === 'operator')?.text;
      if (op === '%') return '%-formatting';
      if (op === '+') return 'concatenation';
    }
    if (n.type === 'call') {
      const fn = field(n, 'function') as PyNode;
      if (fn.type === 'attribute' && (field(fn, 'attribute') as PyNode).text === 'format') return '.format()';
    }
    return null;
  }

  /** true when some part of the expression carries request or input data (within its function) */
  tainted(n: PyNode): boolean {
    const names = this.taintedNames(enclosingFunction(n));
    return this.exprTainted(n, names);
  }

  private exprTainted(n: PyNode, names: Set<string>): boolean {
    const stack = [n];
    while (stack.length) {
      const x = stack.pop() as PyNode;
      if (x.type === 'identifier' && names.has(ident(x.text)) && x.field !== 'attribute') return true;
      if (this.isSource(x)) return true;
      if (x.type === 'call') {
        const fn = field(x, 'function') as PyNode;
        if (fn.type === 'identifier' && SANITIZERS.has(fn.text)) continue;
      }
      if (x.type === 'lambda' || x.type === 'function_definition') continue;
      for (const c of x.children) stack.push(c);
    }
    return false;
  }

  private isSource(x: PyNode): boolean {
    if (x.type === 'call') {
      const fn = field(x, 'function') as PyNode;
      if (fn.type === 'identifier' && (ident(fn.text) === 'input' || ident(fn.text) === 'raw_input')) return true;
    }
    if (x.type === 'attribute') {
      const attr = ident((field(x, 'attribute') as PyNode).text);
      const obj = field(x, 'object') as PyNode;
      if (attr === 'argv' && this.r.qualify(obj).includes('sys')) return true;
      if (REQUEST_FIELDS.has(attr) && obj.type === 'identifier' && /^(request|req)$/.test(obj.text)) return true;
    }
    return false;
  }

  private byFunction: Map<PyNode | null, Array<[string, PyNode]>> | null = null;

  /** the value bindings made in one function, grouped once for the whole module (not per sink: that would be quadratic) */
  private assignmentsIn(fn: PyNode | null): Array<[string, PyNode]> {
    if (!this.byFunction) {
      this.byFunction = new Map();
      for (const [name, list] of this.r.bindings) {
        for (const b of list) {
          if (b.kind !== 'expr') continue;
          const owner = enclosingFunction(b.node);
          const group = this.byFunction.get(owner);
          if (group) group.push([name, b.node]);
          else this.byFunction.set(owner, [[name, b.node]]);
        }
      }
    }
    return this.byFunction.get(fn) ?? [];
  }

  /** names holding tainted data in one function: route-handler parameters and assignments, to a fixpoint */
  private taintedNames(fn: PyNode | null): Set<string> {
    const hit = this.taintCache.get(fn);
    if (hit) return hit;
    const names = new Set<string>();
    this.taintCache.set(fn, names);
    if (fn && isRouteHandler(fn)) for (const p of paramNames(fn)) if (p !== 'self' && p !== 'cls') names.add(ident(p));
    const assigns = this.assignmentsIn(fn);
    for (let changed = true, rounds = 0; changed && rounds < 20; rounds++) {
      changed = false;
      for (const [name, value] of assigns) {
        if (!names.has(name) && this.exprTainted(value, names)) {
          names.add(name);
          changed = true;
        }
      }
    }
    return names;
  }
}
