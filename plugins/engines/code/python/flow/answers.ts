import { type PyNode, field, namedChildren } from '../parser.js';
import type { Resolver } from '../resolve.js';
import type { Hit } from './expr.js';
import type { Frame } from './calls.js';
import { locationHeader } from './sinks.js';
import { type V, allFlow, join, pageOf } from './value.js';

/**
 * What a route handler sends back, judged once its run is over: the page (XSS), a `Location`
 * header written in a returned tuple (redirect) and a weak random value anywhere in the answer.
 * Each return statement records its own share as it runs (`recordReturn`), because a container
 * inside a tuple keeps no shape of its own once built (nested()) and a join of differently shaped
 * returns keeps none either.
 */

/** literals a Flask view's return sends as JSON */
const JSON_BODIES = new Set(['dictionary', 'list', 'dictionary_comprehension', 'list_comprehension']);

/**
 * One `return e` whose value is `v`, read as written: the header dicts of `return body, 302, {…}`
 * (the tuple cannot change before it is sent), and the page it sends (a dict or list body is JSON).
 */
export function recordReturn(f: Frame, s: PyNode, e: PyNode | null, v: V, ev: (n: PyNode) => V): void {
  const parts = e && (e.type === 'expression_list' || e.type === 'tuple') ? namedChildren(e) : null;
  if (parts) for (const d of parts.slice(1)) if (d.type === 'dictionary') (f.headers ??= []).push({ at: s, v: ev(d) });
  const body = parts ? parts[0] : e;
  const page = body && JSON_BODIES.has(body.type) ? {} : pageOf(v);
  f.pages = f.pages ? join(f.pages, page, false) : page;
}

/** The hits a route's answer makes; `at` is the node they are reported on (its last return). */
export function judgeAnswer(hits: Hit[], frame: Frame & { returns: V }, at: PyNode, json: boolean): void {
  if (!json) {
    const f = allFlow(frame.pages ?? pageOf(frame.returns), 'flow');
    hits.push({ cat: 'xss', node: at, flow: f && !f.clean.has('xss') ? f : undefined });
    // the client is sent where a returned tuple's headers say (a response object's were judged where it was built)
    for (const h of frame.headers ?? []) locationHeader(hits, h.at, h.v);
  }
  // handed out in any part of the answer (a JSON field, a tuple's body)
  const weak = allFlow(frame.returns, 'weak');
  if (weak) hits.push({ cat: 'weakrand', node: at, flow: weak });
}

/**
 * A FastAPI app's or router's route without `response_class=`: its return value goes out as JSON.
 * `words`: the module's identifiers; one that sets `default_response_class` may make every plain return HTML.
 */
export function jsonRoute(def: PyNode, decorators: string[], r: Resolver, words: readonly string[]): boolean {
  if (def.parent?.type !== 'decorated_definition' || decorators.some((d) => d.includes('response_class')) || words.includes('default_response_class')) return false;
  return namedChildren(def.parent).some((d) => {
    const call = d.type === 'decorator' ? namedChildren(d)[0] : null;
    const fn = call?.type === 'call' ? field(call, 'function') : null;
    const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
    return !!obj && r.qualify(obj).some((q) => q === 'fastapi.FastAPI()' || q === 'fastapi.APIRouter()');
  });
}
