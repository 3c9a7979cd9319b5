import { sha256Ref } from '../../core/canonical.js';
import { screenToolSchema, type Finding } from '../agents/index.js';

/**
 * What a tool definition is, for pinning: the four parts a model reads or a client relies on. Any
 * other member (`title`, `outputSchema`, `_meta`, …) may change without re-approval — the model is
 * steered by the description and the input schema, and annotations change how a client treats it.
 */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: unknown;
  [k: string]: unknown;
}

export function isToolDefinition(v: unknown): v is ToolDefinition {
  return !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { name?: unknown }).name === 'string';
}

/** The pinned part; absent members are null so "missing" and "removed" hash the same way every time. */
export function pinnedPart(t: ToolDefinition) {
  return { name: t.name, description: t.description ?? null, inputSchema: t.inputSchema ?? null, annotations: t.annotations ?? null };
}

/** `sha256:` over the RFC 8785 form of name, description, inputSchema and annotations. */
export function definitionHash(t: ToolDefinition): string {
  return sha256Ref(pinnedPart(t));
}

/** Poisoning screening of the pinned part (the agents plugin's detectors, every string and key). */
export function screenDefinition(t: ToolDefinition): Finding[] {
  return screenToolSchema(pinnedPart(t));
}

export type { Finding };
