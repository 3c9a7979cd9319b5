import { createServer, request as httpRequest, type Server as HttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { isInitializeRequest, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The reference server the conformance suite's server scenarios are run against. The suite ships no
 * server of its own (only the scenario descriptions in its CLI), so this one is built from the
 * official SDK's McpServer with the tools, resources and prompts those descriptions name. It is the
 * same server direct and through proofgate: what differs between the two runs is only the proxy.
 */
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV_EMPTY = Buffer.from('RIFF$\u0000\u0000\u0000WAVEfmt \u0010\u0000\u0000\u0000\u0001\u0000\u0001\u0000D\u00ac\u0000\u0000\u0088X\u0001\u0000\u0002\u0000\u0010\u0000data\u0000\u0000\u0000\u0000', 'latin1').toString('base64');

function referenceServer(): McpServer {
  const s = new McpServer({ name: 'conformance-reference', version: '1.0.0' }, { capabilities: { logging: {}, completions: {}, resources: { subscribe: true } } });
  const text = (t: string) => ({ type: 'text' as const, text: t });
  s.registerTool('test_simple_text', { description: 'Returns simple text.' }, async () => ({ content: [text('This is a simple text response for testing.')] }));
  s.registerTool('test_image_content', { description: 'Returns an image.' }, async () => ({ content: [{ type: 'image', data: PNG_1PX, mimeType: 'image/png' }] }));
  s.registerTool('test_audio_content', { description: 'Returns audio.' }, async () => ({ content: [{ type: 'audio', data: WAV_EMPTY, mimeType: 'audio/wav' }] }));
  s.registerTool('test_embedded_resource', { description: 'Returns an embedded resource.' }, async () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));
  s.registerTool('test_multiple_content_types', { description: 'Returns mixed content.' }, async () => ({
    content: [
      text('Multiple content types test:'),
      { type: 'image', data: PNG_1PX, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ],
  }));
  s.registerTool('test_tool_with_logging', { description: 'Logs while it runs.' }, async (extra) => {
    for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
    }
    return { content: [text('Tool with logging executed successfully')] };
  });
  s.registerTool('test_error_handling', { description: 'Always fails.' }, async () => ({ isError: true, content: [text('This tool intentionally returns an error for testing')] }));
  s.registerTool('test_tool_with_progress', { description: 'Reports progress.' }, async (extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      for (const progress of [0, 50, 100]) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
    }
    return { content: [text(String(token ?? 'no-token'))] };
  });
  s.registerTool('test_sampling', { description: 'Asks the client to sample.', inputSchema: { prompt: z.string() } }, async ({ prompt }) => {
    const r = await s.server.createMessage({ messages: [{ role: 'user', content: text(prompt) }], maxTokens: 100 });
    const c = r.content as { type: string; text?: string };
    return { content: [text(`LLM response: ${c.type === 'text' ? c.text : ''}`)] };
  });
  s.registerTool('test_elicitation', { description: 'Asks the user.', inputSchema: { message: z.string() } }, async ({ message }) => {
    const r = await s.server.elicitInput({
      message,
      requestedSchema: { type: 'object', properties: { username: { type: 'string' }, email: { type: 'string' } }, required: ['username', 'email'] },
    });
    return { content: [text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
  });

  s.registerTool('test_elicitation_sep1034_defaults', { description: 'Asks the user, with defaults.' }, async () => {
    const r = await s.server.elicitInput({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', default: 30 },
          score: { type: 'number', default: 95.5 },
          status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', default: true },
        },
      },
    });
    return { content: [text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
  });

  // SEP-1330: the five enum shapes an elicitation schema may use
  s.registerTool('test_elicitation_sep1330_enums', { description: 'Asks the user to pick from enums.' }, async () => {
    const choices = (titles: string[], prefix: string) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
    const r = await s.server.elicitInput({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', oneOf: choices(['First Option', 'Second Option', 'Third Option'], 'value') },
          legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: { type: 'array', items: { anyOf: choices(['First Choice', 'Second Choice', 'Third Choice'], 'value') } },
        },
      },
    });
    return { content: [text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
  });

  // SEP-1699: the server ends the call's SSE stream before it answers (a transport with an event store
  // only; this one has none, so the answer comes on the stream) and the client comes back with GET
  s.registerTool('test_reconnection', { description: 'Closes its SSE stream mid-call.' }, async (extra) => {
    extra.closeSSEStream?.();
    return { content: [text('Reconnection test completed')] };
  });

  s.registerResource('static-text', 'test://static-text', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }));
  s.registerResource('static-binary', 'test://static-binary', { mimeType: 'image/png' }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_1PX }] }));
  s.registerResource('watched', 'test://watched-resource', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'watched' }] }));
  s.registerResource('template', new ResourceTemplate('test://template/{id}/data', { list: undefined }), { mimeType: 'application/json' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
  }));
  s.server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
  s.server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));

  s.registerPrompt('test_simple_prompt', { description: 'A simple prompt.' }, async () => ({ messages: [{ role: 'user', content: text('This is a simple prompt for testing.') }] }));
  s.registerPrompt('test_prompt_with_arguments', { description: 'A prompt with arguments.', argsSchema: { arg1: completable(z.string(), (v) => ['testValue1', 'testValue2'].filter((x) => x.startsWith(v ?? ''))), arg2: z.string() } }, async ({ arg1, arg2 }) => ({
    messages: [{ role: 'user', content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }],
  }));
  s.registerPrompt('test_prompt_with_embedded_resource', { description: 'A prompt with a resource.', argsSchema: { resourceUri: z.string() } }, async ({ resourceUri }) => ({
    messages: [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  }));
  s.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image.' }, async () => ({
    messages: [{ role: 'user', content: { type: 'image', data: PNG_1PX, mimeType: 'image/png' } }, { role: 'user', content: text('Please analyze the image above.') }],
  }));
  withRawTool(s, {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  });
  return s;
}

