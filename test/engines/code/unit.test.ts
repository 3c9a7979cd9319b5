/**
 * The code engine's in-process tests (test/engines/code/unit/), run in one test process: the rule
 * tables of each language, findings on data, verdicts, source text and the corpus. Each file loaded
 * the grammars (tree-sitter's wasm, acorn, sucrase) in a process of its own. The fast Python
 * parser's comparisons with tree-sitter keep processes of their own: they switch the parser globally.
 */
import './unit/alias-table.js';
import './unit/corpus.js';
import './unit/data-findings.js';
import './unit/javascript-rules.js';
import './unit/javascript-source-text.js';
import './unit/python-rules.js';
import './unit/python-tree-copy.js';
import './unit/verdict.js';
import './unit/node-kinds.js';
import './unit/javascript-shared-names.js';
