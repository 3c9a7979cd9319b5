/**
 * Deterministic screening of agent requests: pure functions over text, no I/O. Every detector is a
 * pattern over raw text, so by decisions §1 a pass is never a proof — the route reports it as
 * UNVERIFIABLE with these checks listed as advisory — while a hit is a policy block (403).
 */
import type { McpFinding } from '../../schemas/gen/index.js';
import { base64Text } from './base64-text.js';

/**
 * One detector hit: `detector` is also the advisory check's `name`; `details` says what matched
 * without echoing the secret itself. The MCP plugin serves these as they are (tool findings, pins),
 * so the type is that wire shape: schemas/mcp/finding.json, generated (schemas/gen/mcp.gen.ts).
 */
export type Finding = McpFinding;

export const CONSTRAINTS = {
  credential: 'agents.exfiltration.credential',
  bulkPii: 'agents.exfiltration.bulk_pii',
  externalTransfer: 'agents.exfiltration.external_transfer',
  invisible: 'agents.poisoning.invisible_characters',
  hiddenInstruction: 'agents.poisoning.hidden_instruction',
  fileAccess: 'agents.poisoning.file_access',
  schemaExfiltration: 'agents.poisoning.exfiltration',
} as const;

/** Bulk PII thresholds: fewer items than these is an ordinary mention, at or above is a dump. */
export const PII_THRESHOLDS = { emails: 5, ssns: 3, cards: 3, combined: 6 } as const;

