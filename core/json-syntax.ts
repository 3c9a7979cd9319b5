/**
 * Where JSON text stops being JSON, without quoting it. JSON.parse's message carries a snippet of
 * the text ("Unexpected token 's', "{"key": svc_live_…"... is not valid JSON"), and a config file
 * holds secrets: an error that lands in a CI log may name the file and a line and column, never
 * what is written there. The scan is iterative (an explicit stack), so any depth is safe.
 */
export function jsonSyntaxErrorAt(s: string): { line: number; column: number } | null {
  const offset = errorOffset(s);
  if (offset === null) return null;
  const before = s.slice(0, offset);
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - nl };
}

const ESCAPES = '"\\/bfnrtu';

function errorOffset(s: string): number | null {
  let i = 0;
  const stack: string[] = [];
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  };
  /** past a string starting at i, or false with i at the offending character */
  const string = (): boolean => {
    if (s[i] !== '"') return false;
    for (i++; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        i++;
        if (!ESCAPES.includes(s[i] ?? '\0')) return false;
        if (s[i] === 'u') {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(s[i + k] ?? '')) return ((i += k), false);
          i += 4;
        }
      }
    }
    return false;
  };
  /** past a number starting at i, or false with i at the first character that cannot continue it */
  const number = (): boolean => {
    const digits = () => {
      const from = i;
      while (i < s.length && s[i] >= '0' && s[i] <= '9') i++;
      return i > from;
    };
    if (s[i] === '-') i++;
    if (s[i] === '0') i++;
    else if (!digits()) return false;
    if (s[i] === '.') {
      i++;
      if (!digits()) return false;
    }
    if (s[i] === 'e' || s[i] === 'E') {
      i++;
      if (s[i] === '+' || s[i] === '-') i++;
      if (!digits()) return false;
    }
    return true;
  };
  let want: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    ws();
    if (want === 'key') {
      if (!string()) return i;
      ws();
      if (s[i] !== ':') return i;
      i++;
      want = 'value';
      continue;
    }
    if (want === 'value') {
      const c = s[i];
      if (c === '{' || c === '[') {
        i++;
        ws();
        if (s[i] === (c === '{' ? '}' : ']')) {
          i++;
          want = 'after';
        } else {
          stack.push(c);
          want = c === '{' ? 'key' : 'value';
        }
        continue;
      }
      if (c === '"') {
        if (!string()) return i;
      } else if (c === 't' || c === 'f' || c === 'n') {
        const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
        for (const w of word) {
          if (s[i] !== w) return i;
          i++;
        }
      } else if (!number()) return i;
      want = 'after';
      continue;
    }
    const top = stack[stack.length - 1];
    if (top === undefined) return i === s.length ? null : i;
    if (s[i] === ',') {
      i++;
      want = top === '{' ? 'key' : 'value';
    } else if (s[i] === (top === '{' ? '}' : ']')) {
      i++;
      stack.pop();
    } else return i;
  }
}

/**
 * A JSON file's value; a file that does not parse throws an Error naming the path and the line and
 * column only (never its text: MCP client configs and key files hold tokens).
 */
export function readJsonFile(path: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const at = jsonSyntaxErrorAt(text);
    throw new Error(`${path}: not valid JSON${at ? ` (line ${at.line}, column ${at.column})` : ''}`);
  }
}
