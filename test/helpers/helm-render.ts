import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';

/**
 * A renderer for the subset of Helm's template language deploy/helm/proofgate uses, for the test suite on
 * machines without the helm binary: `{{ }}` with `-` trimming, comments, `if`/`else if`/`else`, `range`,
 * `with`, `define`/`include`, pipelines and parenthesised calls, `.Values…`, `$`, and the functions include,
 * toYaml, toJson, nindent, indent, quote, default, eq, ne, not, and, or, fail. Anything else throws, so the
 * chart cannot drift beyond what this checks without the test saying so. When helm is installed the test
 * also runs `helm template` itself.
 */
type Node =
  | { k: 'text'; s: string }
  | { k: 'out'; p: string }
  | { k: 'if' | 'with'; branches: { p: string | null; body: Node[] }[] }
  | { k: 'range'; p: string; body: Node[] };

interface Scope {
  dot: unknown;
  root: unknown;
}

const ACTION = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g;

function tokenize(src: string): { text?: string; act?: string }[] {
  const out: { text?: string; act?: string }[] = [];
  let last = 0;
  let trimNext = false;
  for (const m of src.matchAll(ACTION)) {
    let text = src.slice(last, m.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (m[1]) text = text.replace(/\s+$/, '');
    out.push({ text });
    if (!/^\/\*[\s\S]*\*\/$/.test(m[2])) out.push({ act: m[2] });
    trimNext = m[3] === '-';
    last = m.index! + m[0].length;
  }
  out.push({ text: trimNext ? src.slice(last).replace(/^\s+/, '') : src.slice(last) });
  return out;
}

export class Templates {
  private defines = new Map<string, Node[]>();

  add(src: string): Node[] {
    const toks = tokenize(src);
    let i = 0;
    const block = (): { body: Node[]; end: string } => {
      const body: Node[] = [];
      while (i < toks.length) {
        const t = toks[i++];
        if (t.text !== undefined) {
          if (t.text) body.push({ k: 'text', s: t.text });
          continue;
        }
        const a = t.act!;
        if (a === 'end' || a === 'else' || a.startsWith('else if ')) return { body, end: a };
        const kw = /^(if|with|range|define)\s+([\s\S]+)$/.exec(a);
        if (!kw) {
          body.push({ k: 'out', p: a });
          continue;
        }
        if (kw[1] === 'define') {
          const name = JSON.parse(kw[2]) as string;
          const inner = block();
          if (inner.end !== 'end') throw new Error(`define ${name}: ${inner.end} without if`);
          this.defines.set(name, inner.body);
          continue;
        }
        if (kw[1] === 'range') {
          const inner = block();
          if (inner.end !== 'end') throw new Error('range … else is not supported');
          body.push({ k: 'range', p: kw[2], body: inner.body });
          continue;
        }
        const branches: { p: string | null; body: Node[] }[] = [];
        let p: string | null = kw[2];
        for (;;) {
          const inner = block();
          branches.push({ p, body: inner.body });
          if (inner.end === 'end') break;
          if (inner.end === '') throw new Error(`${kw[1]} without end`);
          p = inner.end === 'else' ? null : inner.end.slice('else if '.length);
        }
        body.push({ k: kw[1] as 'if' | 'with', branches });
      }
      return { body, end: '' };
    };
    const top = block();
    if (top.end) throw new Error(`unexpected {{ ${top.end} }}`);
    return top.body;
  }

  render(nodes: Node[], scope: Scope): string {
    let out = '';
    for (const n of nodes) {
      if (n.k === 'text') out += n.s;
      else if (n.k === 'out') out += print(this.pipeline(n.p, scope));
      else if (n.k === 'range') {
        const v = this.pipeline(n.p, scope);
        const items = Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v) : [];
        for (const item of items) out += this.render(n.body, { ...scope, dot: item });
      } else {
        for (const b of n.branches) {
          const v = b.p === null ? true : this.pipeline(b.p, scope);
          if (!truthy(v)) continue;
          out += this.render(b.body, n.k === 'with' && b.p !== null ? { ...scope, dot: v } : scope);
          break;
        }
      }
    }
    return out;
  }

  include(name: string, ctx: unknown): string {
    const body = this.defines.get(name);
    if (!body) throw new Error(`no template named ${name}`);
    return this.render(body, { dot: ctx, root: ctx });
  }

  private pipeline(src: string, scope: Scope): unknown {
    const toks = [...src.matchAll(/"(?:[^"\\]|\\.)*"|\(|\)|\||[^\s()|]+/g)].map((m) => m[0]);
    let i = 0;
    const operand = (): unknown => {
      const t = toks[i++];
      if (t === '(') {
        const v = pipe();
        if (toks[i++] !== ')') throw new Error(`unbalanced ( in ${src}`);
        return v;
      }
      if (t.startsWith('"')) return JSON.parse(t);
      if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
      if (t === 'true' || t === 'false') return t === 'true';
      if (t === '.' || t === '$') return t === '.' ? scope.dot : scope.root;
      if (t.startsWith('.') || t.startsWith('$.')) return field(t.startsWith('$') ? scope.root : scope.dot, t.replace(/^\$/, '').slice(1).split('.'), src);
      throw new Error(`unsupported operand ${t} in ${src}`);
    };
    const command = (piped: unknown[]): unknown => {
      const head = toks[i];
      if (/^[a-zA-Z]\w*$/.test(head) && head !== 'true' && head !== 'false') {
        i++;
        const args: unknown[] = [];
        while (i < toks.length && toks[i] !== '|' && toks[i] !== ')') args.push(operand());
        return this.call(head, [...args, ...piped], src);
      }
      if (piped.length) throw new Error(`cannot pipe into a value in ${src}`);
      return operand();
    };
    const pipe = (): unknown => {
      let v = command([]);
      while (toks[i] === '|') {
        i++;
        v = command([v]);
      }
      return v;
    };
    const v = pipe();
    if (i !== toks.length) throw new Error(`trailing tokens in ${src}`);
    return v;
  }

  private call(fn: string, a: unknown[], src: string): unknown {
    switch (fn) {
      case 'include': return this.include(a[0] as string, a[1]);
      case 'toYaml': return a[0] === undefined || a[0] === null ? 'null' : stringify(a[0]).replace(/\n$/, '');
      case 'toJson': return JSON.stringify(a[0] ?? null);
      case 'nindent': return '\n' + indent(a[0] as number, print(a[1]));
      case 'indent': return indent(a[0] as number, print(a[1]));
      case 'quote': return JSON.stringify(print(a[0]));
      case 'default': return truthy(a[1]) ? a[1] : a[0];
      case 'eq': return a[0] === a[1];
      case 'ne': return a[0] !== a[1];
      case 'not': return !truthy(a[0]);
      case 'and': return a.find((x) => !truthy(x)) ?? a[a.length - 1];
      case 'or': return a.find((x) => truthy(x)) ?? a[a.length - 1];
      case 'fail': throw new Error(`fail: ${print(a[0])}`);
      default: throw new Error(`unsupported function ${fn} in ${src}`);
    }
  }
}

