/**
 * The HTTP bench's rows as one SVG: rps and p99 against concurrency, one line per target, both
 * axes log-scaled (raw node:http sits an order of magnitude above the verify routes, and p99 spans
 * 2 ms to hundreds: on linear axes the engines' lines sat on top of each other). Pure: rows and the
 * run's facts in, SVG text out; hand-written so the bench needs no charting dependency.
 */

export interface PlotRow {
  target: string;
  concurrency: number;
  /** null (JSON's spelling of NaN) or a non-positive value: listed under the chart, not drawn */
  rps: number | null;
  p99_ms: number | null;
  /** share of the replies that were 503 refusals (admission): counted in rps and p99, so such a point is marked */
  refused_share?: number | null;
}

export interface PlotMeta {
  /** ISO time of the run */
  at: string;
  commit: string;
  machine: { hostname: string; cores: number | null; node: string; cpu?: string };
  /** the baseline every other target is divided by (default raw_node_http) */
  raw?: string;
}

export const RAW_TARGET = 'raw_node_http';

const W = 1000;
const PANEL_TOP = 96;
const PANEL_H = 300;
const PANELS = [
  { key: 'rps', title: 'throughput (requests/s, log scale)', x0: 80, x1: 470 },
  { key: 'p99', title: 'p99 latency (ms, log scale)', x0: 580, x1: 970 },
] as const;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];
// a legend entry with its ratio note fits its 420 px column
const LABEL_MAX = 36;

/**
 * Text for an XML text node or attribute. A target name comes from a results file anyone can edit:
 * markup characters are escaped, and code points XML 1.0 forbids even as references (controls, lone
 * surrogates, U+FFFE/FFFF) become U+FFFD, so no label can end the document's well-formedness.
 */
