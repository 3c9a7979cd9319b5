import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type TypeScript from 'typescript';
import { corpusLines } from '../../bench/harness.js';
import { MAX_DEPTH, type PyNode, parsePythonSync, parseTreeSitter, setFastPython } from '../../plugins/engines/code/python/parser.js';
import { Source } from '../../plugins/engines/code/python/pynode.js';
import { fastParseStrict } from '../../plugins/engines/code/python/fast/index.js';

/**
 * The differential check of the fast Python parser (plugins/engines/code/python/fast/): whenever it
 * accepts an input, the PyParse it gives must be tree-sitter's, node for node. Shared by the
 * differential test and the mutation fuzz.
 */
export type Verdict = { accepted: false } | { accepted: true; mismatch: string | null };

function line(n: PyNode): string {
  return `${n.field ?? ''}:${n.named ? n.type : JSON.stringify(n.type)}[${n.start},${n.end}]/${n.children.length}`;
}

/** The first difference between the two parses, or null: every node in pre-order, and the error. */
export function compareParses(code: string, viaEntry = true): Verdict {
  // any fault other than "unsupported" throws here (the production path would fall back silently)
  const fast = fastParseStrict(code, new Source(code), MAX_DEPTH);
  if (!fast) return { accepted: false };
  if (viaEntry) {
    // and the production entry takes the fast path for it
    const was = setFastPython(true);
    const entry = parsePythonSync(code);
    setFastPython(was);
    if (entry.nodes.length !== fast.nodes.length) return { accepted: true, mismatch: 'parsePythonSync did not take the fast path' };
  }
  const slow = parseTreeSitter(code);
  if (fast.error || !fast.root) return { accepted: true, mismatch: 'the fast path gave no tree' };
  if (slow.error || !slow.root) return { accepted: true, mismatch: `tree-sitter: ${JSON.stringify(slow.error ?? 'no tree')}` };
  if (fast.nodes.length !== slow.nodes.length) return { accepted: true, mismatch: `node count ${fast.nodes.length} vs ${slow.nodes.length}` };
  // same pre-order sequence with the same child counts: the same shape; then the fast tree's
  // parent links must match its children arrays
  for (let i = 0; i < fast.nodes.length; i++) {
    const a = fast.nodes[i];
    const b = slow.nodes[i];
    if (a.type !== b.type || a.field !== b.field || a.named !== b.named || a.start !== b.start || a.end !== b.end || a.children.length !== b.children.length) {
      return { accepted: true, mismatch: `node ${i}: fast ${line(a)} vs tree-sitter ${line(b)}` };
    }
    for (const c of a.children) if (c.parent !== a) return { accepted: true, mismatch: `node ${i}: a child's parent link is wrong` };
  }
  if (fast.root.parent !== null) return { accepted: true, mismatch: 'the root has a parent' };
  return { accepted: true, mismatch: null };
}

/** The benchmark corpus's Python. */
export function corpusInputs(): Array<[string, string]> {
  return corpusLines('code.jsonl')
    .filter((l) => (l.language ?? 'python') === 'python')
    .map((l) => [l.id as string, l.code as string]);
}

const TEST_DIR = fileURLToPath(new URL('../../../test/', import.meta.url));

/**
 * Every string literal in the code-engine, A2A and batch test sources: a superset of their Python
 * snippets (the rest is refused by the fast parser or parses the same both ways).
 */
export function snippetInputs(): Array<[string, string]> {
  // loaded here, not at the top: importing typescript costs 0.8 s of CPU, and the stdlib files need no scanner
  const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
  const out: Array<[string, string]> = [];
  for (const dir of ['engines/code', 'a2a', 'batch']) {
    for (const f of readdirSync(join(TEST_DIR, dir)).sort()) {
      if (!f.endsWith('.ts')) continue;
      const src = readFileSync(join(TEST_DIR, dir, f), 'utf8');
      const sc = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, src);
      for (let k = sc.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = sc.scan()) {
        if (k === ts.SyntaxKind.StringLiteral || k === ts.SyntaxKind.NoSubstitutionTemplateLiteral) out.push([`${dir}/${f}@${sc.getTokenPos()}`, sc.getTokenValue()]);
      }
    }
  }
  return out;
}

/**
 * The local Python's standard library, located by asking that Python (so no path outside the
 * repository is named here); null when no python3 is installed.
 */
export function stdlibDir(): string | null {
  try {
    const dir = execFileSync('python3', ['-c', "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
    return dir && statSync(dir).isDirectory() ? dir : null;
  } catch {
    return null;
  }
}

/** The .py files under `dir`, in path order; third-party code (any site-packages directory) is not walked. */
export function stdlibFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      // site-packages can hold far more directories than the standard library itself
      if (e.isDirectory()) {
        if (e.name !== 'site-packages') walk(join(d, e.name));
      } else if (e.name.endsWith('.py')) out.push(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}

/** Compares every input; fails listing each mismatch, prints the acceptance; returns the accepted count. */
export function checkAll(t: Test, name: string, inputs: Array<[string, string]>, viaEntry = true): number {
  let accepted = 0;
  const mismatches: string[] = [];
  for (const [id, code] of inputs) {
    const v = compareParses(code, viaEntry);
    if (!v.accepted) continue;
    accepted++;
    if (v.mismatch) mismatches.push(`${id}: ${v.mismatch}`);
  }
  t.same(mismatches, [], `${name}: every accepted input gives tree-sitter's tree`);
  t.comment(`${name}: the fast parser accepted ${accepted} of ${inputs.length} inputs`);
  return accepted;
}

/**
 * One of `parts` interleaved shares of the local standard library's files (every file is in exactly
 * one share), compared; says so when there is no python3.
 */
export function checkStdlib(t: Test, part: number, parts: number): void {
  const dir = stdlibDir();
  if (!dir) {
    t.comment('stdlib: no python3 on this machine, its standard library was NOT compared');
    t.pass('nothing to compare here');
    return;
  }
  const files = stdlibFiles(dir);
  const mine = files.filter((_, i) => i % parts === part);
  const inputs = mine.map((f): [string, string] => [relative(dir, f), readFileSync(f, 'utf8')]);
  const name = `stdlib part ${part + 1}/${parts}`;
  t.comment(`${name}: ${inputs.length} of the ${files.length} files under ${dir}`);
  t.ok(checkAll(t, name, inputs, false) > 0, 'some of the standard library takes the fast path');
}
