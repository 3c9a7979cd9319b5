import type { JsNode } from '../parser.js';
import { propName } from '../resolve.js';
import { type Cat, type Const, type V, allFlow, konst, ALL_CATS } from '../../python/flow/index.js';
import { type JEnv, cleanFor, joinJEnv } from './value.js';

/** What a guard needs of the interpreter. */
export interface GuardEval {
  ev(n: JsNode | null | undefined, env: JEnv): V;
}

const PATH_AND_URL: readonly Cat[] = ['pathtraver', 'redirect'];
/** validator.js tests whose pass leaves only letters, digits and a few marks. */
const VALIDATOR_TESTS = /^validator\.(isAlphanumeric|isAlpha|isNumeric|isInt|isFloat|isUUID|isHexadecimal|isMongoId|isBoolean|isDecimal|isPort)$/;

/**
 * An anchored pattern made only of letters, digits, `_`, `-` and classes of those: a value it
 * matches holds no quote, space, separator or markup. Returns the classes it rules out.
 */
export function allowlistPattern(pattern: string): readonly Cat[] | null {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return null;
  const body = pattern.slice(1, -1);
  // units: a class of safe members, an escape \d or \w, a safe literal; each optionally repeated
  const unit = String.raw`(\[(?:[A-Za-z0-9]-[A-Za-z0-9]|[A-Za-z0-9_]|\\d|\\w|\\-|\\\.|\.|-)+\]|\\d|\\w|[A-Za-z0-9_]|\\-|\\\.|-)`;
  const quant = String.raw`([+*?]|\{\d+(,\d*)?\})?`;
  if (!new RegExp(`^(${unit}${quant})+$`).test(body)) return null;
  // a dot (literal or in a class) lets `..` through: not a path or URL proof
  return /\\\.|\[[^\]]*\.[^\]]*\]/.test(body) ? ALL_CATS.filter((c) => !PATH_AND_URL.includes(c)) : ALL_CATS;
}

