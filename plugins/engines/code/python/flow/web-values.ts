import { NOT_A_PAGE, NOT_MARKUP, REDIRECTS, RESPONSE_CTORS } from './tables.js';
import { type Cat, type V, konst, mix, unknownOrigin } from './value.js';

/**
 * What the web frameworks' own calls return, for the page a view sends (answers.ts) and the sinks
 * their values reach: renders that escape, JSON and redirect answers, response objects built from a
 * body, status and headers, Markup templates, SQL text and files served from one directory. The
 * interpreter (calls.ts) asks here first for a callee of a framework it knows by its qualified name.
 */

/** Identifiers by which a module may get around a template's escaping. */
const UNESCAPING = new Set(['autoescape', 'Markup', 'mark_safe', 'SafeString', 'SafeText', 'SafeData']);

/**
 * A module that names a way around escaping — `autoescape` (jinja_env.autoescape = False,
 * select_autoescape), `Markup`, `mark_safe`, `SafeString` — may hand a renderer text it will not
 * escape: its renders are not taken as escaped. `words`: the module's identifiers (null: not known).
 */
export function mayUnescape(words: readonly string[] | null): boolean {
  return !words || words.some((w) => UNESCAPING.has(w));
}

export interface WebCall {
  args: V[];
  kw: Map<string, V>;
  /** every argument's value, the splat's included */
  all: V[];
  splat: boolean;
  line: number;
  clean(v: V, cats: Iterable<Cat>): V;
  stepped(v: V): V;
  /** mayUnescape of the module being analysed */
  unescapes(): boolean;
}

/** The value `q(…)` returns, or undefined when `q` is no framework call known here. */
export function webValue(q: string, c: WebCall): V | undefined {
  const { args, kw, all, splat, line } = c;
  // a URL of this application: its host is the application's, what it is given is URL-quoted
  if (q === 'flask.url_for') return c.clean(mix(all, line), ['redirect', 'xss']);
  // Flask's Jinja escapes every value rendered into a template named *.html, .htm, .xml or .xhtml
  // (autoescape); another name, or one not known, renders values as they are
  if (q === 'flask.render_template') {
    const name = args[0] ?? kw.get('template_name_or_list');
    const escaped = !!name?.known && typeof name.k === 'string' && /\.(html|htm|xml|xhtml)$/i.test(name.k) && !c.unescapes();
    return escaped && !splat ? c.clean(mix(all, line), ['xss']) : mix([...all, unknownOrigin('a template not known to escape what it renders', line)], line);
  }
  if (NOT_A_PAGE.has(q) && !(q.startsWith('django.') && !q.endsWith('JsonResponse') && c.unescapes())) return c.clean(mix(all, line), ['xss']);
  // the SQL text as given: `text(':a')` bound later is a constant statement
  if (q === 'sqlalchemy.text' && args.length === 1 && !kw.size && !splat) return c.stepped(args[0]);
  // a file from one directory, its name joined safely (werkzeug's safe_join: no `..`, no absolute
  // path): the response is the file, not the name it was asked by
  if (q === 'flask.send_from_directory') return {};
  if (q === 'flask.make_response') return args.length === 1 && !kw.size && !splat ? c.stepped(args[0]) : { ...mix(all, line), ...(kw.size || splat ? {} : { items: args, tuple: true as const }) };
  // Response(response, status, headers, mimetype, content_type): the body is the page (pageOf), the
  // status and headers are not; a body served as a type no browser renders as markup is no page
  if (RESPONSE_CTORS.has(q) && !splat) {
    const type = kw.get('mimetype') ?? args[3] ?? kw.get('content_type') ?? args[4];
    const plain = !!type?.known && typeof type.k === 'string' && NOT_MARKUP.test(type.k.trim());
    const body = args[0] ?? kw.get('response') ?? konst('');
    return { ...mix(all, line), items: [plain ? c.clean(body, ['xss']) : body, args[1] ?? kw.get('status') ?? {}, args[2] ?? kw.get('headers') ?? {}], tuple: true };
  }
  // jsonify's answer is application/json, a redirect's body is the framework's; json.dumps is only
  // text, and served as a page it keeps `<script>`
  if (q === 'flask.jsonify' || REDIRECTS.has(q)) return c.clean(mix(all, line), ['xss']);
  // Markup(constant) is a template whose `%`, `+` and `.format()` escape what they are given
  if ((q === 'markupsafe.Markup' || q === 'flask.Markup') && args.length === 1 && args[0].known && !args[0].flow && !args[0].unk) return { ...args[0], q: ['<markup>'] };
  return undefined;
}
