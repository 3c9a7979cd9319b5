import t from 'tap';
import { verify } from '../../../plugins/engines/code/engine.js';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { joinCase, recombine, splitCase, templateOf, type RecombineCase } from '../../../bench/engines/owasp-recombine.js';
import { scoreCase, type CaseVerdict } from '../../../bench/engines/owasp-score.js';

/**
 * bench/engines/owasp-recombine.ts (`code-owasp --recombine`): cases cut into source, propagator
 * and sink, and joined again in the combinations a copy's own labels decide. The handlers are
 * written for this test in the benchmark generator's layout (tabs, blank lines between the parts),
 * not taken from it.
 */
const handler = (source: string, prop: string, sink: string): string =>
  [
    'from flask import Flask, request',
    'import os, subprocess, shlex',
    '',
    'def init(app):',
    '',
    "\t@app.route('/c', methods=['POST'])",
    '\tdef handler_post():',
    '\t\tRESPONSE = ""',
    '',
    source,
    '',
    prop,
    '',
    sink,
    '\t\treturn RESPONSE',
    '',
  ].join('\n');

const ARGS = "\t\tparam = request.args.get('p', '')";
const HEADERS = "\t\tparam = ''\n\t\theaders = request.headers.getlist('p')\n\n\t\tif headers:\n\t\t\tparam = headers[0]";
const SHELL = "\t\tos.system('ls ' + bar)";

t.test('a case cuts into its parts and joins back; a header source two paragraphs long stays one source', async (t) => {
  const code = handler(HEADERS, '\t\tnum = 86\n\n\t\tbar = param if 7 * 42 - num > 200 else "fixed"', SHELL);
  const p = splitCase(code);
  if (!p) throw new Error('no parts');
  t.equal(p.source, HEADERS, 'the source runs to the last paragraph that assigns param');
  t.equal(p.prop, '\t\tnum = 86\n\n\t\tbar = param if 7 * 42 - num > 200 else "fixed"', 'the propagator to the last that assigns bar');
  t.equal(p.sink, `${SHELL}\n\t\treturn RESPONSE`);
  t.same(p.pre, ['\t\tRESPONSE = ""']);
  t.equal(joinCase(p), code.trimEnd() + '\n', 'joined unchanged, but for the trailing blank line');
  t.equal(splitCase('def handler_post():\n    return 1\n'), null, 'no param and bar: not a generated case');
});

t.test('a template leaves out the case number and the random ids, never the small numbers a branch turns on', async (t) => {
  t.equal(templateOf("map44013['keyB-44013'] = param  # BenchmarkTest00012"), "map#['keyB-#'] = param  # BenchmarkTest#");
  t.not(templateOf('num = 86'), templateOf('num = 106'));
});

t.test('combinations scored by the engine: labels from the copy, class by class; a propagator that never reads param is left out', async (t) => {
  await initPython();
  const cases: RecombineCase[] = [
    { name: 'A', category: 'cmdi', real: true, code: handler(ARGS, '\t\tbar = param', SHELL) },
    { name: 'B', category: 'cmdi', real: true, code: handler(HEADERS, "\t\tbar = f'{param}'", '\t\tsubprocess.run(bar, shell=True)') },
    // safe by its propagator: behind a tainting source and a sink real cases have
    { name: 'C', category: 'cmdi', real: false, code: handler(ARGS, '\t\tbar = shlex.quote(param)', SHELL) },
    // safe by its sink: no real case has it
    { name: 'D', category: 'cmdi', real: false, code: handler(ARGS, '\t\tbar = param', "\t\tsubprocess.run(['ls', bar])") },
    // labelled real, but the propagator never reads the request: the label is not the propagator's
    { name: 'E', category: 'cmdi', real: true, code: handler(ARGS, "\t\tbar = 'docs'", SHELL) },
    // safe by its source: the route's own path segment, with a propagator and a sink real cases have
    { name: 'F', category: 'cmdi', real: false, code: handler("\t\tparam = request.path.split('/')[1]", '\t\tbar = param', SHELL) },
  ];
  const built: string[] = [];
  const rows = await recombine(cases, async (code, category) => {
    built.push(code);
    return scoreCase((await verify({ code, language: 'python' })) as unknown as CaseVerdict, category).byCwe;
  });
  const row = rows.get('cmdi');
  // 2 sources × 3 labelled propagators × 2 vulnerable sinks, 2 sources × 2 tainting propagators × 1 safe
  // sink, and the safe source × 2 tainting propagators × 2 vulnerable sinks
  t.same(row && { tp: row.tp, fn: row.fn, fp: row.fp, tn: row.tn, undecided: row.undecided, leftOut: row.leftOut }, { tp: 8, fn: 0, fp: 0, tn: 12, undecided: 0, leftOut: 1 });
  t.equal(built.length, 20);
  t.ok(built.some((c) => c.includes("request.path.split('/')[1]") && c.includes("bar = f'{param}'")), 'the safe source meets the other propagator');
  t.notOk(built.some((c) => c.includes("bar = 'docs'")), 'the blind propagator is in no combination');
  t.ok(built.some((c) => c.includes("headers = request.headers.getlist('p')") && c.includes('shlex.quote(param)')), "a source meets another case's propagator");

  // a verdict that flags everything shows as false positives, one that flags nothing as misses
  const all = (await recombine(cases, async () => true)).get('cmdi');
  t.same(all && [all.tp, all.fp], [8, 12]);
  t.ok(all?.misses.some((m) => m.startsWith('FP cmdi: source of A, propagator of C')), 'a miss names the cases whose parts were joined');
  const none = (await recombine(cases, async () => false)).get('cmdi');
  t.same(none && [none.fn, none.tn], [8, 12]);
  // flagged only as undecided (a callee outside the file): counted among the false positives, and apart
  const undecided = (await recombine(cases, async () => 'undecided')).get('cmdi');
  t.same(undecided && [undecided.tp, undecided.fp, undecided.undecided, undecided.misses.filter((m) => m.startsWith('FP')).length], [8, 12, 12, 0]);
});
