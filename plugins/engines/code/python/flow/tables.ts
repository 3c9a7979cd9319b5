import type { Cat } from './value.js';

/** Every class the flow analysis reports, with its CWE (in the finding, SARIF and developer_fields). */
export const CWE: Record<Cat, number> = {
  cmdi: 78, codeinj: 94, deserialization: 502, sqli: 89, pathtraver: 22, xss: 79, xpathi: 643,
  ldapi: 90, xxe: 611, redirect: 601, hash: 328, weakrand: 330, securecookie: 614, trustbound: 501,
};
export const ALL_CATS = Object.keys(CWE) as Cat[];

export const TITLE: Record<Cat, string> = {
  cmdi: 'a shell command', codeinj: 'code evaluation', deserialization: 'an unsafe deserialiser', sqli: 'an SQL statement',
  pathtraver: 'a file path', xss: 'the HTML response', xpathi: 'an XPath query', ldapi: 'an LDAP filter', xxe: 'an XML parser resolving external entities',
  redirect: 'a redirect target', hash: 'a weak hash', weakrand: 'a security value', securecookie: 'a cookie', trustbound: 'the server-side session',
};

/** Attributes of a web framework's request object that carry what the client sent. */
export const REQUEST_DATA = new Set([
  'args', 'form', 'cookies', 'headers', 'values', 'json', 'files', 'data', 'query_string', 'get_json', 'get_data', 'stream',
  'environ', 'referrer', 'user_agent', 'url', 'full_path', 'base_url', 'host', 'host_url', 'url_root', 'authorization',
  'GET', 'POST', 'COOKIES', 'META', 'body', 'FILES', 'query_params', 'path_params', 'view_args', 'remote_addr', 'access_route',
]);
/** Parts of the request fixed by the route itself when its pattern has no variable part. */
export const REQUEST_ROUTE = new Set(['path', 'method', 'endpoint', 'url_rule', 'blueprint', 'scheme', 'script_root']);
export const REQUEST_OBJECTS = /^(flask|quart|bottle|werkzeug\.local|sanic)\.request$/;

/** Calls whose result is data from outside the program. */
export const SOURCE_CALLS = new Map<string, string>([
  ['input', 'input()'], ['raw_input', 'input()'], ['os.getenv', 'the environment'], ['os.environ.get', 'the environment'],
  ['sys.stdin.read', 'standard input'], ['sys.stdin.readline', 'standard input'], ['sys.stdin.readlines', 'standard input'],
]);
export const SOURCE_NAMES = new Map<string, string>([['sys.argv', 'sys.argv'], ['os.environ', 'the environment'], ['sys.stdin', 'standard input']]);
/** Methods that read from a file or socket object. */
export const READ_METHODS = new Set(['read', 'readline', 'readlines', 'recv', 'recvfrom', 'recv_into', 'makefile']);

/** Calls whose result carries none of the argument's content as text (numbers, booleans, hashes). */
export const CONVERTERS = new Set(['int', 'float', 'bool', 'len', 'complex', 'ord', 'abs', 'round', 'isinstance', 'hasattr', 'callable', 'id', 'uuid.UUID', 'decimal.Decimal', 'math.floor', 'math.ceil']);

