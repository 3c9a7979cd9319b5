import { parse as acornParse } from 'acorn';
import { transform } from 'sucrase';
import { elidedNamespace } from './ts-namespace.js';

/**
 * JavaScript / TypeScript source → ESTree. acorn has no error recovery, so any tree it returns is
 * complete; a syntax error is a parse failure (BLOCKED upstream), never a partial tree.
 * TypeScript is reduced to JavaScript with sucrase's `typescript` transform (types, interfaces,
 * enums, `as`, generics) and the output is parsed by acorn: sucrase keeps line numbers, so findings
 * point at the TypeScript line (columns may shift where type annotations were removed). JSX (in
 * .js or .tsx-style input) goes through sucrase's `jsx` transform the same way.
 */
export interface JsNode {
  type: string;
  start: number;
  end: number;
  loc?: { start: { line: number; column: number } };
  [key: string]: unknown;
}

export interface JsParse {
  ast: JsNode | null;
  /** `acorn(module)`, `acorn(script)`, prefixed with `sucrase+` for TypeScript */
  parser: string;
  error: { line: number; column: number; message: string } | null;
  /** the JavaScript text the tree was built from (TypeScript: sucrase's output) */
  source: string;
}

/** Same depth bound as the Python side: deeper input is refused rather than walked. */
export const MAX_DEPTH = 1000;

/**
 * `<!--` and a line-leading `-->` start comments only in a sloppy-mode script (Annex B); a module,
 * TypeScript and other tools read what follows as code (`x\n--> eval(s)` is `x-- > eval(s)`). Which
 * reading runs depends on how the file is loaded, which the engine is not told, so such input is
 * refused rather than analysed under one reading.
 */
class HtmlComment extends Error {
  constructor(readonly loc: { line: number; column: number }) {
    super('HTML-like comment (<!-- or -->): a comment only in a sloppy-mode script, code elsewhere');
  }
}

function attempt(code: string, sourceType: 'module' | 'script'): JsNode {
  return acornParse(code, {
    onComment: (block, _text, start, _end, loc) => {
      if (!block && !code.startsWith('//', start) && !code.startsWith('#!', start)) throw new HtmlComment({ line: loc?.line ?? 1, column: loc?.column ?? 0 });
    },
    ecmaVersion: 'latest',
    sourceType,
    locations: true,
    allowHashBang: true,
    allowReturnOutsideFunction: sourceType === 'script',
    allowAwaitOutsideFunction: sourceType === 'script',
  }) as unknown as JsNode;
}

function syntaxError(err: unknown): { line: number; column: number; message: string } {
  const e = err as { loc?: { line: number; column: number }; message?: string };
  const message = String(e?.message ?? 'syntax error').replace(/\s*\(\d+:\d+\)$/, '');
  return { line: e?.loc?.line ?? 1, column: (e?.loc?.column ?? 0) + 1, message };
}

/** Module grammar first (import/export, strict mode), then script grammar (sloppy mode, `with`, …). */
function parseAcorn(code: string, prefix: string): JsParse {
  try {
    return { ast: attempt(code, 'module'), parser: `${prefix}acorn(module)`, error: null, source: code };
  } catch (moduleErr) {
    try {
      return { ast: attempt(code, 'script'), parser: `${prefix}acorn(script)`, error: null, source: code };
    } catch (scriptErr) {
      return { ast: null, parser: `${prefix}acorn`, error: syntaxError(scriptErr instanceof HtmlComment ? scriptErr : moduleErr), source: code };
    }
  }
}

/**
 * JavaScript; when it does not parse and contains JSX-looking markup, JSX is compiled by sucrase
 * (`React.createElement(…)`, same lines) and the result parsed. The first error is reported if
 * both fail.
 */
export function parseJavaScript(code: string): JsParse {
  const plain = parseAcorn(code, '');
  if (plain.ast || !/<[A-Za-z>]/.test(code)) return plain;
  const jsx = viaSucrase(code, ['jsx'], 'sucrase(jsx)+');
  return jsx.ast ? jsx : plain;
}

