import t from 'tap';
import { escapeXml, plotSvg, type PlotMeta, type PlotRow } from '../../../bench/plot-svg.js';
import { findAll, parseXml, textOf, type XmlElement } from '../../helpers/xml.js';

/**
 * bench/plot-svg.ts: the SVG is well-formed XML whatever the rows hold, has one line per target in
 * each panel with its points in concurrency order, and shows hostile names as text, not markup.
 */
const HOSTILE = 'evil</text><script>alert("x")</script>&amp;\'';
const meta: PlotMeta = { at: '2026-12-02T03:42:10.000Z', commit: '1aa9dd9', machine: { hostname: 'node-svc', cores: 2, node: 'v22.23.3', cpu: 'Some CPU @ 2.0GHz' } };

function rows(): PlotRow[] {
  const r: PlotRow[] = [];
  for (const c of [128, 1, 32, 8]) {
    r.push({ target: 'raw_node_http', concurrency: c, rps: 10_000 + c * 100, p99_ms: 0.5 + c / 50 });
    r.push({ target: 'verify_math', concurrency: c, rps: 800 + c * 10, p99_ms: c === 32 ? NaN : 2 + c });
    // a missing level: no row at c=8
    if (c !== 8) r.push({ target: HOSTILE, concurrency: c, rps: c === 128 ? 0 : 500 + c, p99_ms: 3 + c });
  }
  r.push({ target: 'a2a_intercept', concurrency: 50, rps: 7000, p99_ms: 12.4 });
  return r;
}

const panels = (svg: XmlElement) => findAll(svg, 'g').filter((g) => g.attrs.class === 'panel');
const points = (line: XmlElement) => (line.attrs.points ? line.attrs.points.split(' ').map((p) => p.split(',').map(Number)) : []);

t.test('the well-formedness check itself refuses broken XML', async (t) => {
  for (const bad of ['<a><b></a>', '<a x="1" x="2"/>', '<a>1 < 2</a>', '<a>&nope;</a>', '<a>fish & chips</a>', '<a/><b/>', '<a x=1/>', '<a>\u0001</a>', '<a>&#0;</a>', '<a><?xml version="1.0"?></a>']) {
    t.throws(() => parseXml(bad), bad);
  }
  t.equal(textOf(parseXml('<?xml version="1.0" encoding="UTF-8"?><a t="&lt;&#x41;">x &amp; <!-- c --><b>y</b></a>')), 'x & y');
});

t.test('one line per target in each panel, points left to right, missing values left out', async (t) => {
  const svg = parseXml(plotSvg(rows(), meta));
  t.equal(svg.name, 'svg');
  t.equal(svg.attrs.xmlns, 'http://www.w3.org/2000/svg');
  const ps = panels(svg);
  t.same(ps.map((p) => p.attrs['data-panel']), ['rps', 'p99']);
  for (const p of ps) {
    const lines = findAll(p, 'polyline');
    t.same(lines.map((l) => l.attrs['data-target']), ['raw_node_http', 'verify_math', HOSTILE, 'a2a_intercept'], `${p.attrs['data-panel']}: first-seen order, the name decoded back intact`);
    for (const l of lines) {
      const xs = points(l).map(([x]) => x);
      t.same(xs, [...xs].sort((a, b) => a - b), `${l.attrs['data-target']}: x increases along the line`);
      for (const [x, y] of points(l)) t.ok(Number.isFinite(x) && Number.isFinite(y), 'no NaN coordinate');
    }
    const count = (target: string) => points(lines.find((l) => l.attrs['data-target'] === target)!).length;
    t.equal(count('raw_node_http'), 4);
    t.equal(count('a2a_intercept'), 1, 'a single level still gets its line (and a marker)');
    if (p.attrs['data-panel'] === 'rps') {
      t.equal(count(HOSTILE), 2, 'c=8 missing, c=128 zero rps: not on the log axis');
      t.equal(count('verify_math'), 4);
    } else {
      t.equal(count(HOSTILE), 3);
      t.equal(count('verify_math'), 3, 'NaN p99 at c=32 left out');
    }
  }
  const rps = findAll(ps[0], 'polyline').find((l) => l.attrs['data-target'] === 'raw_node_http')!;
  const ys = points(rps).map(([, y]) => y);
  t.same(ys, [...ys].sort((a, b) => b - a), 'a rising rps is drawn rising (SVG y grows downwards)');
  const text = findAll(svg, 'text').map(textOf).join('\n');
  t.match(text, /not drawn.*c=128 rps 0/s, 'the zero rps is named under the chart');
  t.match(text, /verify_math c=32 ms p99 NaN/, 'the NaN p99 is named under the chart');
});