/** Sanitisers by qualified name: the classes for which their result is safe. */
export const SANITISERS = new Map<string, Cat[]>([
  ['shlex.quote', ['cmdi']], ['pipes.quote', ['cmdi']], ['shlex.join', ['cmdi']],
  ['html.escape', ['xss']], ['markupsafe.escape', ['xss']], ['markupsafe.Markup.escape', ['xss']], ['flask.Markup.escape', ['xss']], ['flask.escape', ['xss']], ['cgi.escape', ['xss']], ['bleach.clean', ['xss']],
  ['xml.sax.saxutils.escape', ['xss']], ['django.utils.html.escape', ['xss']], ['jinja2.escape', ['xss']],
  ['os.path.basename', ['pathtraver']], ['werkzeug.utils.secure_filename', ['pathtraver']],
  ['ldap3.utils.conv.escape_filter_chars', ['ldapi']], ['ldap.filter.escape_filter_chars', ['ldapi']],
  ['urllib.parse.quote', ['xss', 'redirect', 'pathtraver', 'cmdi', 'ldapi', 'xpathi', 'sqli']], ['urllib.parse.quote_plus', ['xss', 'redirect', 'pathtraver', 'cmdi', 'ldapi', 'xpathi', 'sqli']],
  ['base64.b64encode', ['xss', 'cmdi', 'sqli', 'xpathi', 'ldapi', 'codeinj', 'redirect']],
]);

/**
 * A callee outside the file whose name declares what it returns: `..._safe_...` is taken as safe for
 * every class and `escape_..._html` as HTML-escaped. This is trust by name, reported as such (LOW).
 */
export function namedSanitiser(last: string): Cat[] | null {
  if (/(^|_)safe($|_)/i.test(last) || /^(sanitize|sanitise)/i.test(last)) return ALL_CATS;
  if (/escape.*html|html.*escape/i.test(last)) return ['xss'];
  return null;
}

/** Shell interpreters that run their `-c` argument as a command line. */
export const SHELLS = /^(\/(usr\/)?bin\/)?(sh|bash|dash|zsh|ksh|csh|tcsh|fish|cmd(\.exe)?|powershell(\.exe)?|pwsh)$/i;

export const SHELL_STRING_EXEC = new Set(['os.system', 'os.popen', 'subprocess.getoutput', 'subprocess.getstatusoutput', 'asyncio.create_subprocess_shell', 'platform.popen', 'commands.getoutput']);
export const ARGV_EXEC = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output', 'subprocess.Popen', 'asyncio.create_subprocess_exec']);
export const CODE_EXEC = new Set(['eval', 'exec', 'compile', 'builtins.eval', 'builtins.exec', 'builtins.compile']);
export const DESERIALISERS = new Set([
  'pickle.loads', 'pickle.load', 'pickle.Unpickler', 'cPickle.loads', 'cPickle.load', '_pickle.loads', 'dill.loads', 'dill.load', 'cloudpickle.loads',
  'jsonpickle.decode', 'jsonpickle.loads', 'marshal.loads', 'marshal.load', 'yaml.unsafe_load', 'yaml.full_load', 'yaml.load_all', 'pandas.read_pickle', 'joblib.load', 'shelve.open',
]);
export const SAFE_YAML_LOADER = /(^|\.)(C?SafeLoader|C?BaseLoader)$/;
export const SQL_METHODS = new Set(['execute', 'executemany', 'executescript', 'raw', 'mogrify']);
export const PATH_CALLS = new Map<string, number>([
  ['open', 0], ['io.open', 0], ['codecs.open', 0], ['os.open', 0], ['os.remove', 0], ['os.unlink', 0], ['os.rmdir', 0], ['os.listdir', 0], ['os.makedirs', 0],
  ['os.mkdir', 0], ['os.stat', 0], ['os.path.exists', 0], ['os.path.isfile', 0], ['os.path.getsize', 0], ['shutil.copy', 0], ['shutil.copyfile', 0],
  ['shutil.move', 0], ['shutil.rmtree', 0], ['flask.send_file', 0], ['flask.send_from_directory', 0], ['fileinput.input', 0], ['tarfile.open', 0], ['zipfile.ZipFile', 0],
]);
/** Methods of a pathlib path that touch the file system. */
export const PATH_METHODS = new Set(['open', 'read_text', 'read_bytes', 'write_text', 'write_bytes', 'exists', 'unlink', 'mkdir', 'rmdir', 'touch', 'is_file', 'is_dir', 'stat', 'iterdir', 'rename', 'replace', 'glob']);
export const PATH_CTORS = new Set(['pathlib.Path', 'pathlib.PurePath', 'pathlib.PosixPath', 'pathlib.WindowsPath']);
export const REDIRECTS = new Map<string, number>([
  ['flask.redirect', 0], ['werkzeug.utils.redirect', 0], ['django.shortcuts.redirect', 0], ['django.http.HttpResponseRedirect', 0],
  ['django.http.HttpResponsePermanentRedirect', 0], ['starlette.responses.RedirectResponse', 0], ['fastapi.responses.RedirectResponse', 0], ['bottle.redirect', 0],
]);
/**
 * Response objects built from their parts: `(response, status, headers, mimetype, content_type)`.
 * The body is the page; a `Location` header is where the client is sent.
 */