/** TypeScript, then TSX when the plain TypeScript transform fails. */
export function parseTypeScript(code: string): JsParse {
  const ns = elidedNamespace(code, false) ?? (/<[A-Za-z>]/.test(code) ? elidedNamespace(code, true) : null);
  if (ns) return { ast: null, parser: 'sucrase', error: ns, source: code };
  const ts = viaSucrase(code, ['typescript'], 'sucrase+');
  if (ts.ast || !/<[A-Za-z>]/.test(code)) return ts;
  const tsx = viaSucrase(code, ['typescript', 'jsx'], 'sucrase(tsx)+');
  return tsx.ast ? tsx : ts;
}

function viaSucrase(code: string, transforms: Array<'typescript' | 'jsx'>, prefix: string): JsParse {
  let js: string;
  try {
    js = transform(code, { transforms, disableESTransforms: true, keepUnusedImports: true, production: true }).code;
  } catch (err) {
    const e = err as { message?: string; loc?: { line: number; column: number } };
    const m = /\((\d+):(\d+)\)/.exec(String(e?.message ?? ''));
    return {
      ast: null,
      parser: prefix.slice(0, -1),
      error: { line: m ? Number(m[1]) : 1, column: m ? Number(m[2]) + 1 : 1, message: String(e?.message ?? 'syntax error').replace(/\s*\(\d+:\d+\)$/, '') },
      source: code,
    };
  }
  return parseTranspiled(js, prefix);
}

/**
 * sucrase drops `import type { T }` but keeps `export { T }`, which acorn's module grammar rejects
 * ("Export 'T' is not defined"). Such names are types, so a `var` for each is appended on the last
 * line (line numbers unchanged) and the module grammar retried; other errors fall back to parseAcorn.
 */
function parseTranspiled(js: string, prefix: string): JsParse {
  let out = js;
  for (let i = 0; i < 64; i++) {
    try {
      return { ast: attempt(out, 'module'), parser: `${prefix}acorn(module)`, error: null, source: out };
    } catch (err) {
      const m = /^Export '([^']+)' is not defined/.exec(String((err as Error)?.message ?? ''));
      if (!m || !/^[A-Za-z_$][\w$]*$/.test(m[1])) break;
      out += `;var ${m[1]};`;
    }
  }
  return parseAcorn(out, prefix);
}

const SKIP_KEYS = new Set(['type', 'start', 'end', 'loc', 'range', 'raw', 'regex', 'bigint', 'parent', 'parentKey']);

/** Child nodes in source order. */
export function childrenOf(node: JsNode): JsNode[] {
  const out: JsNode[] = [];
  for (const key of Object.keys(node)) {
    if (SKIP_KEYS.has(key)) continue;
    const v = node[key];
    if (Array.isArray(v)) {
      for (const x of v) if (x && typeof x === 'object' && typeof (x as JsNode).type === 'string') out.push(x as JsNode);
    } else if (v && typeof v === 'object' && typeof (v as JsNode).type === 'string') out.push(v as JsNode);
  }
  return out;
}

/**
 * Sets `parent` / `parentKey` on every node (iteratively) and returns the nodes in pre-order.
 * Returns null when the tree is deeper than MAX_DEPTH.
 */
export function linkParents(root: JsNode): JsNode[] | null {
  const order: JsNode[] = [];
  const stack: Array<[JsNode, number]> = [[root, 0]];
  while (stack.length) {
    const [n, depth] = stack.pop() as [JsNode, number];
    if (depth > MAX_DEPTH) return null;
    order.push(n);
    const keys = Object.keys(n).filter((k) => !SKIP_KEYS.has(k));
    const kids: Array<[JsNode, string]> = [];
    for (const key of keys) {
      const v = n[key];
      if (Array.isArray(v)) {
        for (const x of v) if (x && typeof x === 'object' && typeof (x as JsNode).type === 'string') kids.push([x as JsNode, key]);
      } else if (v && typeof v === 'object' && typeof (v as JsNode).type === 'string') kids.push([v as JsNode, key]);
    }
    for (let i = kids.length - 1; i >= 0; i--) {
      const [c, key] = kids[i];
      c.parent = n;
      c.parentKey = key;
      stack.push([c, depth + 1]);
    }
  }
  return order;
}

export function parentOf(n: JsNode): JsNode | null {
  return (n.parent as JsNode | undefined) ?? null;
}