/**
 * A tool listed with its JSON Schema exactly as written (SEP-1613: `$schema`, `$defs`,
 * `additionalProperties` kept). McpServer derives every listed schema from zod, so the listing
 * handler it installed is wrapped to append this one; calling it answers as a tool with no handler.
 */
function withRawTool(s: McpServer, tool: { name: string; description: string; inputSchema: Record<string, unknown> }): void {
  const handlers = (s.server as unknown as { _requestHandlers: Map<string, (req: unknown, extra: unknown) => Promise<{ tools: unknown[] }>> })._requestHandlers;
  const list = handlers.get('tools/list');
  if (!list) throw new Error('McpServer installed no tools/list handler');
  handlers.set('tools/list', async (req, extra) => {
    const r = await list(req, extra);
    return { ...r, tools: [...r.tools, tool] };
  });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const t = Buffer.concat(chunks).toString('utf8');
  return t ? JSON.parse(t) : undefined;
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(http: HttpServer, path: string): Promise<Listening> {
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}${path}`,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** The reference server over Streamable HTTP, one SDK transport per session. */
export async function startReferenceServer(): Promise<Listening> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const sid = req.headers['mcp-session-id'];
      let tr = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!tr) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
          // resumable streams (priming events, a retry hint), as the SDK's examples serve them: the
          // suite's client sends its first call before its GET stream, which through the proxy
          // arrives a hop later, and a sampling request sent in between waited in this store for a
          // resume that never came (2 runs in ~40) until the proxy held the call for the GET
          // (plugins/mcp/stream-order.ts; docs/mcp.md)
          eventStore: new InMemoryEventStore(),
          // the Host check a local server needs against DNS rebinding
          enableDnsRebindingProtection: true,
          allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
        };
        await referenceServer().connect(created);
        tr = created;
      }
      await tr.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const l = await listen(http, '/mcp');
  const port = new URL(l.url).port;
  return {
    url: l.url,
    async close() {
      for (const tr of transports.values()) await tr.close().catch(() => {});
      await l.close();
    },
  };
}

/**
 * Forwards every request to `target` with `headers` added. The conformance CLI cannot send custom
 * headers and proofgate's MCP proxy takes the agent credential only as `x-agent-token`, so the suite
 * reaches proofgate through this; bodies and SSE streams are piped unchanged both ways.
 */
export async function startHeaderForwarder(target: string | string[], headers: Record<string, string>): Promise<Listening & { served: number[] }> {
  // several targets (replicas of shared mode): a session's request goes to another target than its
  // previous one (so every step of a session crosses replicas), a request without a session round robin
  const targets = (Array.isArray(target) ? target : [target]).map((u) => new URL(u));
  let next = 0;
  const lastOf = new Map<string, number>();
  const served = targets.map(() => 0);
  const http = createServer((req, res) => {
    const sid = req.headers['mcp-session-id'];
    const i = typeof sid === 'string' && lastOf.has(sid) ? ((lastOf.get(sid) as number) + 1) % targets.length : next++ % targets.length;
    if (typeof sid === 'string') lastOf.set(sid, i);
    served[i]++;
    const to = targets[i];
    const { host: _host, ...rest } = req.headers;
    const up = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: to.pathname, headers: { ...rest, ...headers } }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // a client that goes away must end proofgate's side too, or its stream slot stays taken
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  const l = await listen(http, targets[0].pathname);
  return { ...l, served };
}
