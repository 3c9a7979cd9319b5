import { sha256Ref } from '../../core/json/canonical.js';
import { screenToolSchema, type Finding } from '../agents/index.js';

/**
 * What a tool definition is, for pinning: the whole object the client receives, every member —
 * `title`, `outputSchema`, `_meta`, `icons`, `annotations` and any member a later MCP revision adds.
 * A client shows `title`, validates results against `outputSchema` and hands `_meta` and icons on;
 * a model may read any of them. Stripping what is not pinned would break clients that rely on those
 * members (structured output) and would have to track every new member; pinning all of them cannot
 * fall behind the spec (docs/mcp.md, "Pins").
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

/**
 * The pinned part: the definition as the client receives it (relayed re-serialised from this
 * parsed value, so nothing outside it reaches the client).
 */
export function pinnedPart(t: ToolDefinition): ToolDefinition {
  return t;
}

/**
 * `sha256:` over the RFC 8785 form of the whole definition. A pin taken before this form (over
 * `{name, description, inputSchema, annotations}`, absent ones as null) still matches exactly when
 * the definition was those four members and nothing else: then it pinned every byte the client sees.
 */
export function definitionHash(t: ToolDefinition): string {
  return sha256Ref(pinnedPart(t));
}

/** Poisoning screening of every string and key of the whole definition, at any depth. */
export function screenDefinition(t: ToolDefinition): Finding[] {
  return screenToolSchema(pinnedPart(t));
}

export type { Finding };
