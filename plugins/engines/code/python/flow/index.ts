import type { PyNode } from '../parser.js';
import type { Resolver } from '../resolve.js';
import type { Finding, Severity } from '../../types.js';
import { FlowBudgetError } from './expr.js';
import { FlowInterp } from './interp.js';
import type { ModuleIndex } from './module-index.js';
import type { SinkNames } from './prefilter.js';
import { CWE, TITLE } from './tables.js';
import type { Cat, Flow } from './value.js';

/**
 * The value lattice and the class tables are language-neutral: the JavaScript/TypeScript flow
 * analysis (javascript/flow/) shares them, and takes them from here, not from this folder's files.
 */
export { type Cat, type Const, type Flow, type V, UNKNOWN, allFlow, carried, cleaned, join, konst, mix, sameShape, step, truthy, unknownOrigin } from './value.js';
export { ALL_CATS, CWE, TITLE, namedSanitiser } from './tables.js';

/** Presence rules of rules.ts that the flow analysis decides instead, by the class of sink they name. */
const DECIDED_BY_FLOW = new Map<string, Cat>([
  ['python.dangerous_call.eval', 'codeinj'], ['python.dangerous_call.exec', 'codeinj'], ['python.dangerous_call.compile', 'codeinj'],
  // a shell command the resolver folded to one text (since 1.14.0): admitted where the flow proves every visit of it constant too
  ['python.process.shell_injection', 'cmdi'], ['python.process.shell_exec', 'cmdi'], ['python.process.dynamic_program', 'cmdi'], ['python.deserialization.pickle', 'deserialization'], ['python.deserialization.yaml', 'deserialization'],
  ['python.sql_injection.string_built', 'sqli'],
]);
const SEVERITY: Partial<Record<Cat, Severity>> = { cmdi: 'CRITICAL', codeinj: 'CRITICAL', deserialization: 'CRITICAL' };

/**
 * Source-to-sink flows of one module as findings (rule `python.flow.<class>`, its CWE and the path
 * source line → steps → sink line), and the presence findings the flow proved harmless dropped:
 * a sink whose every visit saw only constants, sanitised or non-client data.
 */
