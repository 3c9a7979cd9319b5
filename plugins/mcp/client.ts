import { parseStrictJson } from '../../core/json/strict.js';
import { tracedClient } from '../../core/obs/tracing.js';
import { mediaType } from './answer.js';
import { SseParser } from './sse.js';

/**
 * The few MCP client steps the offline scan needs, over Streamable HTTP with plain fetch: initialize,
 * the initialized notification, every page of tools/list, then end the session. Answers may be JSON
 * or an SSE stream; the message with the request's id is the answer.
 */
export const SCAN_PROTOCOL_VERSION = '2025-06-18';
const MAX_PAGES = 100;

export class McpClientError extends Error {}

interface Session {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  sid?: string;
  protocol?: string;
}

async function post(s: Session, message: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  const headers: Record<string, string> = { ...s.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (s.sid) headers['mcp-session-id'] = s.sid;
  if (s.protocol) headers['mcp-protocol-version'] = s.protocol;
  let res: Response;
  let text: string;
  try {
    res = await tracedClient('mcp POST', s.url, headers, () => fetch(s.url, { method: 'POST', headers, body: JSON.stringify(message), signal: AbortSignal.timeout(s.timeoutMs) }));
    text = await res.text();
  } catch (err) {
    throw new McpClientError(`${s.url}: ${(err as Error).name === 'TimeoutError' ? `no answer within ${s.timeoutMs} ms` : 'cannot be reached'}`);
  }
  if (!res.ok) throw new McpClientError(`${s.url}: HTTP ${res.status} to ${String(message.method)}`);
  const sid = res.headers.get('mcp-session-id');
  if (sid) s.sid = sid;
  if (message.id === undefined) return null;
  const candidates: unknown[] = [];
  // strict, as the proxy reads answers: the scan pins what it parsed, so it must be what every client parses
  const parse = (json: string) => {
    const p = parseStrictJson(json);
    if (!p.ok) throw new McpClientError(`${s.url}: the answer to ${String(message.method)} is ${p.reason}`);
    candidates.push(p.value);
  };
  if (mediaType(res.headers.get('content-type')) === 'text/event-stream') {
    const p = new SseParser();
    for (const ev of [...p.push(text), ...p.end()]) if (ev.data) parse(ev.data);
  } else parse(text);
  const answer = candidates.flat().find((m) => m && typeof m === 'object' && (m as { id?: unknown }).id === message.id) as Record<string, unknown> | undefined;
  if (!answer) throw new McpClientError(`${s.url}: no answer to ${String(message.method)}`);
  if (answer.error) throw new McpClientError(`${s.url}: ${String(message.method)} failed: ${JSON.stringify(answer.error).slice(0, 300)}`);
  return (answer.result ?? {}) as Record<string, unknown>;
}

/** Every tool the server lists (all pages). */
export async function listTools(url: string, headers: Record<string, string>, timeoutMs: number): Promise<unknown[]> {
  const s: Session = { url, headers, timeoutMs };
  const init = await post(s, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: SCAN_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'proofgate-mcp-scan', version: '1.0.0' } } });
  s.protocol = typeof init?.protocolVersion === 'string' ? init.protocolVersion : SCAN_PROTOCOL_VERSION;
  await post(s, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await post(s, { jsonrpc: '2.0', id: 2 + page, method: 'tools/list', params: cursor ? { cursor } : {} });
    if (!r || !Array.isArray(r.tools)) throw new McpClientError(`${url}: tools/list answered without a tools array`);
    tools.push(...r.tools);
    cursor = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  if (s.sid) {
    const h: Record<string, string> = { ...headers, 'mcp-session-id': s.sid };
    await fetch(url, { method: 'DELETE', headers: h, signal: AbortSignal.timeout(timeoutMs) }).then((r) => r.body?.cancel(), () => undefined);
  }
  return tools;
}

/** A saved tools/list: the result object, a whole JSON-RPC response, or a bare array of tools. */
export function toolsFromSaved(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (!value || typeof value !== 'object') return null;
  const v = value as { tools?: unknown; result?: { tools?: unknown } };
  if (Array.isArray(v.tools)) return v.tools;
  if (v.result && Array.isArray(v.result.tools)) return v.result.tools;
  return null;
}