const CREDENTIALS: Array<[string, RegExp]> = [
  ['AWS access key id', /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/],
  ['AWS secret access key', /aws_?secret_?access_?key["'\s]*[:=]\s*["']?[A-Za-z0-9/+]{40}\b/i],
  ['private key block', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  ['JSON Web Token', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/],
  ['proofgate key or agent token', /\bsvc_(?:[a-z]+_)?[A-Za-z0-9_-]{24,}/],
  ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{36,}\b/],
  ['Slack token', /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
];

/**
 * Credentials and secrets in `text`: one finding per kind that occurs, read as written and inside
 * base64 (or base64url) runs that decode to text, since encoding a key is the cheapest way past a
 * pattern. Two levels of encoding are opened; a run that decodes to binary is not text to read.
 */
export function detectCredentials(text: string): Finding[] {
  const found = new Map<string, string>();
  for (const [what, re] of CREDENTIALS) if (re.test(text)) found.set(what, `contains a ${what}`);
  // one pass of each pattern over everything decoded, not one per run: a text of many short runs
  // would otherwise cost a pattern scan per run on the event loop
  const decoded = base64Text(text, 2);
  if (decoded) for (const [what, re] of CREDENTIALS) if (!found.has(what) && re.test(decoded)) found.set(what, `contains a base64-encoded ${what}`);
  return [...found.values()].map((details) => ({ detector: 'credential_pattern', constraint_id: CONSTRAINTS.credential, details }));
}

/** Luhn checksum over a digit string: separates card numbers from other long numbers. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

// Bounded parts, and the local part may only start where a run of its characters starts: without
// the lookbehind a long run with no '@' would be rescanned from every position (quadratic).
const EMAIL_SRC = String.raw`(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}`;
const EMAIL = new RegExp(EMAIL_SRC, 'g');
const SSN = /\b(\d{3})-(\d{2})-(\d{4})\b/g;
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;

export function countPii(text: string): { emails: number; ssns: number; cards: number } {
  const emails = new Set((text.match(EMAIL) ?? []).map((e) => e.toLowerCase())).size;
  const ssns = new Set<string>();
  for (const m of text.matchAll(SSN)) {
    // area 000, 666 and 9xx, group 00 and serial 0000 are never issued
    if (m[1] === '000' || m[1] === '666' || m[1].startsWith('9') || m[2] === '00' || m[3] === '0000') continue;
    ssns.add(m[0]);
  }
  const cards = new Set<string>();
  for (const m of text.matchAll(CARD)) {
    const digits = m[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && !/^(\d)\1+$/.test(digits) && luhnValid(digits)) cards.add(digits);
  }
  return { emails, ssns: ssns.size, cards: cards.size };
}

export function detectBulkPii(text: string): Finding[] {
  const c = countPii(text);
  const total = c.emails + c.ssns + c.cards;
  const over = c.emails >= PII_THRESHOLDS.emails || c.ssns >= PII_THRESHOLDS.ssns || c.cards >= PII_THRESHOLDS.cards || total >= PII_THRESHOLDS.combined;
  if (!over) return [];
  return [
    {
      detector: 'bulk_pii',
      constraint_id: CONSTRAINTS.bulkPii,
      details: `bulk personal data: ${c.emails} email addresses, ${c.ssns} US SSNs, ${c.cards} Luhn-valid card numbers`,
    },
  ];
}

// An instruction to send data out: "to"/"into"/"onto" followed closely by an external destination
// (a URL or an email address), with a sending verb earlier in the same sentence. The destination is
// found first and the verb looked for in a bounded window before it, so the cost stays linear in
// the text; the preposition keeps reading verbs and nouns ("the post at https://…") out of it.
const SEND_VERB = /\b(?:send|sends|sending|sent|post|posting|upload|uploading|forward|forwarding|transmit|transmitting|exfiltrat\w*|leak|leaking|e-?mail|beacon|dump|dumping|pipe|push|submit|copy|curl|wget)\b/i;
const DEST_URL = /\b(?:to|into|onto)\b[^\n!?]{0,40}?\b(?:https?|ftp|wss?):\/\/[^\s/"'<>]+/gi;
const DEST_EMAIL = new RegExp(String.raw`\b(?:to|into|onto)\b[^\n!?]{0,40}?` + EMAIL_SRC, 'gi');
const SENTENCE_END = /[\n!?]|\.\s/g;
const VERB_WINDOW = 160;

function sendVerbBefore(text: string, at: number): boolean {
  let w = text.slice(Math.max(0, at - VERB_WINDOW), at);
  let cut = -1;
  for (const m of w.matchAll(SENTENCE_END)) cut = m.index + m[0].length;
  if (cut >= 0) w = w.slice(cut);
  return SEND_VERB.test(w);
}

function sendsTo(text: string, dest: RegExp): boolean {
  for (const m of text.matchAll(dest)) if (sendVerbBefore(text, m.index)) return true;
  return false;
}
// shell transfers that carry data out whatever the wording around them
const SHELL_UPLOAD = /\b(?:curl|wget)\b[^\n]{0,200}?(?:\s-d\b|\s--data\S*|\s-F\b|\s--form\b|\s-T\b|\s--upload-file\b|\s--post-data\b|\s--post-file\b)/i;
// a markdown image whose URL carries a query string: rendered, it sends the data without a click
const MD_IMAGE_BEACON = /!\[[^\]\n]{0,200}\]\(\s*https?:\/\/[^)\s?]{1,2000}\?[^)\s]{0,2000}=/i;

export function detectExternalTransfer(text: string): Finding[] {
  const hits: string[] = [];
  if (text.includes('://') && sendsTo(text, DEST_URL)) hits.push('an instruction to send data to an external URL');
  if (text.includes('@') && sendsTo(text, DEST_EMAIL)) hits.push('an instruction to send data to an email address');
  if (SHELL_UPLOAD.test(text)) hits.push('a curl/wget upload');
  if (MD_IMAGE_BEACON.test(text)) hits.push('a markdown image beacon with a query string');
  return hits.map((details) => ({ detector: 'external_transfer', constraint_id: CONSTRAINTS.externalTransfer, details }));
}

/**
 * The text as a model reads it: compatibility forms folded (fullwidth letters, ＠, ：／／) and
 * invisible format characters (zero-width, bidi, tags, soft hyphen) removed. A zero-width space
 * inside "send" or an access key id hides nothing from a model, only from a pattern.
 */
export function readable(text: string): string {
  return text.normalize('NFKC').replace(/\p{Cf}/gu, '');
}

/** Runs `detect` over the raw text and, when it differs, over its readable form; each finding once. */
export function detectBoth(text: string, detect: (t: string) => Finding[]): Finding[] {
  const found = detect(text);
  const folded = readable(text);
  if (folded === text) return found;
  const have = new Set(found.map((f) => `${f.constraint_id}\0${f.details}`));
  return [...found, ...detect(folded).filter((f) => !have.has(`${f.constraint_id}\0${f.details}`))];
}

/** The exfiltration check that always runs on a query: credentials, bulk PII, external transfer. */
export function screenQuery(query: string): Finding[] {
  return detectBoth(query, (q) => [...detectCredentials(q), ...detectBulkPii(q), ...detectExternalTransfer(q)]);
}

export const QUERY_CHECKS = [
  { name: 'credential_pattern', constraint_id: CONSTRAINTS.credential },
  { name: 'bulk_pii', constraint_id: CONSTRAINTS.bulkPii },
  { name: 'external_transfer', constraint_id: CONSTRAINTS.externalTransfer },
] as const;

export const SCHEMA_CHECKS = [
  { name: 'invisible_characters', constraint_id: CONSTRAINTS.invisible },
  { name: 'hidden_instruction', constraint_id: CONSTRAINTS.hiddenInstruction },
  { name: 'file_access', constraint_id: CONSTRAINTS.fileAccess },
  { name: 'schema_exfiltration', constraint_id: CONSTRAINTS.schemaExfiltration },
] as const;

// zero-width and joiners, bidi controls, word joiner and invisible operators, BOM, soft hyphen,
// Mongolian vowel separator, combining grapheme joiner, Hangul fillers, and the Unicode tag block
// (text invisible to a reader, read by a model). Variation selectors carry hidden text the same way,
// one byte per selector: any of the supplement (E0100–E01EF, ideographic variants nobody writes in a
// tool definition) and a run of two or more of FE00–FE0F (an emoji takes one).
const INVISIBLE = /[\u00AD\u034F\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u3164\uFEFF\uFFA0]|[\uFE00-\uFE0F]{2}|[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/u;

const HIDDEN_INSTRUCTIONS: RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|preceding|system|all other)\b[^.\n]{0,20}\b(?:instructions?|prompts?|rules|messages|directions|guidelines)\b/i,
  /\b(?:do not|don't|dont|never)\s+(?:tell|inform|mention|reveal|show|notify|alert|let)\b[^.\n]{0,30}\buser\b/i,
  /\bwithout\s+(?:telling|informing|notifying|alerting)\b[^.\n]{0,20}\buser\b/i,
  /<\s*\/?\s*(?:important|system|secret|hidden|instructions?)\s*>/i,
  /\b(?:you must|you should|always)\b[^.\n]{0,40}\b(?:first|before)\b[^.\n]{0,60}\b(?:read|call|send|include|pass|run)\b/i,
  /\b(?:this is|these are)\s+(?:very\s+)?(?:important|critical)\b[^.\n]{0,40}\b(?:instructions?|must)\b/i,
  /\b(?:you are now|act as|pretend to be|new instructions)\b/i,
];

const SENSITIVE_FILE =
  /(?:~\/|\$HOME\/|\/home\/[^/\s]+\/|\/root\/)?\.(?:ssh\/|aws\/credentials|env\b|netrc|npmrc|pypirc|git-credentials|docker\/config\.json|kube\/config|cursor\/mcp\.json)|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\/etc\/(?:passwd|shadow|sudoers)\b|\bmcp\.json\b|\bcredentials\.json\b/i;
const READ_VERB = /\b(?:read|open|cat|load|include|attach|access|fetch|get|upload|send)\b/i;

/** values a tool definition is screened over; a larger one is flagged, never passed unread */
export const SCHEMA_NODE_BUDGET = 20_000;

/**
 * Every string in a JSON value, keys included (a poisoned property name is as visible to a model).
 * The walk stops once `budget.nodes` values are visited; a negative `budget.nodes` afterwards says
 * some were never reached.
 */
export function collectStrings(value: unknown, out: string[] = [], budget = { nodes: SCHEMA_NODE_BUDGET }): string[] {
  if (budget.nodes-- <= 0) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, out, budget);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      collectStrings(v, out, budget);
    }
  }
  return out;
}

