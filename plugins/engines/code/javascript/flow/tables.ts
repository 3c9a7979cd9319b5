import type { Cat } from '../../python/flow/index.js';

/**
 * What the JavaScript/TypeScript flow analysis knows of Node's libraries, by the qualified names the
 * resolver gives (`child_process.exec`, `fs/promises.readFile`, `js-yaml.load`). The classes and
 * CWEs are the Python analysis's (python/flow/tables.ts), so both languages report one rule set.
 */

/** Members of an Express / node:http request that carry what the client sent. */
export const REQUEST_DATA = new Set([
  'query', 'params', 'body', 'cookies', 'signedCookies', 'headers', 'rawHeaders', 'url', 'originalUrl', 'baseUrl', 'path',
  'hostname', 'host', 'ip', 'ips', 'files', 'file', 'subdomains', 'protocol', 'trailers', 'rawBody',
]);
/** Request members that are objects of client data (a whole one sent as a response is JSON, not HTML). */
export const REQUEST_CONTAINERS = new Set(['query', 'params', 'body', 'cookies', 'signedCookies', 'headers', 'files', 'trailers']);
/** Request methods whose result is client data (`req.get('Referer')`, `req.param('id')`). */
export const REQUEST_METHODS = new Set(['get', 'header', 'param']);
/** Members of a Koa context (or its request) that carry what the client sent; `ctx.request` is a request. */
export const KOA_DATA = new Set(['query', 'params', 'body', 'headers', 'header', 'url', 'originalUrl', 'path', 'querystring', 'search', 'host', 'hostname', 'href', 'ip', 'ips', 'files', 'file']);
/** Methods of an application or router that register a handler. */
export const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'use', 'options', 'head', 'route']);

/** Names whose value is data from outside the program. */
export const SOURCE_NAMES = new Map<string, string>([['process.argv', 'process.argv'], ['process.env', 'the environment'], ['process.stdin', 'standard input']]);
/** Calls whose result is the content of a file (a source, as in the Python analysis). */
export const FILE_READS = /^(fs|fs\/promises|fs\.promises)\.(readFile|readFileSync)$/;

/** Calls whose result carries none of the argument's text (numbers, booleans). */
export const CONVERTERS = new Set([
  'parseInt', 'parseFloat', 'Number', 'Number.parseInt', 'Number.parseFloat', 'Boolean', 'isNaN', 'Number.isInteger', 'Number.isFinite', 'Number.isNaN', 'Date.parse',
  'Math.floor', 'Math.ceil', 'Math.round', 'Math.abs', 'Math.trunc', 'Math.max', 'Math.min', 'Math.sign', 'Array.isArray', 'BigInt',
]);

/** Sanitisers by qualified name: the classes for which their result is safe. */
export const SANITISERS = new Map<string, Cat[]>([
  ['encodeURIComponent', ['xss', 'redirect']], ['encodeURI', ['xss']], ['escape', ['xss', 'redirect', 'cmdi', 'sqli', 'codeinj']],
  ['escape-html', ['xss']], ['he.encode', ['xss']], ['he.escape', ['xss']], ['lodash.escape', ['xss']], ['underscore.escape', ['xss']], ['validator.escape', ['xss']],
  ['xss', ['xss']], ['xss-filters.inHTMLData', ['xss']], ['dompurify.sanitize', ['xss']], ['isomorphic-dompurify.sanitize', ['xss']], ['sanitize-html', ['xss']],
  ['entities.encode', ['xss']], ['entities.encodeHTML', ['xss']], ['html-entities.encode', ['xss']],
  ['shell-quote.quote', ['cmdi']], ['shell-escape', ['cmdi']], ['shescape.quote', ['cmdi']], ['shescape.escape', ['cmdi']],
  ['path.basename', ['pathtraver']], ['path.posix.basename', ['pathtraver']], ['sanitize-filename', ['pathtraver']],
  ['sqlstring.escape', ['sqli']], ['sqlstring.escapeId', ['sqli']], ['mysql.escape', ['sqli']], ['mysql.escapeId', ['sqli']], ['mysql2.escape', ['sqli']], ['pg-format.literal', ['sqli']],
  ['JSON.stringify', ['codeinj']],
]);
/** Methods that escape for SQL whatever they are called on (`connection.escape(v)`, `client.escapeLiteral(v)`). */
export const SQL_ESCAPE_METHODS = new Set(['escape', 'escapeId', 'escapeLiteral', 'escapeIdentifier']);