function field(v: unknown, path: string[], src: string): unknown {
  for (const p of path) {
    if (v === undefined || v === null) throw new Error(`nil pointer evaluating ${p} in ${src}`);
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

const truthy = (v: unknown) =>
  !(v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0));
const print = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const indent = (n: number, s: string) => s.split('\n').map((l) => ' '.repeat(n) + l).join('\n');

/** values.yaml merged with overrides the way Helm does: maps deeply, anything else replaced */
function merge(base: unknown, over: unknown): unknown {
  if (!over || typeof over !== 'object' || Array.isArray(over) || !base || typeof base !== 'object' || Array.isArray(base)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) out[k] = merge(out[k], v);
  return out;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
/** Renders the chart at `dir` as `helm template RELEASE dir -f …` would, parsed as Kubernetes reads YAML (1.1). */
export function renderChart(dir: string, release: string, overrides: unknown[] = []): any[] {
  const chart = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8'));
  let values: unknown = parse(readFileSync(join(dir, 'values.yaml'), 'utf8'));
  for (const o of overrides) values = merge(values, o);
  const root = { Values: values, Release: { Name: release, Namespace: 'default', Service: 'Helm' }, Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion } };
  const t = new Templates();
  const files = readdirSync(join(dir, 'templates')).sort();
  const parsed = files.map((f) => ({ f, nodes: t.add(readFileSync(join(dir, 'templates', f), 'utf8')) }));
  const docs: any[] = [];
  for (const { f, nodes } of parsed) {
    if (f.startsWith('_') || !f.endsWith('.yaml')) continue;
    const text = t.render(nodes, { dot: root, root });
    for (const d of parseAllDocuments(text, { version: '1.1' })) {
      if (d.errors.length) throw new Error(`${f}: ${d.errors[0].message}\n${text}`);
      const js = d.toJS();
      if (js !== null && js !== undefined) docs.push(js);
    }
  }
  return docs;
}
