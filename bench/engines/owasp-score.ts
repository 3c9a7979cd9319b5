/**
 * How `code-owasp` scores one case. OWASP's scorecard counts a tool's result for a test case only
 * when the result's CWE is the case's CWE: a codeinj case that is safe for code injection but
 * writes request data unescaped into its page is a true negative for codeinj (the XSS is its own,
 * unscored, finding). The admission (any blocking finding) is scored beside it, because that is
 * what a gateway caller sees.
 */
export interface CaseVerdict {
  status?: string;
  admission?: string;
  developer_fields?: { vulnerabilities?: { rule_id: string; severity: string; cwe?: number; line: number; message?: string }[] };
}

/** CWEs of the benchmark's categories (its expected results give the same numbers). */
export const CATEGORY_CWE: Record<string, number> = {
  cmdi: 78, codeinj: 94, deserialization: 502, sqli: 89, pathtraver: 22, xss: 79, xpathi: 643,
  ldapi: 90, xxe: 611, redirect: 601, hash: 328, weakrand: 330, securecookie: 614, trustbound: 501,
};

/**
 * A presence rule carries no `cwe` field; its family says which weakness it proves. Rules in no
 * family (secrets, dunder access, imports) count for no category.
 */
const FAMILIES: [RegExp, number][] = [
  [/^\w+\.(process|shell)\./, 78],
  [/^\w+\.(dangerous_call\.(eval|exec|compile|function|vm|code_string)|code_injection\.)/, 94],
  [/^\w+\.deserialization\./, 502],
  [/^\w+\.sql_injection\./, 89],
  [/^\w+\.xss\./, 79],
];

const BLOCKING = new Set(['CRITICAL', 'HIGH']);

/** The CWE a finding proves, or `'any'` for one that proves nothing safe (the step budget ran out). */
export function findingCwe(f: { rule_id: string; cwe?: number }): number | 'any' | null {
  if (typeof f.cwe === 'number') return f.cwe;
  if (/^\w+\.flow\.undecided$/.test(f.rule_id)) return 'any';
  for (const [re, cwe] of FAMILIES) if (re.test(f.rule_id)) return cwe;
  return null;
}

/**
 * `byCwe`: flagged for the case's own class (a verdict that is not VERIFIED — parse error, timeout,
 * budget — flags every class: nothing was proven); `byAdmission`: not admitted at all.
 */
export function scoreCase(v: CaseVerdict, category: string): { byCwe: boolean; byAdmission: boolean } {
  const byAdmission = v.admission !== 'ADMIT';
  if (v.status !== 'VERIFIED') return { byCwe: byAdmission, byAdmission };
  const want = CATEGORY_CWE[category];
  const byCwe = (v.developer_fields?.vulnerabilities ?? []).some((f) => {
    if (!BLOCKING.has(f.severity)) return false;
    const cwe = findingCwe(f);
    return cwe === 'any' || cwe === want;
  });
  return { byCwe, byAdmission };
}
