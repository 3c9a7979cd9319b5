import type { A2AVerdictResponse } from '../../schemas/gen/a2a.gen.js';

/**
 * The A2A wire shapes. Validation of an AgentMessage is the ajv schema
 * schemas/a2a/agent-message.json (applied by the kernel before the handler runs); this module holds
 * the types and the few checks a schema cannot express.
 */
export const PAYLOAD_TYPES = ['financial_transaction', 'logic_assertion', 'code_execution', 'general', 'data_query'] as const;
export type PayloadType = (typeof PAYLOAD_TYPES)[number];

export interface AgentMessage {
  sender_agent_id: string;
  receiver_agent_id: string;
  payload_type: PayloadType;
  payload: Record<string, unknown>;
  timestamp: string;
  signature?: string;
  metadata?: Record<string, unknown>;
}

/** schemas/a2a/verdict.response.json, generated (schemas/gen/a2a.gen.ts): the shape the API serves and the client reads */
export type VerdictStatus = A2AVerdictResponse['status'];

// the schema's `details` is an object; json-schema-to-typescript spells that `{}`, which no field can be read from
export type VerificationVerdict = Omit<A2AVerdictResponse, 'details'> & { details: Record<string, unknown> | null };

/** The same rules the schema applies to agent ids, for ids that arrive through configuration. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
export function isValidAgentId(id: unknown): id is string {
  if (typeof id !== 'string') return false;
  const length = [...id].length; // code points, as JSON Schema's maxLength counts
  return length >= 1 && length <= 256 && !CONTROL.test(id);
}

export function isPayloadType(v: unknown): v is PayloadType {
  return typeof v === 'string' && (PAYLOAD_TYPES as readonly string[]).includes(v);
}

/** RFC 3339 with an explicit UTC offset (`Z` or `+00:00`): the spec's "timezone-aware UTC". */
export const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|\+00:00)$/;
