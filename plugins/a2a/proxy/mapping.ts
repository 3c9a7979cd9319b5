import { isPayloadType, type PayloadType } from '../message.js';
import { bindExact } from '../../../core/json/exact.js';

/**
 * An A2A message → the payloads the guards check (issue 18). Both the A2A v0.3 part shape
 * (`{kind: "data", data}`, `{kind: "text", text}`) and the v1.0 one (`{data}`, `{text}`) are read.
 * Each data part is classified by what it holds: `claimed_total`/`line_items` → finance,
 * a string `code` → code, `assertions` → logic; `metadata.proofgate.payload_type` on the message
 * names the type for every data part instead (and, for `code_execution`, lets a text part be the
 * code). A message with no part a guard can read becomes one `general` item: passthrough,
 * unverifiable. The mapping is deterministic, so an inbound sidecar recomputes the same payloads
 * and compares their hashes with a vouching verdict.
 */
export interface VerificationItem {
  payloadType: PayloadType;
  payload: Record<string, unknown>;
}

export const MAX_PARTS = 64;
export const MAX_ITEMS = 16;

export type MappedMessage = { ok: true; items: VerificationItem[]; metadata: Record<string, unknown> } | { ok: false; reason: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** the proofgate section of a message's metadata (v0.3 and v1.0 both carry `metadata` as an object) */
export function proofgateMetadata(message: Record<string, unknown>): Record<string, unknown> {
  const m = message.metadata;
  return isObject(m) && isObject(m.proofgate) ? m.proofgate : {};
}

/** the members that hold a part's content, in either version (v1.0: text, raw, url, data; v0.3: text, file, data) */
const CONTENT = ['text', 'data', 'file', 'raw', 'url'] as const;
const KIND_MEMBER: Readonly<Record<string, string>> = { text: 'text', data: 'data', file: 'file' };

/**
 * Why a part cannot be read one way only, or null. The guards and the peer must read the same
 * content: the official SDK's v1.0 reader ignores `kind` and takes the first of text, raw, url, data
 * that is set (and makes any text a string), its v0.3 reader goes by `kind` alone. A part with two
 * contents, a `kind` that names another content or none A2A knows, or a text that is not a string
 * would be judged as one thing and delivered as another.
 */
function ambiguity(p: Record<string, unknown>): string | null {
  const held = CONTENT.filter((k) => Object.hasOwn(p, k));
  if (held.length > 1) return `a part holds more than one content (${held.join(', ')})`;
  if (p.kind !== undefined) {
    const member = typeof p.kind === 'string' && Object.hasOwn(KIND_MEMBER, p.kind) ? KIND_MEMBER[p.kind] : undefined;
    if (!member) return 'a part has a kind other than text, data or file';
    if (held.length === 1 && held[0] !== member) return `a part of kind ${p.kind as string} holds ${held[0]}`;
  }
  if (Object.hasOwn(p, 'text') && typeof p.text !== 'string') return 'a text part must hold a string';
  return null;
}

/**
 * The sender id a message names: `metadata.proofgate.sender_agent_id` of the message or of `params`.
 * A name that is there must be a non-empty string, and the two must agree: otherwise the verdict
 * would be issued for one sender (or for the credential's own id) while the forwarded message names
 * another, the silent re-attribution docs/a2a-proxy.md rules out.
 */
export function namedSender(message: unknown, params: Record<string, unknown>): { ok: true; id: string | undefined } | { ok: false; reason: string } {
  const names = [isObject(message) ? proofgateMetadata(message).sender_agent_id : undefined, proofgateMetadata(params).sender_agent_id].filter((n) => n !== undefined);
  if (names.some((n) => typeof n !== 'string' || n === '')) return { ok: false, reason: 'metadata.proofgate.sender_agent_id must be a non-empty string' };
  if (names.length === 2 && names[0] !== names[1]) return { ok: false, reason: 'the message and params name different senders' };
  return { ok: true, id: names[0] as string | undefined };
}

function partData(p: Record<string, unknown>): Record<string, unknown> | undefined {
  if (p.kind === 'data' || (p.kind === undefined && 'data' in p)) return isObject(p.data) ? p.data : undefined;
  return undefined;
}

function partText(p: Record<string, unknown>): string | undefined {
  if (p.kind === 'text' || (p.kind === undefined && 'text' in p)) return typeof p.text === 'string' ? p.text : undefined;
  return undefined;
}

function classify(data: Record<string, unknown>): PayloadType | null {
  if ('claimed_total' in data || 'line_items' in data) return 'financial_transaction';
  if (typeof data.code === 'string') return 'code_execution';
  if ('assertions' in data) return 'logic_assertion';
  return null;
}

function payloadFor(type: PayloadType, data: Record<string, unknown>): Record<string, unknown> {
  switch (type) {
    case 'financial_transaction':
      return { data };
    case 'code_execution':
      return { code: data.code, ...(data.language !== undefined ? { language: data.language } : {}) };
    case 'logic_assertion':
      return { assertions: data.assertions };
    default:
      return data;
  }
}

/**
 * `raw`: the JSON-RPC request body as received. A data part's object is bound to its place in it
 * (params.message.parts[i].data), so the finance guard reads claimed numbers as written, not as doubles.
 */
export function mapMessage(message: unknown, raw: Buffer | null = null): MappedMessage {
  if (!isObject(message)) return { ok: false, reason: 'params.message must be an object' };
  const parts = message.parts;
  if (!Array.isArray(parts) || parts.length === 0) return { ok: false, reason: 'params.message.parts must be a non-empty list' };
  if (parts.length > MAX_PARTS) return { ok: false, reason: `at most ${MAX_PARTS} parts` };
  const meta = proofgateMetadata(message);
  if (meta.payload_type !== undefined && !isPayloadType(meta.payload_type)) return { ok: false, reason: 'metadata.proofgate.payload_type is not a payload type' };
  const explicit = meta.payload_type as PayloadType | undefined;

  const items: VerificationItem[] = [];
  const texts: string[] = [];
  for (const [i, part] of parts.entries()) {
    if (!isObject(part)) return { ok: false, reason: 'every part must be an object' };
    const ambiguous = ambiguity(part);
    if (ambiguous) return { ok: false, reason: ambiguous };
    const data = partData(part);
    if (data) {
      bindExact(data, raw, ['params', 'message', 'parts', i, 'data']);
      const type = explicit ?? classify(data);
      if (type) items.push({ payloadType: type, payload: payloadFor(type, data) });
      continue;
    }
    const text = partText(part);
    if (text !== undefined) texts.push(text);
  }
  if (explicit === 'code_execution' && items.length === 0 && texts.length > 0) {
    items.push({ payloadType: 'code_execution', payload: { code: texts.join('\n'), ...(typeof meta.language === 'string' ? { language: meta.language } : {}) } });
  }
  if (items.length > MAX_ITEMS) return { ok: false, reason: `at most ${MAX_ITEMS} verifiable parts` };
  if (items.length === 0) {
    // nothing a guard can read: one passthrough item; its payload is only hashed, never judged
    items.push({ payloadType: explicit ?? 'general', payload: { parts: parts as unknown[] } });
  }
  return { ok: true, items, metadata: meta };
}