/** Environments for the branch where `test` holds and the one where it does not. */
export function refine(g: GuardEval, test: JsNode, env: JEnv, qualify: (n: JsNode) => string[]): [JEnv, JEnv] {
  const set = (e: JEnv, target: JsNode, f: (v: V) => V): JEnv => {
    if (target.type !== 'Identifier') return e;
    const name = target.name as string;
    const v = e.get(name);
    if (!v) return e;
    const out = e.fork();
    out.set(name, f(v));
    return out;
  };
  const clean = (e: JEnv, target: JsNode, cats: readonly Cat[]): JEnv => {
    let out = set(e, target, (v) => cleanFor(v, cats));
    // a URL's host check guards the string the URL was parsed from
    const of = target.type === 'Identifier' ? e.get(target.name as string)?.of : undefined;
    if (of) out = set(out, { type: 'Identifier', name: of, start: 0, end: 0 }, (v) => cleanFor(v, cats));
    return out;
  };
  switch (test.type) {
    case 'UnaryExpression':
      if (test.operator === '!') {
        const [t, f] = refine(g, test.argument as JsNode, env, qualify);
        return [f, t];
      }
      break;
    case 'LogicalExpression': {
      const [lt, lf] = refine(g, test.left as JsNode, env, qualify);
      if (test.operator === '&&') {
        const [rt, rf] = refine(g, test.right as JsNode, lt, qualify);
        return [rt, joinJEnv(lf, rf)];
      }
      if (test.operator === '||') {
        const [rt, rf] = refine(g, test.right as JsNode, lf, qualify);
        return [joinJEnv(lt, rt), rf];
      }
      break;
    }
    case 'BinaryExpression': {
      const op = test.operator as string;
      const eq = op === '===' || op === '==';
      const ne = op === '!==' || op === '!=';
      if (!eq && !ne) break;
      const l = test.left as JsNode;
      const r = test.right as JsNode;
      const rv = g.ev(r, env);
      const lv = g.ev(l, env);
      // x === 'const': in the branch where it holds, x is that constant
      const [target, c] = rv.known && !lv.known ? [l, rv] : lv.known && !rv.known ? [r, lv] : [null, null];
      // loose equality converts an object (`toString`, `valueOf`, `Symbol.toPrimitive`), which may answer
      // the constant to the test and other text later: only a value that is no object of the file's or of
      // unknown origin is proven equal by it
      const tv = target === l ? lv : rv;
      const convertible = (op === '==' || op === '!=') && (!!tv.unk || !!tv.keys || !!tv.items || !!(tv as { jfn?: unknown }).jfn || !tv.flow);
      if (target && c && !convertible) {
        let yes = set(env, target, () => konst(c.k as Const));
        // u.host === 'example.com' guards the URL u (and the string it was parsed from)
        if (target.type === 'MemberExpression' && ['host', 'hostname', 'origin'].includes(propName(target, () => null) ?? '')) {
          yes = clean(env, target.object as JsNode, ['redirect']);
        }
        return eq ? [yes, env] : [env, yes];
      }
      // x.indexOf('..') === -1 and friends
      const idx = l.type === 'CallExpression' ? l : r.type === 'CallExpression' ? r : null;
      const num = idx === l ? rv : lv;
      if (idx && num.known && num.k === -1) {
        // refine() gives indexOf('..')'s "absent" side first
        const [absent] = refine(g, idx, env, qualify);
        return eq ? [absent, env] : [env, absent];
      }
      break;
    }
    case 'CallExpression': {
      const callee = test.callee as JsNode;
      const args = test.arguments as JsNode[];
      const qs = qualify(callee);
      if (qs.some((q) => VALIDATOR_TESTS.test(q)) && args[0]) return [clean(env, args[0], ALL_CATS), env];
      if (callee.type !== 'MemberExpression') break;
      const method = propName(callee, () => null);
      const obj = callee.object as JsNode;
      const a0 = args[0] ? g.ev(args[0], env) : null;
      if (method === 'test' && args[0]) {
        const re = obj.type === 'Literal' ? (obj as { regex?: { pattern: string; flags: string } }).regex : undefined;
        // with the m flag, ^ and $ match at every line: the line after a newline is not checked
        const cats = re && !re.flags.includes('m') ? allowlistPattern(re.pattern) : null;
        if (cats) return [clean(env, args[0], cats), env];
      }
      // '..' anywhere in the value: the branch where it is absent cannot climb out of a directory
      if ((method === 'includes' || method === 'indexOf') && a0?.known && a0.k === '..') {
        const absent = clean(env, obj, ['pathtraver']);
        return method === 'includes' ? [env, absent] : [absent, env];
      }
      // a prefix test on a normalised path (path.resolve / path.join / realpath) is a containment check
      // a prefix of one character ('/', '') contains nothing
      const prefix = a0 && !allFlow(a0, 'flow') && !allFlow(a0, 'unk') && (!a0.known || (typeof a0.k === 'string' && a0.k.length > 1));
      if (method === 'startsWith' && obj.type === 'Identifier' && env.get(obj.name as string)?.q?.includes('<normalised-path>') && prefix) {
        return [clean(env, obj, ['pathtraver']), env];
      }
      // ALLOWED.includes(x) / ALLOWED.has(x) with a list of constants: x is one of them
      if ((method === 'includes' || method === 'has') && args[0]) {
        const list = g.ev(obj, env);
        const items = list.items;
        if (items && items.length && items.every((i) => i.known)) {
          const target = args[0];
          const host = target.type === 'MemberExpression' && ['host', 'hostname', 'origin'].includes(propName(target, () => null) ?? '');
          return [host ? clean(env, target.object as JsNode, ['redirect']) : clean(env, target, ALL_CATS), env];
        }
      }
      break;
    }
  }
  return [env, env];
}
