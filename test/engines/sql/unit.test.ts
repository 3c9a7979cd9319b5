/**
 * The SQL engine's in-process tests (test/engines/sql/unit/), run in one test process: each loads
 * node-sql-parser and the engine, which cost a process per file about a second of CPU for tests that
 * run in milliseconds. The HTTP cases keep files of their own.
 */
import './unit/corpus.js';
import './unit/qualified-names.js';
import './unit/route.js';
import './unit/rules.js';
import './unit/schema-check.js';
import './unit/schema-db.js';
import './unit/tokens.js';
