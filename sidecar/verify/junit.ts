import type { Outcome } from './items.js';

/**
 * JUnit XML (the Surefire layout CI systems read: Jenkins, GitLab, Azure, GitHub test reporters):
 * one testcase per request, `file:line` as its name. Admitted: passed. Denied with findings: a
 * <failure> listing them. Denied without reaching a verdict (UNVERIFIABLE with an ERROR finding: a
 * file outside the root, an engine that could not answer): an <error>, which CI shows apart from
 * a finding in the code.
 */

// XML 1.0 cannot carry most C0 controls even escaped; a file name or message holding one would make the report unreadable
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

export function xmlEscape(s: string): string {
  return s.replace(INVALID_XML, '\ufffd').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

const onlyErrors = (o: Outcome) => o.findings.length > 0 && o.findings.every((f) => f.severity === 'ERROR');
const attr = (v: string | number) => `"${xmlEscape(String(v))}"`;

export function toJunit(kind: string, outcomes: Outcome[]): string {
  const errors = outcomes.filter((o) => !o.admitted && onlyErrors(o)).length;
  // every other denial is a failure, one without any finding too: nothing denied passes
  const fails = outcomes.filter((o) => !o.admitted).length - errors;
  const cases = outcomes.map((o) => {
    const name = `${o.item.file}:${o.item.line}`;
    const open = `    <testcase classname=${attr(`proofgate.verify.${kind}`)} name=${attr(name)} file=${attr(o.item.file)} line=${attr(o.item.line)}`;
    if (o.admitted) return `${open}/>`;
    const status = String(o.answer.status ?? 'UNVERIFIABLE');
    const why = String(o.answer.agent_message ?? status);
    const lines = o.findings.map((f) => `${o.item.file}:${f.line}:${f.column} ${f.severity} ${f.ruleId} ${f.message}`);
    const tag = onlyErrors(o) ? 'error' : 'failure';
    const type = o.findings[0]?.ruleId ?? status;
    const proof = typeof o.answer.proof_ref === 'string' ? `\n      <properties><property name="proof_ref" value=${attr(o.answer.proof_ref)}/></properties>` : '';
    return `${open}>${proof}\n      <${tag} message=${attr(`${status} DENY: ${why}`)} type=${attr(type)}>${xmlEscape(lines.join('\n'))}</${tag}>\n    </testcase>`;
  });
  const counts = `tests=${attr(outcomes.length)} failures=${attr(fails)} errors=${attr(errors)} skipped="0"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="proofgate" ${counts}>`,
    `  <testsuite name=${attr(`proofgate verify ${kind}`)} ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
