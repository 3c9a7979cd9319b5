/**
 * The code engine's rule-gap tables (test/engines/code/rule-tables/), run in one test process: each
 * is a table of snippets that must block with a rule, look-alikes that must not, and a few over
 * HTTP on one shared server (rule-table.ts). A process per table cost the suite a Node start, the
 * test runner's loaders and a code-engine server each, for tables that run in milliseconds.
 */
import './rule-tables/env-hooks.js';
import './rule-tables/git-options.js';
import './rule-tables/javascript-code-runners.js';
import './rule-tables/javascript-program-loaders.js';
import './rule-tables/javascript-shared-state.js';
import './rule-tables/javascript-timers-and-this.js';
import './rule-tables/javascript-value-flows.js';
import './rule-tables/javascript-with-and-data-urls.js';
import './rule-tables/launchers.js';
import './rule-tables/python-code-runners.js';
import './rule-tables/python-entry-scopes.js';
import './rule-tables/python-hidden-code.js';
import './rule-tables/python-import-shadow.js';
import './rule-tables/python-process-libraries.js';
import './rule-tables/python-program-loaders.js';
import './rule-tables/python-value-flows.js';
import './rule-tables/written-code.js';