t.test('labels: hostile names are text, axes have ticks and labels, the title names run and machine', async (t) => {
  const src = plotSvg(rows(), meta);
  t.notMatch(src, /<script/i, 'no element made from a target name');
  t.equal(findAll(parseXml(src), 'script').length, 0);
  const svg = parseXml(src);
  const texts = findAll(svg, 'text').map(textOf);
  t.ok(texts.some((s) => s.startsWith(`${HOSTILE.slice(0, 35)}… (`)), 'the legend shows the name as written (cut to its column)');
  t.match(texts[0], /2026-12-02 03:42 UTC/);
  t.match(texts[0], /1aa9dd9/);
  t.match(texts[1], /node-svc: 2 cores \(Some CPU @ 2\.0GHz\), Node v22\.23\.3/);
  const of = (g: XmlElement, cls: string) => findAll(g, 'text').filter((e) => e.attrs.class === cls).map(textOf);
  const [rpsPanel, p99Panel] = panels(svg);
  for (const g of [rpsPanel, p99Panel]) {
    t.same(of(g, 'tick x'), ['1', '8', '32', '50', '128'], `${g.attrs['data-panel']}: a tick at each level, in order`);
    t.match(of(g, 'axis x'), [/^concurrency/]);
    t.equal(of(g, 'axis y').length, 1);
  }
  t.same(of(rpsPanel, 'axis y'), ['requests per second']);
  t.same(of(p99Panel, 'axis y'), ['p99 latency (ms)']);
  // rps 500-22,800: the 1-2-5 steps from 500 to 50k
  t.same(of(rpsPanel, 'tick y'), ['500', '1k', '2k', '5k', '10k', '20k', '50k']);
  // p99 0.52-131 ms
  t.same(of(p99Panel, 'tick y'), ['0.5', '1', '2', '5', '10', '20', '50', '100', '200']);
  t.ok(texts.some((s) => /^raw_node_http \(baseline: 13,200 rps at c=32\)$/.test(s)), 'the raw baseline in the legend');
  t.ok(texts.some((s) => /^verify_math \(0\.085× raw at c=32\)$/.test(s)), 'each target its ratio to raw');
});

t.test('escaping covers what XML cannot hold at all', async (t) => {
  t.equal(escapeXml('<&"\'>'), '&lt;&amp;&quot;&apos;&gt;');
  const odd = 'a\u0000b\u001bc\ud800d\uFFFEe😀';
  const svg = plotSvg([{ target: odd, concurrency: 1, rps: 1, p99_ms: 1 }], { ...meta, commit: 'x\u0007<y>', machine: { ...meta.machine, hostname: '"host"&' } });
  const doc = parseXml(svg);
  t.equal(findAll(doc, 'polyline')[0].attrs['data-target'], 'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe😀', 'forbidden code points replaced, a real pair kept');
  t.match(textOf(findAll(doc, 'text')[0]), /commit x\uFFFD<y>/);
  t.match(textOf(findAll(doc, 'text')[1]), /^"host"&:/);
  t.ok(findAll(doc, 'text').map(textOf).some((s) => /^no raw_node_http rows in these results/.test(s)), 'a run with no raw rows is drawn, and says it has no ratio');
  const oddDate = textOf(findAll(parseXml(plotSvg([], { ...meta, at: '<not a date>'.repeat(100) })), 'text')[0]);
  t.match(oddDate, /^proofgate HTTP bench, <not a date><not a date><not a date>.{0,4}…, commit 1aa9dd9$/, 'a date that does not parse is shown as written, cut short');
  const long = '😀'.repeat(100);
  const legend = findAll(parseXml(plotSvg([{ target: long, concurrency: 1, rps: 1, p99_ms: 1 }], meta)), 'text').map(textOf).find((s) => s.startsWith('😀'))!;
  t.ok(Array.from(legend).length <= 36 && legend.endsWith('…'), 'a long name is cut by code point');
});

t.test('rows that cannot be drawn honestly are refused', async (t) => {
  t.throws(() => plotSvg([{ target: 'a', concurrency: 8, rps: 1, p99_ms: 1 }, { target: 'a', concurrency: 8, rps: 2, p99_ms: 1 }], meta), /two rows at c=8/);
  for (const c of [0, -1, NaN, Infinity]) t.throws(() => plotSvg([{ target: 'a', concurrency: c, rps: 1, p99_ms: 1 }], meta), /concurrency/);
  const empty = parseXml(plotSvg([], meta));
  t.equal(findAll(empty, 'polyline').length, 0, 'no rows: axes only, still well-formed');
});
