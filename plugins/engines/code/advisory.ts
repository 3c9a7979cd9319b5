import type { AdvisoryCheck } from './types.js';

/**
 * Text-only signals (decisions §1): regexes over the raw source, which cannot tell code from a
 * string or a comment. They are reported as advisory checks and never decide a verdict.
 */
export interface TextSignal {
  name: string;
  line: number;
  detail: string;
}

const MAX_SIGNALS = 20;
const STRING_TOKEN = /(['"`])((?:\\.|(?!\1)[^\\\n]){20,400})\1/g;
const URL = /\b(?:https?|ftp|wss?):\/\/[^\s'"`<>)]+/gi;
const SUSPICIOUS_HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\])$|\.onion$|(?:^|\.)(?:pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|transfer\.sh|ngrok\.io|ngrok-free\.app|serveo\.net|requestbin\.\w+|webhook\.site|interact\.sh|oast\.\w+|burpcollaborator\.net|raw\.githubusercontent\.com)$/i;

/**
 * The A2A code guard's layer-2 pattern heuristics (operations-api, code_guard row), by name.
 * Exported so the guard and this engine use one definition. `needs`: words of which every match
 * of `re` contains at least one, so a text holding none of them is passed over without running
 * the regex (a plain substring search is much cheaper than a scan for `\b…`).
 */
export const GUARD_PATTERNS: ReadonlyArray<{ name: string; re: RegExp; needs: readonly string[] }> = [
  { name: 'getattr_builtin', re: /\bgetattr\s*\(\s*(?:__builtins__|builtins)\b/, needs: ['getattr'] },
  { name: 'builtins_dict_access', re: /(?:__builtins__|builtins\.__dict__|globals\s*\(\s*\)|vars\s*\(\s*\))\s*\[/, needs: ['builtins', 'globals', 'vars'] },
  { name: 'base64_exec', re: /\b(?:exec|eval)\s*\([^)]*\b(?:b64decode|b32decode|decodebytes|atob)\b/, needs: ['b64decode', 'b32decode', 'decodebytes', 'atob'] },
  { name: 'dynamic_import', re: /\b__import__\s*\(|\bimportlib\s*\.\s*import_module\s*\(|\brequire\s*\(\s*[^'"`\s)]/, needs: ['__import__', 'importlib', 'require'] },
  { name: 'os_system', re: /\bos\s*\.\s*system\s*\(/, needs: ['system'] },
  { name: 'os_popen', re: /\bos\s*\.\s*popen\s*\(/, needs: ['popen'] },
];

function lineAt(code: string, index: number): number {
  let line = 1;
  for (let i = code.indexOf('\n'); i !== -1 && i < index; i = code.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Shannon entropy in bits per character of an ASCII string (textSignals tests only base64-like ones),
 * summed in the order characters first appear.
 */
function entropy(s: string): number {
  const counts = new Uint16Array(128);
  const order: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i) & 0x7f;
    if (counts[c]++ === 0) order.push(c);
  }
  let h = 0;
  for (const c of order) {
    const p = (counts[c] as number) / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Every word some pattern needs, in one expression: one scan of the text finds which occur, where a
 * `includes` per word scanned it thirteen times (most of these signals' cost on a module of a few KB).
 * The search resumes one character after each find, so a word overlapping the one before it
 * (`builtinsystem`) is found too; no word starts another, so one start position holds at most one.
 */
const NEEDED = new RegExp([...new Set(GUARD_PATTERNS.flatMap((p) => p.needs))].join('|'), 'g');

function wordsIn(code: string): Set<string> {
  const seen = new Set<string>();
  NEEDED.lastIndex = 0;
  for (let m = NEEDED.exec(code); m; m = NEEDED.exec(code)) {
    seen.add(m[0]);
    NEEDED.lastIndex = m.index + 1;
  }
  return seen;
}

/** Raw-text pattern matches, named as the A2A guard names them. */
export function heuristicSignals(code: string): TextSignal[] {
  const out: TextSignal[] = [];
  const seen = wordsIn(code);
  if (seen.size === 0) return out;
  for (const { name, re, needs } of GUARD_PATTERNS) {
    if (!needs.some((w) => seen.has(w))) continue;
    const m = re.exec(code);
    if (m) out.push({ name, line: lineAt(code, m.index), detail: m[0].slice(0, 80) });
  }
  return out;
}

export function textSignals(code: string): TextSignal[] {
  const out: TextSignal[] = [];
  for (const m of code.matchAll(STRING_TOKEN)) {
    if (out.length >= MAX_SIGNALS) break;
    const body = m[2];
    if (!/^[A-Za-z0-9+/=_-]+$/.test(body)) continue;
    const h = entropy(body);
    if (h >= 4.2) out.push({ name: 'high_entropy_string', line: lineAt(code, m.index ?? 0), detail: `${body.length} characters, ${h.toFixed(2)} bits/char` });
  }
  for (const m of code.includes('://') ? code.matchAll(URL) : []) {
    if (out.length >= MAX_SIGNALS) break;
    let host = '';
    try {
      host = new globalThis.URL(m[0]).hostname;
    } catch {
      continue;
    }
    if (SUSPICIOUS_HOST.test(host)) out.push({ name: 'suspicious_url', line: lineAt(code, m.index ?? 0), detail: host });
  }
  return out.concat(heuristicSignals(code).map((s) => ({ ...s, name: `pattern.${s.name}` }))).slice(0, MAX_SIGNALS);
}

export function advisoryChecks(code: string): AdvisoryCheck[] {
  return textSignals(code).map((s) => ({
    name: s.name,
    advisory_only: true,
    constraint_id: `code_verifier.advisory.${s.name.startsWith('pattern.') ? 'pattern' : s.name}`,
    details: { line: s.line, detail: s.detail },
  }));
}
