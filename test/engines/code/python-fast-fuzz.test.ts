import t from 'tap';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { compareParses, corpusInputs, snippetInputs } from '../../helpers/python-trees.js';

/**
 * Seeded mutation fuzz of the fast Python parser: corpus lines and test snippets with tokens
 * deleted, duplicated or swapped, and quotes, brackets, backslashes, newlines, indentation and `#`
 * inserted. Whenever the fast parser accepts a mutant, tree-sitter must parse it without error to
 * the identical tree. Deterministic (the seed is fixed); PY_FAST_FUZZ=N runs N mutants instead of
 * the default, PY_FAST_FUZZ_SEED another seed (the offline run in docs/engines/code.md used a much larger N).
 */
const COUNT = Number(process.env.PY_FAST_FUZZ ?? 12000);
const SEED = Number(process.env.PY_FAST_FUZZ_SEED ?? 20);
const INSERTS = ["'", '"', '"""', '(', ')', '[', ']', '{', '}', '\\', '\n', '\n    ', '    ', '#', '# c\n', ':', ',', '=', '*', '**', '.', '@',
  'f"{', '}"', "r'", 'b"', 'not ', ' in ', 'lambda ', 'if ', 'else ', 'yield ', '\t', ';', '\\\n', 'u"', '\r\n', '->', ':=',
  // operators in place of others: their grouping must stay tree-sitter's
  ':=}', ':=', ' & ', ' ^ ', ' | ', ' << ', ' % ', ' @ ', ' ** ', ' and ', ' or ', ' < ', ' is ', ' is not ', '-', '~', ' if ', ' for ', 'async ', 'await ', ' type ', ' match ', '\ntype(', '\nmatch.', '\ntype = ',
  // raw strings opening with backslash pairs
  "r'\\\\", 'r"\\', "r'\\'", '\\\\'];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(code: string, r: () => number): string {
  const toks = code.match(/[A-Za-z_0-9]+|\n[ ]*|[ ]+|./gs) ?? [];
  const edits = 1 + Math.floor(r() * 3);
  for (let e = 0; e < edits && toks.length; e++) {
    const i = Math.floor(r() * toks.length);
    switch (Math.floor(r() * 6)) {
      case 0:
        toks.splice(i, 1);
        break;
      case 1:
        toks.splice(i, 0, toks[i]);
        break;
      case 2: {
        const j = Math.min(toks.length - 1, i + 1 + Math.floor(r() * 3));
        [toks[i], toks[j]] = [toks[j], toks[i]];
        break;
      }
      case 3:
        toks.splice(i, 0, INSERTS[Math.floor(r() * INSERTS.length)]);
        break;
      case 4: {
        // indentation: add or remove spaces after a line break
        const at = toks.findIndex((x, k) => k >= i && x.startsWith('\n'));
        if (at >= 0) toks[at] = r() < 0.5 ? `${toks[at]}  ` : toks[at].slice(0, Math.max(1, toks[at].length - 2));
        break;
      }
      default:
        toks.splice(i, 1, INSERTS[Math.floor(r() * INSERTS.length)]);
    }
  }
  return toks.join('');
}

t.test(`mutation fuzz (${COUNT} mutants, seed ${SEED})`, async (t) => {
  await initPython();
  // mutants of code the fast parser takes: the test files' other strings (JSON, TypeScript, prose)
  // would make the share of accepted mutants depend on how many of them the test folders hold
  const bases = [...corpusInputs(), ...snippetInputs()].map(([, code]) => code).filter((c) => c.includes('\n') && compareParses(c, false).accepted);
  const r = rng(SEED);
  let accepted = 0;
  const bad: string[] = [];
  for (let n = 0; n < COUNT; n++) {
    const code = mutate(bases[Math.floor(r() * bases.length)], r);
    const v = compareParses(code, false);
    if (!v.accepted) continue;
    accepted++;
    if (v.mismatch && bad.length < 20) bad.push(`${JSON.stringify(code)}: ${v.mismatch}`);
  }
  for (const b of bad) t.comment(`MISMATCH ${b}`); // one line each, to replay
  t.same(bad, [], 'every accepted mutant parses to tree-sitter\'s tree, without error');
  t.comment(`fuzz: ${COUNT} mutants, ${accepted} accepted by the fast parser (${bad.length ? `${bad.length}+ NOT identical` : 'all identical'}), ${COUNT - accepted} sent to tree-sitter`);
  t.ok(accepted > COUNT / 10, 'the fuzz exercises the fast path, not only its refusals');
});