/** Callees whose result is made of their arguments only; `path.*` results are marked as normalised paths. */
export const PURE_CALLS = new Set([
  'String', 'Array', 'Array.from', 'Array.of', 'Object.assign', 'Object.values', 'Object.keys', 'Object.entries', 'Object.fromEntries', 'JSON.parse',
  'decodeURIComponent', 'decodeURI', 'unescape', 'Buffer.from', 'Buffer.concat', 'String.raw', 'url.format', 'querystring.stringify', 'querystring.parse',
  'util.format', 'path.extname', 'path.dirname', 'path.relative', 'path.parse', 'path.format',
]);
/** path functions that normalise `..` away: a prefix test on their result is a containment check. */
export const NORMALISING_PATH = new Set(['path.resolve', 'path.join', 'path.normalize', 'path.posix.resolve', 'path.posix.join', 'path.posix.normalize', 'fs.realpathSync', 'fs/promises.realpath']);
/** Methods of strings, arrays, maps and buffers: their result is made of the receiver and the arguments. */
export const DATA_METHODS = new Set([
  'toLowerCase', 'toUpperCase', 'toLocaleLowerCase', 'toLocaleUpperCase', 'trim', 'trimStart', 'trimEnd', 'slice', 'substring', 'substr', 'split', 'join', 'concat',
  'replace', 'replaceAll', 'padStart', 'padEnd', 'repeat', 'normalize', 'toString', 'valueOf', 'charAt', 'at', 'filter', 'reverse', 'sort', 'flat', 'keys', 'values',
  'entries', 'pop', 'shift', 'find', 'get', 'getAll', 'toJSON', 'match', 'matchAll', 'toFixed', 'then', 'text', 'json', 'trimLeft', 'trimRight',
]);
/** Methods whose result says something about the receiver but holds none of its text. */
export const PREDICATE_METHODS = new Set(['includes', 'startsWith', 'endsWith', 'indexOf', 'lastIndexOf', 'test', 'has', 'some', 'every', 'findIndex', 'localeCompare', 'search', 'codePointAt', 'charCodeAt']);
/** Array methods that call their callback with each element. */
export const ELEMENT_CALLBACKS = new Set(['map', 'forEach', 'filter', 'find', 'some', 'every', 'flatMap', 'findIndex', 'reduce', 'then', 'catch', 'finally']);

export const SHELL_STRING_EXEC = new Set(['child_process.exec', 'child_process.execSync', 'shelljs.exec']);
export const ARGV_EXEC = new Set(['child_process.spawn', 'child_process.spawnSync', 'child_process.execFile', 'child_process.execFileSync']);
export const SHELLS = /^(\/(usr\/)?bin\/)?(sh|bash|dash|zsh|ksh|csh|tcsh|fish|cmd(\.exe)?|powershell(\.exe)?|pwsh)$/i;
/** Code runners and the argument holding the source (-1: every argument, as `Function(a, b, body)`). */
export const CODE_EXEC = new Map<string, number>([
  ['eval', 0], ['Function', -1], ['vm.runInNewContext', 0], ['vm.runInThisContext', 0], ['vm.runInContext', 0], ['vm.Script', 0], ['vm.compileFunction', 0],
  ['vm.SourceTextModule', 0], ['setTimeout', 0], ['setInterval', 0],
]);
export const DESERIALISERS = new Set(['node-serialize.unserialize', 'serialize-to-js.deserialize', 'funcster.deepDeserialize', 'cryo.parse', 'js-yaml.load', 'js-yaml.loadAll']);
/** js-yaml schemas that build no functions or regexps: `load(s, { schema })` with one is safe in every version. */
export const SAFE_YAML_SCHEMAS = /^js-yaml\.(JSON_SCHEMA|CORE_SCHEMA|FAILSAFE_SCHEMA)$/;
/** Methods that run their first argument as SQL text. */
export const SQL_METHODS = new Set(['query', 'execute', 'raw', 'prepare', 'whereRaw', 'orderByRaw', 'havingRaw', 'joinRaw', 'groupByRaw', '$queryRawUnsafe', '$executeRawUnsafe', 'unsafe']);
/** File-system calls and the positions of their path arguments. */
export const PATH_CALLS = /^(fs|fs\/promises|fs\.promises)\.(readFile|readFileSync|writeFile|writeFileSync|appendFile|appendFileSync|createReadStream|createWriteStream|unlink|unlinkSync|readdir|readdirSync|stat|statSync|lstat|lstatSync|access|accessSync|exists|existsSync|rm|rmSync|rmdir|rmdirSync|mkdir|mkdirSync|open|openSync|copyFile|copyFileSync|rename|renameSync|truncate|truncateSync|chmod|chmodSync)$/;
export const TWO_PATHS = /\.(copyFile|copyFileSync|rename|renameSync)$/;
export const WEAK_HASH_NAMES = /^(md5|sha1|sha-1|md4|md2|ripemd160|rmd160)$/i;
/** Names of what must not be guessable: a Math.random() value bound to one is CWE-330. */
export const SECRET_NAMES = /(token|secret|session|nonce|csrf|xsrf|otp|passw|salt|api_?key|auth|uuid|guid)|(^|_)(id|key)$|[a-z](Id|Key)$|^(id|key)$/i;