export function escapeXml(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** cut by code point, so a surrogate pair is never split into two lone halves */
function clip(s: string, max = LABEL_MAX): string {
  const cps = Array.from(s);
  return cps.length > max ? `${cps.slice(0, max - 1).join('')}…` : s;
}

const thousands = (n: number) => {
  const [int, frac] = String(Math.round(n * 100) / 100).split('.');
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (frac ? `.${frac}` : '');
};

/** tick labels: 2k rather than 2,000, so the rps axis keeps a narrow margin */
function short(n: number): string {
  if (n >= 1e6) return `${+(n / 1e6).toPrecision(3)}M`;
  if (n >= 1e3) return `${+(n / 1e3).toPrecision(3)}k`;
  return String(+n.toPrecision(3));
}

const usable = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

interface Series {
  target: string;
  color: string;
  dash: string;
  points: PlotRow[];
}

/** the targets in first-seen order (the bench writes raw first), each with its rows by concurrency */
function series(rows: readonly PlotRow[], raw: string): Series[] {
  const by = new Map<string, PlotRow[]>();
  for (const r of rows) {
    if (typeof r.target !== 'string') throw new Error('a row without a target name');
    if (!Number.isFinite(r.concurrency) || r.concurrency <= 0) throw new Error(`${clip(r.target)}: concurrency ${r.concurrency} is not a positive number`);
    const list = by.get(r.target) ?? [];
    // two rows for one point would draw a zigzag nobody measured
    if (list.some((p) => p.concurrency === r.concurrency)) throw new Error(`${clip(r.target)}: two rows at c=${r.concurrency}`);
    list.push(r);
    by.set(r.target, list);
  }
  let i = 0;
  return [...by].map(([target, points]) => {
    const isRaw = target === raw;
    const color = isRaw ? '#000000' : COLORS[i % COLORS.length];
    // past the palette's length the colours repeat: a dash pattern tells those lines apart
    const dash = isRaw ? '7 4' : i >= COLORS.length ? '2 3' : '';
    if (!isRaw) i++;
    return { target, color, dash, points: [...points].sort((a, b) => a.concurrency - b.concurrency) };
  });
}

/** log10 scale of [lo, hi] onto [p0, p1] */
function logScale(lo: number, hi: number, p0: number, p1: number) {
  const a = Math.log10(lo);
  const b = Math.log10(hi);
  return (v: number) => p0 + ((Math.log10(v) - a) / (b - a || 1)) * (p1 - p0);
}

/** the 1-2-5 steps (…, 50, 100, 200, 500, …) next below and next above v */
function niceBelow(v: number): number {
  const d = 10 ** Math.floor(Math.log10(v));
  return +([5, 2, 1].map((s) => s * d).find((x) => x <= v * 1.0001) ?? d).toPrecision(3);
}
function niceAbove(v: number): number {
  const d = 10 ** Math.floor(Math.log10(v));
  return +([1, 2, 5, 10].map((s) => s * d).find((x) => x >= v * 0.9999) ?? 10 * d).toPrecision(3);
}

/** the 1-2-5 steps around the values (whole decades left a third of a panel empty); only decades when there are many */
function yAxis(values: number[]): { lo: number; hi: number; ticks: number[] } {
  if (!values.length) return { lo: 1, hi: 10, ticks: [1, 2, 5, 10] };
  const min = Math.min(...values);
  const max = Math.max(...values);
  let lo = niceBelow(min);
  let hi = niceAbove(max);
  if (hi <= lo) [lo, hi] = [niceBelow(min * 0.99), niceAbove(max * 1.01)];
  const steps = Math.log10(hi / lo) > 4 ? [1] : [1, 2, 5];
  const ticks: number[] = [];
  for (let d = 10 ** Math.floor(Math.log10(lo)); d <= hi * 1.0001; d *= 10) {
    for (const s of steps) {
      const v = +(d * s).toPrecision(3);
      if (v >= lo * 0.9999 && v <= hi * 1.0001) ticks.push(v);
    }
  }
  return { lo, hi, ticks };
}

const refusedShare = (p: PlotRow) => (typeof p.refused_share === 'number' && p.refused_share > 0 && p.refused_share <= 1 ? p.refused_share : 0);
const pct = (share: number) => `${+(share * 100).toPrecision(3)}%`;

function fmtAt(at: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? clip(at, 40) : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** each target's rps over raw's at one level: c=32 (the README's column) when both ran it, else the highest level both ran */
function ratios(all: Series[], raw: string): { level: number | null; byTarget: Map<string, number> } {
  const base = all.find((s) => s.target === raw);
  const byTarget = new Map<string, number>();
  if (!base) return { level: null, byTarget };
  const rawAt = new Map(base.points.filter((p) => usable(p.rps)).map((p) => [p.concurrency, p.rps as number]));
  const levels = [...rawAt.keys()].sort((a, b) => a - b);
  const level = rawAt.has(32) ? 32 : (levels[levels.length - 1] ?? null);
  if (level === null) return { level, byTarget };
  for (const s of all) {
    const p = s.points.find((q) => q.concurrency === level);
    if (p && typeof p.rps === 'number' && Number.isFinite(p.rps)) byTarget.set(s.target, p.rps / rawAt.get(level)!);
  }
  return { level, byTarget };
}

export function plotSvg(rows: readonly PlotRow[], meta: PlotMeta): string {
  const raw = meta.raw ?? RAW_TARGET;
  const all = series(rows, raw);
  const levels = [...new Set(all.flatMap((s) => s.points.map((p) => p.concurrency)))].sort((a, b) => a - b);
  const cLo = levels.length ? levels[0] : 1;
  const cHi = levels.length ? levels[levels.length - 1] : 10;
  // a quarter-decade either side, so the first and last points are not on the frame; one level alone gets a decade
  const pad = cHi > cLo ? 10 ** (Math.log10(cHi / cLo) / 16) : Math.sqrt(10);
  const { level, byTarget } = ratios(all, raw);
  const skipped: string[] = [];
  const out: string[] = [];
  const text = (x: number, y: number, s: string, attrs = '') => out.push(`<text x="${x.toFixed(1)}" y="${y.toFixed(1)}"${attrs}>${escapeXml(s)}</text>`);

  for (const panel of PANELS) {
    const field = panel.key === 'rps' ? 'rps' : 'p99_ms';
    const unit = panel.key === 'rps' ? 'rps' : 'ms p99';
    const values = all.flatMap((s) => s.points.map((p) => p[field])).filter(usable);
    const y = yAxis(values);
    const bottom = PANEL_TOP + PANEL_H;
    const sx = logScale(cLo / pad, cHi * pad, panel.x0, panel.x1);
    const sy = logScale(y.lo, y.hi, bottom, PANEL_TOP);
    out.push(`<g class="panel" data-panel="${panel.key}">`);
    text((panel.x0 + panel.x1) / 2, PANEL_TOP - 12, panel.title, ' text-anchor="middle" font-weight="bold"');
    out.push(`<rect x="${panel.x0}" y="${PANEL_TOP}" width="${panel.x1 - panel.x0}" height="${PANEL_H}" fill="none" stroke="#888"/>`);
    for (const t of y.ticks) {
      const py = sy(t).toFixed(1);
      out.push(`<line x1="${panel.x0}" y1="${py}" x2="${panel.x1}" y2="${py}" stroke="#e4e4e4"/>`);
      out.push(`<line x1="${panel.x0 - 5}" y1="${py}" x2="${panel.x0}" y2="${py}" stroke="#444"/>`);
      text(panel.x0 - 8, +py + 4, short(t), ' text-anchor="end" class="tick y"');
    }
    for (const c of levels) {
      const px = sx(c).toFixed(1);
      out.push(`<line x1="${px}" y1="${PANEL_TOP}" x2="${px}" y2="${bottom}" stroke="#e4e4e4"/>`);
      out.push(`<line x1="${px}" y1="${bottom}" x2="${px}" y2="${bottom + 5}" stroke="#444"/>`);
      text(+px, bottom + 18, String(c), ' text-anchor="middle" class="tick x"');
    }
    text((panel.x0 + panel.x1) / 2, bottom + 38, 'concurrency (clients in flight, log scale)', ' text-anchor="middle" class="axis x"');
    const ly = PANEL_TOP + PANEL_H / 2;
    text(panel.x0 - 50, ly, panel.key === 'rps' ? 'requests per second' : 'p99 latency (ms)', ` text-anchor="middle" class="axis y" transform="rotate(-90 ${panel.x0 - 50} ${ly})"`);
    for (const s of all) {
      const drawn = s.points.filter((p) => usable(p[field]));
      for (const p of s.points) if (!usable(p[field])) skipped.push(`${clip(s.target, 32)} c=${p.concurrency} ${unit} ${p[field] ?? 'NaN'}`);
      const pts = drawn.map((p) => `${sx(p.concurrency).toFixed(1)},${sy(p[field] as number).toFixed(1)}`);
      const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
      out.push(`<polyline class="series" data-target="${escapeXml(s.target)}" points="${pts.join(' ')}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
      drawn.forEach((p, k) => {
        const [cx, cy] = pts[k].split(',');
        const v = p[field] as number;
        const refused = refusedShare(p);
        const fill = refused ? `#ffffff" stroke="${s.color}" stroke-width="1.5` : s.color;
        const tip = `${s.target} c=${p.concurrency}: ${thousands(v)} ${unit}${refused ? `, ${pct(refused)} refused (503)` : ''}`;
        out.push(`<circle cx="${cx}" cy="${cy}" r="${refused ? 4 : 3}" fill="${fill}"><title>${escapeXml(tip)}</title></circle>`);
      });
    }
    out.push('</g>');
  }

  // the legend: two columns under the panels, read down the first, each entry with its share of raw node:http
  const legendTop = PANEL_TOP + PANEL_H + 66;
  const perColumn = Math.ceil(all.length / 2);
  all.forEach((s, k) => {
    const x = k < perColumn ? 80 : 580;
    const ly = legendTop + (k % perColumn) * 20;
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
    out.push(`<line class="legend" x1="${x}" y1="${ly - 4}" x2="${x + 28}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"${dash}/>`);
    const r = byTarget.get(s.target);
    const rawPoint = s.target === raw ? s.points.find((p) => p.concurrency === level) : undefined;
    const note = s.target === raw ? (rawPoint && usable(rawPoint.rps) ? ` (baseline: ${thousands(rawPoint.rps)} rps at c=${level})` : ' (baseline)') : r === undefined ? '' : ` (${r.toFixed(3)}× raw at c=${level})`;
    text(x + 36, ly, clip(s.target) + note, ' class="legend-label"');
  });
  let y = legendTop + perColumn * 20 + 8;
  const refusals = all.flatMap((s) => s.points.filter(refusedShare).map((p) => `${clip(s.target, 32)} c=${p.concurrency} ${pct(refusedShare(p))}`));
  if (refusals.length) {
    // a refusal is answered fast: without the mark, a line of mostly 503s reads as throughput
    text(80, y, `hollow markers: 503 refusals (admission) counted in rps and p99: ${refusals.slice(0, 12).join('; ')}${refusals.length > 12 ? '; …' : ''}`, ' class="note"');
    y += 16;
  }
  if (!all.some((s) => s.target === raw)) {
    text(80, y, `no ${raw} rows in these results: no ratio to raw node:http`, ' class="note"');
    y += 16;
  }
  if (skipped.length) {
    // a zero or missing value has no place on a log axis; it is named here rather than dropped silently
    const line = `not drawn (zero, negative or missing): ${skipped.slice(0, 12).join('; ')}${skipped.length > 12 ? `; and ${skipped.length - 12} more` : ''}`;
    for (let i = 0; i < line.length; i += 150) {
      text(80, y, line.slice(i, i + 150), ' class="note"');
      y += 16;
    }
  }
  const height = Math.ceil(y + 10);
  const m = meta.machine;
  const title = `proofgate HTTP bench, ${fmtAt(meta.at)}, commit ${clip(meta.commit, 40)}`;
  const machine = `${clip(m.hostname, 40)}: ${m.cores ?? '?'} cores${m.cpu ? ` (${clip(m.cpu, 48)})` : ''}, Node ${clip(m.node, 20)}`;
  const ratioNote = level === null ? '' : `; ×raw = a target's rps over raw node:http's at the same concurrency in this run`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="12">`,
    '<style>.tick{font-size:11px;fill:#333}.note{font-size:11px;fill:#555}</style>',
    `<rect width="${W}" height="${height}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="26" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${W / 2}" y="46" text-anchor="middle">${escapeXml(machine + ratioNote)}</text>`,
    ...out,
    '</svg>',
    '',
  ].join('\n');
}
