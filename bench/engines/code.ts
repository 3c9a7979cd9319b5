import { verify } from '../../plugins/engines/code/engine.js';
import { initPython } from '../../plugins/engines/code/python/parser.js';

/**
 * Bench adapter for POST /verify/code (corpus README scoring). A line is decided when the engine
 * returns VERIFIED; admission BLOCKED means "unsafe". BLOCKED status (parse error, timeout) is no
 * decision: `error`.
 */
export const corpus = 'code.jsonl';

export async function setup(): Promise<void> {
  await initPython();
  await verify({ code: 'x = 1\n', language: 'python' });
}

export async function op(line: any): Promise<unknown> {
  return verify({ code: line.code, language: line.language });
}

export function judge(line: any, output: unknown): 'correct' | 'wrong' | 'error' {
  const o = output as { status?: string; admission?: string } | null;
  if (!o || o.status !== 'VERIFIED') return 'error';
  const saysUnsafe = o.admission === 'BLOCKED';
  return saysUnsafe === Boolean(line.expected?.unsafe) ? 'correct' : 'wrong';
}
