import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { verify } from '../../plugins/engines/code/engine.js';
import { initPython } from '../../plugins/engines/code/python/parser.js';
import { setPythonFlow } from '../../plugins/engines/code/python/analyze.js';

/**
 * `npm run bench -- code-owasp --dir <path>`: OWASP's Benchmark for Python (or any copy laid out as
 * `expected.csv` + `testcode/<name>.py`) through the code engine in process, scored as the
 * benchmark's README says: a case is flagged when admission is not ADMIT; per category TPR, FPR and
 * Youden's J = TPR − FPR. The cases are read from the path given, never from the repository
 * (the benchmark is GPL-3 and is not copied here).
 */
interface Case {
  name: string;
  category: string;
  real: boolean;
}

function readExpected(dir: string): Case[] {
  const out: Case[] = [];
  for (const line of readFileSync(join(dir, 'expected.csv'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [name, category, real] = line.split(',').map((s) => s.trim());
    if (name && category) out.push({ name, category, real: real === 'true' });
  }
  return out;
}

interface Row {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

export async function runOwaspBench(args: string[]): Promise<void> {
  const at = args.indexOf('--dir');
  const dir = at >= 0 ? args[at + 1] : process.env.OWASP_BENCHMARK_PYTHON_DIR;
  if (!dir) throw new Error('code-owasp needs --dir <path to the benchmark copy> (expected.csv and testcode/)');
  const verbose = args.includes('--verbose');
  await initPython();
  const files = new Set(readdirSync(join(dir, 'testcode')));
  const cases = readExpected(dir).filter((c) => files.has(`${c.name}.py`));
  const sources = cases.map((c) => readFileSync(join(dir, 'testcode', `${c.name}.py`), 'utf8'));
  const rows = new Map<string, Row>();
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const s = performance.now();
    const v = (await verify({ code: sources[i], language: 'python' })) as unknown as { admission?: string; developer_fields?: Record<string, unknown> };
    times.push(performance.now() - s);
    const flagged = v.admission !== 'ADMIT';
    const r = rows.get(c.category) ?? { tp: 0, fn: 0, fp: 0, tn: 0 };
    if (c.real) flagged ? r.tp++ : r.fn++;
    else flagged ? r.fp++ : r.tn++;
    rows.set(c.category, r);
    if (verbose && flagged !== c.real) {
      const vulns = (v.developer_fields?.vulnerabilities as { rule_id: string; line: number }[] | undefined) ?? [];
      console.log(`${c.real ? 'FN' : 'FP'} ${c.category} ${c.name} ${vulns.map((f) => `${f.rule_id}@${f.line}`).join(' ')}`);
    }
  }
  const elapsed = (performance.now() - t0) / 1000;
  const sorted = [...times].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  console.log('| category | real | false | TPR | FPR | Youden |');
  console.log('|---|---|---|---|---|---|');
  let sum = 0;
  for (const [cat, r] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    const tpr = r.tp + r.fn ? r.tp / (r.tp + r.fn) : 0;
    const fpr = r.fp + r.tn ? r.fp / (r.fp + r.tn) : 0;
    sum += tpr - fpr;
    console.log(`| ${cat} | ${r.tp + r.fn} | ${r.fp + r.tn} | ${tpr.toFixed(2)} | ${fpr.toFixed(2)} | ${(tpr - fpr).toFixed(2)} |`);
  }
  console.log(`mean Youden over ${rows.size} categories: ${(sum / Math.max(1, rows.size)).toFixed(2)}`);
  console.log(`${cases.length} files in ${elapsed.toFixed(2)} s: ${Math.round(cases.length / elapsed)} files/s, p99 ${p99.toFixed(2)} ms`);
  // the machine's load moves absolute numbers: the cost of the flow analysis is the engine with and
  // without it in the same run, alternated so both see the same load
  if (args.includes('--compare')) {
    const runs: Record<'with' | 'without', number[]> = { with: [], without: [] };
    for (let pass = 0; pass < 4; pass++) {
      const mode = pass % 2 ? 'with' : 'without';
      const was = setPythonFlow(mode === 'with');
      for (const src of sources) {
        const s = performance.now();
        await verify({ code: src, language: 'python' });
        runs[mode].push(performance.now() - s);
      }
      setPythonFlow(was);
    }
    for (const mode of ['without', 'with'] as const) {
      const ts = runs[mode];
      const total = ts.reduce((a, b) => a + b, 0) / 1000;
      const sortedTs = [...ts].sort((a, b) => a - b);
      console.log(`flow analysis ${mode}: ${Math.round(ts.length / total)} files/s, p50 ${sortedTs[Math.floor(ts.length / 2)].toFixed(2)} ms, p99 ${sortedTs[Math.floor(ts.length * 0.99)].toFixed(2)} ms`);
    }
  }
}
