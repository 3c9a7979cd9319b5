import { analyzePython, analyzePythonSync } from './python/analyze.js';
import { initPython, pythonReady } from './python/parser.js';
import { analyzeJavaScript, analyzeTypeScript } from './javascript/analyze.js';
import type { Analysis, Language } from './types.js';

/** One entry point over the three languages (the parse-tree analysis, no verdict). */
export async function analyzeCode(code: string, language: Language): Promise<Analysis> {
  if (language === 'python') return analyzePython(code);
  if (language === 'typescript') return analyzeTypeScript(code);
  return analyzeJavaScript(code);
}

/** Synchronous form for hot loops; Python needs `initPython()` to have resolved first. */
export function analyzeCodeSync(code: string, language: Language): Analysis {
  if (language === 'python') return analyzePythonSync(code);
  if (language === 'typescript') return analyzeTypeScript(code);
  return analyzeJavaScript(code);
}

export { analyzePython, analyzePythonSync, analyzeJavaScript, analyzeTypeScript, initPython, pythonReady };
