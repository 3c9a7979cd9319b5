import type { JsNode } from '../parser.js';
import type { JsResolver } from '../resolve.js';
import type { Finding, Severity } from '../../types.js';
import { type Cat, type Flow, CWE, TITLE, undecidedFinding } from '../../python/flow/index.js';
import { JsFlowInterp } from './interp.js';
import { JsFlowBudgetError } from './value.js';

/** Presence rules of analyze.ts that the flow analysis decides instead, by the class of sink they name. */
const DECIDED_BY_FLOW = new Map<string, Cat>([
  // a shell command the resolver folded to one text: admitted where the flow proves every visit of it constant too
  ['process.shell_injection', 'cmdi'], ['process.shell_exec', 'cmdi'], ['dangerous_call.eval', 'codeinj'], ['dangerous_call.function', 'codeinj'], ['dangerous_call.vm', 'codeinj'],
]);
const SEVERITY: Partial<Record<Cat, Severity>> = { cmdi: 'CRITICAL', codeinj: 'CRITICAL', deserialization: 'CRITICAL' };

const at = (n: JsNode): string => `${n.loc?.start.line ?? 1}:${(n.loc?.start.column ?? 0) + 1}`;

/**
 * Source-to-sink flows of one JavaScript/TypeScript module as findings (rule `<prefix>.flow.<class>`,
 * its CWE and the path source line → steps → sink line), with the same verdict semantics as the
 * Python analysis (python/flow/index.ts): a presence finding the flow decides is lowered to LOW only
 * where every visit of its sink saw constants or sanitised data, and says why it stays otherwise.
 */
export function jsFlowFindings(program: JsNode, order: readonly JsNode[], r: JsResolver, prefix: string, presence: Finding[]): Finding[] {
  const interp = new JsFlowInterp(r, order);
  try {
    interp.run(program);
  } catch (err) {
    if (!(err instanceof JsFlowBudgetError)) throw err;
    return [...presence, { type: 'flow_undecided', severity: 'HIGH', line: 1, column: 1, message: 'the flow analysis ran out of budget; no sink is proven safe', rule_id: `${prefix}.flow.undecided` }];
  }
  const tainted = new Map<string, Set<Cat>>();
  const undecided = new Map<string, Map<Cat, Flow>>();
  const clear = new Map<string, Set<Cat>>();
  const add = <T>(m: Map<string, T>, k: string, mk: () => T): T => m.get(k) ?? (m.set(k, mk()).get(k) as T);
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const h of interp.hits) {
    const pos = at(h.node);
    if (h.flow || h.unconditional) {
      add(tainted, pos, () => new Set()).add(h.cat);
      const key = `${h.cat}|${pos}|${h.flow?.lines.join(',') ?? h.unconditional}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const sinkLine = h.node.loc?.start.line ?? 1;
      // the source line first (a handler's source may sit on the sink's line, its steps in a function above)
      const [first, ...steps] = h.flow?.lines ?? [];
      const path = h.flow ? [...(first !== sinkLine ? [first] : []), ...steps.filter((l) => l !== sinkLine), sinkLine] : [sinkLine];
      const message = h.flow
        ? `untrusted ${h.flow.what} (line ${h.flow.lines[0]}) reaches ${TITLE[h.cat]} at line ${sinkLine} unsanitised (path: lines ${path.join(' → ')}) [CWE-${CWE[h.cat]}]`
        : `${h.unconditional} [CWE-${CWE[h.cat]}] (stands whatever the data)`;
      out.push({ type: h.cat, severity: SEVERITY[h.cat] ?? 'HIGH', line: sinkLine, column: (h.node.loc?.start.column ?? 0) + 1, message, rule_id: `${prefix}.flow.${h.cat}`, cwe: CWE[h.cat], path });
    } else if (h.undecided) {
      const m = add(undecided, pos, () => new Map<Cat, Flow>());
      if (!m.has(h.cat)) m.set(h.cat, h.undecided);
    } else add(clear, pos, () => new Set()).add(h.cat);
  }
  // a deserialiser that runs code has no presence rule of its own in JS: data of unknown origin reaching one
  // blocks here, as Python's deserialization.pickle does (a constant or sanitised argument is admitted)
  for (const [pos, m] of undecided) {
    const why = m.get('deserialization');
    if (!why || tainted.get(pos)?.has('deserialization')) continue;
    const [line, column] = pos.split(':').map(Number);
    out.push({
      type: 'unsafe_deserialization', severity: 'CRITICAL', line, column, rule_id: `${prefix}.deserialization.unsafe`,
      message: `a deserialiser that can run code embedded in the data; flow undecided: ${why.what} (line ${why.lines[0]}) reaches it, so it is not proven safe`,
    });
  }
  const kept: Finding[] = [];
  for (const f of presence) {
    const cat = DECIDED_BY_FLOW.get(f.rule_id.slice(prefix.length + 1));
    const pos = `${f.line}:${f.column}`;
    if (!cat || !(clear.get(pos)?.has(cat) || undecided.get(pos)?.has(cat) || tainted.get(pos)?.has(cat))) {
      // a sink the flow did not visit (dead code, a form it does not model) keeps its finding
      kept.push(f);
      continue;
    }
    const why = undecided.get(pos)?.get(cat);
    if (!tainted.get(pos)?.has(cat) && !why) {
      // kept as LOW (admitted): the call is still there for policies that refuse it whatever it is given (the A2A guard)
      kept.push({ ...f, severity: 'LOW', message: `${f.message}; every dangerous argument is proven constant or sanitised (flow analysis), so it does not block` });
      continue;
    }
    kept.push(why && !tainted.get(pos)?.has(cat) ? { ...f, message: `${f.message}; flow undecided: ${why.what} (line ${why.lines[0]}) reaches it, so it is not proven safe` } : f);
  }
  // an undecided sink no blocking finding already stands for is not admitted either (issue 40: fail closed)
  const covered = (pos: string, cat: Cat): boolean =>
    !!tainted.get(pos)?.has(cat) || cat === 'deserialization' ||
    kept.some((f) => DECIDED_BY_FLOW.get(f.rule_id.slice(prefix.length + 1)) === cat && f.severity !== 'LOW' && `${f.line}:${f.column}` === pos);
  for (const [pos, m] of undecided) {
    for (const [cat, why] of m) {
      if (covered(pos, cat)) continue;
      const [line, column] = pos.split(':').map(Number);
      out.push(undecidedFinding(cat, why, line, column, prefix));
    }
  }
  return [...kept, ...out];
}
