/**
 * Layer 2 of code_guard: six named text heuristics, consulted only when the syntax-tree layer found
 * nothing. They read the raw text (strings and comments included) on purpose: they exist to catch
 * what a tree walk cannot see, such as a name assembled inside a string. Being heuristics, they can
 * only block; they never make a message `forwarded` (a clean run is `heuristic_pass`).
 */
export const HEURISTICS = ['getattr_builtin', 'builtins_dict_access', 'base64_exec', 'dynamic_import', 'os_system', 'os_popen'] as const;
export type HeuristicName = (typeof HEURISTICS)[number];

export interface HeuristicFinding {
  name: HeuristicName;
  /** 1-based line of the first match */
  line: number;
}

const DECODERS = /\b(b64decode|b32decode|b16decode|a85decode|b85decode|urlsafe_b64decode|decodebytes|decodestring)\b|\bcodecs\s*\.\s*decode\b|['"]base64['"]/;
const EXECUTORS = /\b(exec|eval|compile)\b/;

/** each heuristic: a regex whose first match locates it, plus an optional second condition */
const RULES: ReadonlyArray<{ name: HeuristicName; re: RegExp; also?: RegExp }> = [
  // getattr whose object expression mentions builtins: getattr(__builtins__, 'ev'+'al'), getattr(sys.modules['builtins'], n)
  { name: 'getattr_builtin', re: /\bgetattr\s*\(\s*[^,\n]{0,200}builtins/ },
  // __builtins__['exec'], __builtins__.__dict__[n], builtins.__dict__, vars(builtins)[n], globals()['__builtins__']
  {
    name: 'builtins_dict_access',
    re: /__builtins__\s*(\.\s*__dict__\s*)?\[|\bbuiltins\s*\.\s*__dict__|\bvars\s*\(\s*(__)?builtins(__)?\s*\)|\b(globals|locals|vars)\s*\(\s*\)\s*(\[|\.\s*get\s*\()/,
  },
  // a base64 (or similar) decode in the same text as exec/eval/compile, even when they are only named in a string
  { name: 'base64_exec', re: DECODERS, also: EXECUTORS },
  { name: 'dynamic_import', re: /\b__import__\b|\bimportlib\b|\bimport_module\b|\bimp\s*\.\s*load_\w+|\bexec_module\b/ },
  // os.system, or os with the attribute spelled as a string (getattr(os, "system"))
  { name: 'os_system', re: /\bos\s*\.\s*system\b|\bos\b[^\n]{0,80}['"]system['"]/ },
  { name: 'os_popen', re: /\bos\s*\.\s*popen\b|\bos\b[^\n]{0,80}['"]popen['"]/ },
];

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export function scanHeuristics(code: string): HeuristicFinding[] {
  const out: HeuristicFinding[] = [];
  for (const r of RULES) {
    const m = r.re.exec(code);
    if (!m) continue;
    if (r.also && !r.also.test(code)) continue;
    out.push({ name: r.name, line: lineOf(code, m.index) });
  }
  return out;
}