export const RESPONSE_CTORS = new Set([
  'flask.Response', 'flask.wrappers.Response', 'werkzeug.Response', 'werkzeug.wrappers.Response', 'werkzeug.wrappers.response.Response',
]);
/** Media types a browser shows as data, never as markup (a constant `mimetype=`/`content_type=`, parameters allowed). */
export const NOT_MARKUP = /^(text\/plain|text\/csv|application\/json|application\/octet-stream)\s*(;|$)/i;
/** Renderers that escape what they render by default, and responses that serialise data as JSON or text: no page built from it. */
export const NOT_A_PAGE = new Set([
  'django.shortcuts.render', 'django.template.loader.render_to_string', 'django.http.JsonResponse',
  'fastapi.responses.JSONResponse', 'fastapi.responses.ORJSONResponse', 'fastapi.responses.UJSONResponse', 'fastapi.responses.PlainTextResponse',
  'starlette.responses.JSONResponse', 'starlette.responses.PlainTextResponse',
]);
/** Responses whose body is sent as HTML wherever they are built. */
export const HTML_RESPONSES = new Set(['fastapi.responses.HTMLResponse', 'starlette.responses.HTMLResponse']);
/** What writes into a mapping through a method: a session changed so is changed as by `session[k] = v`. */
export const MAPPING_WRITES = new Set(['update', 'setdefault', '__setitem__']);
export const XPATH_CALLS = new Map<string, number>([['elementpath.select', 1], ['elementpath.iter_select', 1], ['lxml.etree.XPath', 0], ['lxml.etree.ETXPath', 0]]);
export const XPATH_METHODS = new Set(['xpath', 'findall', 'iterfind', 'evaluate']);
export const LDAP_SEARCH = /^search(_s|_st|_ext|_ext_s)?$/;
/** Sinks known by the method's name (the receiver decides some): kept when the method is taken as a value. */
export const isSinkMethod = (m: string): boolean =>
  SQL_METHODS.has(m) || XPATH_METHODS.has(m) || PATH_METHODS.has(m) || LDAP_SEARCH.test(m) || m === 'set_cookie' || m === 'set_signed_cookie';
export const WEAK_HASHES = /^(hashlib\.(md5|sha1|md4)|Crypto\.Hash\.(MD5|SHA1|MD4|MD2)\.new|Cryptodome\.Hash\.(MD5|SHA1|MD4|MD2)\.new|cryptography\.hazmat\.primitives\.hashes\.(MD5|SHA1))$/;
export const WEAK_HASH_NAMES = /^(md5|sha1|sha-1|md4|md2|ripemd160)$/i;
/** random's generator is predictable; its SystemRandom class and the secrets module are not. */
export const WEAK_RANDOM = /^(random\.(random|randint|randrange|getrandbits|randbytes|choice|choices|sample|shuffle|uniform|normalvariate|gauss|triangular|betavariate|expovariate|lognormvariate|vonmisesvariate|paretovariate|weibullvariate)|numpy\.random\.\w+)$/;

/**
 * Callees outside the file whose result is made of their arguments only (no data of their own):
 * anything else called from outside the file returns data of unknown origin.
 */
