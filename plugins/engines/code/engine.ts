import type { DiagnosticResult } from '../../../core/verdict.js';
import { analyzeCode } from './analyze.js';
import { initPython, setFastPython } from './python/parser.js';
import { CONSTRAINTS, MAX_CODE_BYTES, failed, resolveLanguage, unsupportedLanguage, verdictFor } from './verdict.js';
import type { Analysis, Language } from './types.js';

/**
 * Worker-side functions (run by the kernel's pool through EngineHandle.run). Plain JSON in and out;
 * the tree-sitter runtime and grammar are loaded once per thread by `warmup` or the first request.
 */
export interface CodeInput {
  code: string;
  language?: string;
  /** present (false) only when the operator turned the Python fast path off (plugin_config.code.python_fast_parser) */
  python_fast?: false;
}

export async function warmup(): Promise<{ ready: true }> {
  await initPython();
  return { ready: true };
}

/** The verdict for one request. */
export async function verify(input: CodeInput): Promise<DiagnosticResult> {
  setFastPython(input.python_fast !== false);
  const language = resolveLanguage(input.language);
  if (!language) return unsupportedLanguage(input.language);
  if (typeof input.code !== 'string') return failed(language, CONSTRAINTS.parseError, 'code must be a string');
  if (Buffer.byteLength(input.code, 'utf8') > MAX_CODE_BYTES) {
    return failed(language, CONSTRAINTS.inputTooLarge, `code exceeds ${MAX_CODE_BYTES} bytes`, { max_code_bytes: MAX_CODE_BYTES });
  }
  return verdictFor(input.code, await analyzeCode(input.code, language));
}

/** The bare analysis (findings, parse status) for other plugins, e.g. the A2A code guard. */
export async function analyze(input: { code: string; language: Language; python_fast?: false }): Promise<Analysis> {
  setFastPython(input.python_fast !== false);
  return analyzeCode(input.code, input.language);
}
