import t from 'tap';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from '../helpers/sources.js';

/**
 * The server uses the types generated from schemas/ (schemas/gen/, shared with @proofgate/client)
 * instead of hand-written twins of them (issue 44, docs/client.md). A twin is found by shape: an
 * exported interface in core/ or plugins/ whose top-level members are exactly those of a generated
 * interface. The twins not replaced yet are listed by name; the list only shrinks: a new twin fails,
 * and so does a listed one that is gone (take it off the list). Entries are `<file name> <interface>`,
 * so that moving a file between directories does not change them.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const KNOWN: ReadonlySet<string> = new Set([
  // the kernel's own verdict type: left to the kernel (core/verdict.ts), not changed here
  'verdict.ts DiagnosticResult',
]);

/** exported interfaces of a file → the names of their top-level members */
function interfacesOf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^export interface (\w+)[^{\n]*\{\n([\s\S]*?)\n\}/gm)) {
    const members = [...m[2].matchAll(/^ {2}(?:readonly )?["']?([\w$-]+)["']?\??:/gm)].map((x) => x[1]).sort();
    if (members.length >= 3) out.set(m[1], members.join(','));
  }
  return out;
}

function twins(): string[] {
  const generated = new Map<string, string>();
  for (const f of sourceFiles(join(ROOT, 'schemas', 'gen'))) for (const [name, shape] of interfacesOf(readFileSync(f, 'utf8'))) generated.set(shape, name);
  const found: string[] = [];
  for (const dir of ['core', 'plugins']) {
    for (const f of sourceFiles(join(ROOT, dir))) {
      for (const [name, shape] of interfacesOf(readFileSync(f, 'utf8'))) if (generated.has(shape)) found.push(`${basename(f)} ${name}`);
    }
  }
  return found.sort();
}

t.test('the scanner tells a twin from an interface of another shape', async (t) => {
  const text = 'export interface A {\n  a: string;\n  b?: number;\n  readonly c: {\n    nested: 1;\n  };\n}\n\nexport interface B {\n  a: string;\n}\n';
  t.same([...interfacesOf(text)], [['A', 'a,b,c']], 'top-level members only; fewer than three is no shape');
});

t.test('no server type twins a generated one, beyond the listed ones not replaced yet', async (t) => {
  const found = twins();
  t.same(found.filter((f) => !KNOWN.has(f)), [], 'import the generated type from schemas/gen/ instead');
  t.same([...KNOWN].filter((k) => !found.includes(k)), [], 'replaced: take it off the list');
  const replacedNames = [
    'payload.ts AuditEntry', 'message.ts VerificationVerdict', 'metrics.ts A2AMetricsSnapshot', 'policy.ts PolicyView', 'types.ts AttestedResult',
    'document.ts VcDocument', 'render.ts BadgeSpec', 'screening.ts Finding', 'tools.ts ToolEvaluation', 'engine.ts SqlInput', 'body.ts NlBody',
    'verifier.ts ProcessRequest', 'verifier.ts RagRequest', 'verifier.ts FactRequest', 'verifier.ts LogicRequest', 'types.ts Finding',
    'types.ts AdvisoryCheck', 'message.ts AgentMessage', 'run.ts ItemResult',
  ];
  for (const replaced of replacedNames) {
    t.notOk(found.includes(replaced), `${replaced} is the generated type`);
  }
});
