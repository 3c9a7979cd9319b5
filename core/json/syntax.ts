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

/**
 * The first object member whose name repeats an earlier one in the same object, at any depth, or
 * null. JSON.parse keeps the last of two `"parts"` and many other parsers keep the first, so a body
 * checked on one reading and forwarded byte for byte is delivered as the other; I-JSON (RFC 7493
 * §2.3) forbids the repeat, and a route that verifies and forwards a body refuses it. Names are
 * compared decoded (`"p\u0061rts"` is `"parts"`). `text` must already be valid JSON (the kernel
 * parsed it); the scan is iterative, so any depth is safe.
 */
export function duplicateKeyAt(text: Buffer | string): { key: string; pointer: string } | null {
  const s = typeof text === 'string' ? text : text.toString('utf8');
  // per open container: '{' with the names seen (a list, a Set once it grows), '[' with the index
  type Frame = { obj: true; names: string[]; seen: Set<string> | null; key: string } | { obj: false; index: number };
  const stack: Frame[] = [];
  let wantKey = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      // the closing quote is the first one not preceded by an odd run of backslashes (indexOf: the
      // bulk of a large body is string content, skipped natively)
      for (;;) {
        i = s.indexOf('"', i + 1);
        if (i === -1) return null;
        let b = i - 1;
        while (s.charCodeAt(b) === 0x5c) b--;
        if (b < i - 1) escaped = true;
        if ((i - 1 - b) % 2 === 0) break;
      }
      if (!wantKey) continue;
      // a backslash not before a quote: looked for in the name's own span, so the whole scan stays
      // linear. It once searched the whole body for its first backslash up front: in a worker
      // thread, TurboFan's code for that search took ~90 s over an 8 MiB body with none, on the
      // function's 12th call with a body fresh from postMessage (an MCP answer withheld at the task
      // deadline; test/mcp/event-loop.serial.test.ts failed one run in three or four)
      if (!escaped) {
        for (let j = start + 1; j < i; j++) {
          if (s.charCodeAt(j) === 0x5c) {
            escaped = true;
            break;
          }
        }
      }
      wantKey = false;
      const top = stack[stack.length - 1] as Extract<Frame, { obj: true }>;
      const name = escaped ? (JSON.parse(s.slice(start, i + 1)) as string) : s.slice(start + 1, i);
      if (top.seen) {
        if (top.seen.has(name)) return { key: name, pointer: pointerOf(stack) };
        top.seen.add(name);
      } else {
        // most objects hold a few members: a list searched in place costs less than a Set each
        if (top.names.includes(name)) return { key: name, pointer: pointerOf(stack) };
        top.names.push(name);
        if (top.names.length > 16) top.seen = new Set(top.names);
      }
      top.key = name;
    } else if (c === 0x7b) {
      stack.push({ obj: true, names: [], seen: null, key: '' });
      wantKey = true;
    } else if (c === 0x5b) stack.push({ obj: false, index: 0 });
    else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      wantKey = false;
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top?.obj) wantKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}

/** RFC 6901 pointer of the object that holds the repeated name (its members' path, not the name) */
function pointerOf(stack: ReadonlyArray<{ obj: true; key: string } | { obj: false; index: number }>): string {
  let out = '';
  for (let k = 0; k < stack.length - 1; k++) {
    const f = stack[k];
    out += '/' + (f.obj ? f.key.replace(/~/g, '~0').replace(/\//g, '~1') : String(f.index));
  }
  return out;
}
