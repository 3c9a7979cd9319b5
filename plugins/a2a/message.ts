import type { A2AAgentMessage, A2AVerdictResponse } from '../../schemas/gen/index.js';

/**
 * The A2A wire shapes. Validation of an AgentMessage is the ajv schema
 * schemas/a2a/agent-message.json (applied by the kernel before the handler runs); this module holds
 * the types and the few checks a schema cannot express.
 */
export type PayloadType = NonNullable<A2AAgentMessage['payload_type']>;
export const PAYLOAD_TYPES = ['financial_transaction', 'logic_assertion', 'code_execution', 'general', 'data_query'] as const satisfies readonly PayloadType[];
// a payload type the schema adds is a compile error here until it is listed above
export const EVERY_PAYLOAD_TYPE_LISTED: [Exclude<PayloadType, (typeof PAYLOAD_TYPES)[number]>] extends [never] ? true : never = true;

/**
 * schemas/a2a/agent-message.json, generated (schemas/gen/a2a.gen.ts), as the handlers hold it:
 * payload_type is optional on the wire but the schema's default (`general`) is filled in by the
 * validator before any handler runs, and the schema's objects (payload, metadata), which
 * json-schema-to-typescript spells `{}`, are records whose fields can be read.
 */
export type AgentMessage = Omit<A2AAgentMessage, 'payload_type' | 'payload' | 'metadata'> & {
  payload_type: PayloadType;
  payload: Record<string, unknown>;
  metadata?: Record<string, unknown>;
};

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
