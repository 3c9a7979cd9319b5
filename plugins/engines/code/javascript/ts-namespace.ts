import { createRequire } from 'node:module';

// sucrase's tokenizer is what its transform elides by; its subpaths ship no declarations
type Token = { type: number; contextualKeyword: number; isType: boolean; start: number };
const load = createRequire(import.meta.url);
const { parse } = load('sucrase/dist/parser/index.js') as { parse(code: string, jsx: boolean, ts: boolean, flow: boolean): { tokens: Token[] } };
const { ContextualKeyword } = load('sucrase/dist/parser/tokenizer/keywords.js') as { ContextualKeyword: Record<string, number> };
const { TokenType } = load('sucrase/dist/parser/tokenizer/types.js') as { TokenType: Record<string, number> };

/**
 * sucrase parses `namespace N { … }` and `module N { … }` as types and emits nothing for them, but
 * TypeScript compiles a namespace's body into code that runs (`namespace N { eval(src) }` calls
 * eval): the engine would analyse JavaScript without that code. Such input is refused as unreadable.
 * `declare namespace` / `declare module` (ambient, no code, also what is nested in them) and
 * `module 'name'` are kept. Returns where the first such namespace starts, or null.
 */
export function elidedNamespace(code: string, jsx: boolean): { line: number; column: number; message: string } | null {
  let tokens: Token[];
  try {
    tokens = parse(code, jsx, true, false).tokens;
  } catch {
    return null; // sucrase's transform reports the syntax error itself
  }
  let ambientDepth = -1;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const tk = tokens[i];
    if (tk.type === TokenType.braceL || tk.type === TokenType.dollarBraceL) depth++;
    else if (tk.type === TokenType.braceR) {
      depth--;
      if (depth === ambientDepth) ambientDepth = -1;
    } else if (tk.type === TokenType.name && tk.isType && (tk.contextualKeyword === ContextualKeyword._namespace || tk.contextualKeyword === ContextualKeyword._module) && tokens[i + 1]?.type === TokenType.name) {
      if (ambientDepth >= 0) continue;
      if (tokens[i - 1]?.type === TokenType._declare) {
        ambientDepth = depth;
        continue;
      }
      const before = code.slice(0, tk.start);
      return { line: before.split('\n').length, column: tk.start - before.lastIndexOf('\n'), message: 'TypeScript namespace: its body runs, but the TypeScript transform removes it, so the engine cannot read it' };
    }
  }
  return null;
}