export function flowFindings(root: PyNode, index: ModuleIndex, r: Resolver, presence: Finding[], entries: SinkNames | null = null): Finding[] {
  const interp = new FlowInterp(r, judgedByCallers(index), entries);
  try {
    interp.run(root, index);
  } catch (err) {
    if (!(err instanceof FlowBudgetError)) throw err;
    return [...presence, { type: 'flow_undecided', severity: 'HIGH', line: 1, column: 1, message: 'the flow analysis ran out of budget; no sink is proven safe', rule_id: 'python.flow.undecided' }];
  }
  const tainted = new Map<PyNode, Set<Cat>>();
  const undecided = new Map<PyNode, Map<Cat, Flow>>();
  const clear = new Map<PyNode, Set<Cat>>();
  const argsCarryData = new Set<PyNode>();
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const h of interp.hits) {
    if (h.flow || h.unconditional) {
      (tainted.get(h.node) ?? tainted.set(h.node, new Set()).get(h.node))?.add(h.cat);
      const key = `${h.cat}|${h.node.start}|${h.flow?.lines.join(',') ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const sinkLine = h.node.row + 1;
      const path = h.flow ? [...h.flow.lines.filter((l) => l !== sinkLine), sinkLine] : [sinkLine];
      const message = h.flow
        ? `untrusted ${h.flow.what} (line ${h.flow.lines[0]}) reaches ${TITLE[h.cat]} at line ${sinkLine} unsanitised (path: lines ${path.join(' → ')}) [CWE-${CWE[h.cat]}]`
        : `${h.unconditional} [CWE-${CWE[h.cat]}] (stands whatever the data)`;
      out.push({ type: h.cat, severity: SEVERITY[h.cat] ?? 'HIGH', line: sinkLine, column: h.node.col + 1, message, rule_id: `python.flow.${h.cat}`, cwe: CWE[h.cat], path });
    } else if (h.undecided) {
      const m = undecided.get(h.node) ?? undecided.set(h.node, new Map()).get(h.node);
      if (!m?.has(h.cat)) m?.set(h.cat, h.undecided);
    } else {
      if (h.argsCarryData) argsCarryData.add(h.node);
      (clear.get(h.node) ?? clear.set(h.node, new Set()).get(h.node))?.add(h.cat);
    }
  }
  // a presence finding goes only where every visit of its sink saw constants or sanitised data
  const provenSafe = (n: PyNode, cat: Cat): boolean => !!clear.get(n)?.has(cat) && !tainted.get(n)?.has(cat) && !undecided.get(n)?.has(cat);
  const kept: Finding[] = [];
  for (const f of presence) {
    const cat = DECIDED_BY_FLOW.get(f.rule_id);
    if (!cat) {
      kept.push(f);
      continue;
    }
    const sinks = [...new Set([...clear.keys(), ...undecided.keys()])].filter((n) => (clear.get(n)?.has(cat) || undecided.get(n)?.has(cat)) && within(n, f.line, f.column));
    // a program the presence rules could not name is proven harmless only when its arguments are
    // data-free too: what a named program does with data (an interpreter's `-c`) is not the flow's to judge
    if (f.rule_id === 'python.process.dynamic_program' && sinks.some((n) => argsCarryData.has(n))) {
      kept.push(f);
      continue;
    }
    // kept as LOW (admitted): the call is still there for policies that refuse it whatever it is given (the A2A guard)
    if (sinks.length && sinks.every((n) => provenSafe(n, cat))) {
      kept.push({ ...f, severity: 'LOW', message: `${f.message}; every dangerous argument is proven constant or sanitised (flow analysis), so it does not block` });
      continue;
    }
    const why = sinks.map((n) => undecided.get(n)?.get(cat)).find((u) => u);
    kept.push(why ? { ...f, message: `${f.message}; flow undecided: ${why.what} (line ${why.lines[0]}) reaches it, so it is not proven safe` } : f);
  }
  // an undecided sink no blocking finding already stands for is not admitted either (issue 40: fail closed)
  const covered = (n: PyNode, cat: Cat): boolean =>
    !!tainted.get(n)?.has(cat) || kept.some((f) => DECIDED_BY_FLOW.get(f.rule_id) === cat && f.severity !== 'LOW' && within(n, f.line, f.column));
  for (const [n, m] of undecided) {
    for (const [cat, why] of m) {
      if (covered(n, cat)) continue;
      out.push(undecidedFinding(cat, why, n.row + 1, n.col + 1, 'python'));
    }
  }
  return [...kept, ...out];
}

/**
 * A sink the analysis could not decide: data of unknown origin (a callee outside the file, a dynamic
 * attribute, a parameter other code may pass) reaches it. HIGH, so it blocks: not proven safe is not safe.
 */
export function undecidedFinding(cat: Cat, why: Flow, line: number, column: number, prefix: string): Finding {
  return {
    type: 'flow_undecided', severity: 'HIGH', line, column, rule_id: `${prefix}.flow.${cat}.undecided`, cwe: CWE[cat], path: [...new Set([...why.lines, line])],
    message: `flow undecided: ${why.what} (line ${why.lines[0]}) reaches ${TITLE[cat]} at line ${line}; the analysis cannot prove it constant or sanitised, so it is not admitted [CWE-${CWE[cat]}]`,
  };
}

/**
 * Names of functions judged only by their calls in this file. One whose name is also read another way
 * (stored, returned, handed to a call, listed in `__all__`) may be called by other code with untrusted
 * arguments too, so it stays an entry point (as the JS analysis does for exported functions).
 */
function judgedByCallers(index: ModuleIndex): Set<string> {
  const called = new Set<string>();
  const other = new Set<string>();
  index.idents.forEach((n, i) => {
    const text = index.raw[i] as string;
    if (n.field === 'function') {
      if (n.parent?.type === 'call') called.add(text);
    } else if (n.field !== 'name' && n.field !== 'attribute') other.add(text);
  });
  for (const n of index.assignedStrings) if (/^__all__\b/.test(n.parent?.parent?.text ?? '')) other.add(n.text.replace(/^[a-z]*['"]+|['"]+$/gi, ''));
  for (const o of other) called.delete(o);
  return called;
}

function within(n: PyNode, line: number, column: number): boolean {
  const row = line - 1;
  const col = column - 1;
  const endRow = n.row + (n.text.match(/\n/g)?.length ?? 0);
  if (row < n.row || row > endRow) return false;
  if (row === n.row && col < n.col) return false;
  return true;
}
