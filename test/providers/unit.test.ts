/**
 * The language-model providers' in-process tests (test/providers/unit/), run in one test process:
 * the local translators, tolerant output parsing and the HTTP providers against in-process fakes.
 */
import './unit/http-providers.js';
import './unit/local.js';
import './unit/local-misreadings.js';
import './unit/tolerant-output.js';
import './unit/translator.js';