/** Tool-definition poisoning: runs over every string of the schema. */
export function screenToolSchema(schema: unknown): Finding[] {
  const budget = { nodes: SCHEMA_NODE_BUDGET };
  const strings = collectStrings(schema, [], budget);
  const found = new Map<string, Finding>();
  const add = (f: Finding) => {
    if (!found.has(f.constraint_id)) found.set(f.constraint_id, f);
  };
  if (budget.nodes < 0) {
    // what the walk did not reach was not screened: padding ahead of an instruction must not hide it
    add({ detector: 'hidden_instruction', constraint_id: CONSTRAINTS.hiddenInstruction, details: `the definition holds more than ${SCHEMA_NODE_BUDGET} values, too many to screen` });
  }
  for (const s of strings) {
    const m = INVISIBLE.exec(s);
    if (m) {
      const cp = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      add({ detector: 'invisible_characters', constraint_id: CONSTRAINTS.invisible, details: `invisible character U+${cp} in the definition` });
    }
    const forms = [s, readable(s)];
    if (forms.some((x) => HIDDEN_INSTRUCTIONS.some((re) => re.test(x)))) {
      add({ detector: 'hidden_instruction', constraint_id: CONSTRAINTS.hiddenInstruction, details: 'instruction addressed to the model in the definition' });
    }
    if (forms.some((x) => SENSITIVE_FILE.test(x) && READ_VERB.test(x))) {
      add({ detector: 'file_access', constraint_id: CONSTRAINTS.fileAccess, details: 'instruction to read a sensitive file' });
    }
    if (detectBoth(s, (x) => [...detectExternalTransfer(x), ...detectCredentials(x)]).length) {
      add({ detector: 'schema_exfiltration', constraint_id: CONSTRAINTS.schemaExfiltration, details: 'instruction to send data out, or an embedded secret' });
    }
  }
  return [...found.values()];
}