export const PURE_CALLS = new Set([
  'list', 'tuple', 'dict', 'set', 'frozenset', 'sorted', 'reversed', 'repr', 'format', 'min', 'max', 'sum', 'enumerate', 'zip', 'bytes', 'bytearray', 'ascii', 'chr', 'hex', 'oct', 'bin',
  'os.path.join', 'os.path.normpath', 'os.path.dirname', 'os.path.splitext', 'os.path.split', 'os.path.expanduser', 'posixpath.join', 'ntpath.join',
  'urllib.parse.urlencode', 'urllib.parse.urljoin',
  'json.loads', 'string.Template', 'textwrap.dedent', 'codecs.encode', 'io.StringIO', 'io.BytesIO',
]);
/**
 * Decoders: they undo an encoding, so what an encoder made safe (`b64encode`, `quote`, `html.escape`)
 * is raw again in their result; the data they return is the data given, no class clean.
 */
export const DECODERS = new Set([
  'base64.b64decode', 'base64.urlsafe_b64decode', 'base64.standard_b64decode', 'base64.b32decode', 'base64.b32hexdecode', 'base64.b16decode',
  'base64.a85decode', 'base64.b85decode', 'base64.decodebytes', 'binascii.a2b_base64', 'binascii.unhexlify', 'binascii.a2b_hex',
  'urllib.parse.unquote', 'urllib.parse.unquote_plus', 'urllib.parse.unquote_to_bytes', 'html.unescape', 'codecs.decode', 'quopri.decodestring',
]);
/** Methods of str, bytes, list and dict: their result is made of the receiver and the arguments. */
export const DATA_METHODS = new Set([
  'lower', 'upper', 'strip', 'lstrip', 'rstrip', 'encode', 'decode', 'replace', 'format', 'format_map', 'title', 'capitalize', 'casefold', 'split', 'rsplit', 'splitlines', 'partition', 'rpartition',
  'center', 'ljust', 'rjust', 'zfill', 'expandtabs', 'translate', 'removeprefix', 'removesuffix', 'get', 'getlist', 'get_all', 'keys', 'values', 'items', 'copy', 'pop', 'getvalue',
  'join', 'startswith', 'endswith', 'find', 'rfind', 'index', 'rindex', 'count', 'isdigit', 'isalnum', 'isalpha', 'isnumeric', 'isdecimal', 'isidentifier', 'isspace', 'islower', 'isupper',
  'substitute', 'safe_substitute', 'hex', 'popitem', 'setdefault',
]);

export const OWN_VALUES = new Set([
  'tempfile.mkdtemp', 'tempfile.gettempdir', 'tempfile.gettempdirb', 'tempfile.mkstemp', 'os.getpid', 'os.getcwd',
  // strong random values the program makes (as text: hex, base64url or digits), not data a client sent
  'secrets.token_hex', 'secrets.token_bytes', 'secrets.token_urlsafe', 'secrets.randbits', 'secrets.randbelow', 'os.urandom', 'uuid.uuid4',
]);
/** hashlib constructors: the object's digest is hex or bytes of fixed length, whatever it was fed. */
export const HASH_CTORS = /^hashlib\.(new|md5|sha1|sha224|sha256|sha384|sha512|sha3_\w+|blake2[bs]|shake_\w+)$/;

/** Calls that read a list or dict handed to them without changing it or keeping it. */
export const NON_MUTATING = new Set([
  'len', 'str', 'repr', 'print', 'list', 'tuple', 'sorted', 'dict', 'set', 'frozenset', 'int', 'float', 'bool', 'isinstance', 'any', 'all',
  'min', 'max', 'sum', 'enumerate', 'zip', 'reversed', 'join', 'format', 'get', 'startswith', 'endswith', 'count', 'index', 'dumps',
  'jsonify', 'escape', 'quote', 'execute', 'executemany', 'fetchone', 'fetchall', 'render_template_string', 'render_template',
]);
