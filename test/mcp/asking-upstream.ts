import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * An MCP server (the official SDK's) with one tool, `confirm`, that asks the client a question with no
 * related request, so the SDK sends it on the standalone GET stream or nowhere (get-order tests).
 * `holdGets`: its front holds GETs until the tool has asked (or 1 s), forever, or not at all.
 */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export type HoldGets = 'until-asked' | 'forever' | 'no';

export async function askingUpstream(o: { holdGets: HoldGets }) {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let asked!: () => void;
  const askedP = new Promise<void>((r) => (asked = r));
  let getArrived!: () => void;
  const getArrivedP = new Promise<void>((r) => (getArrived = r));
  const answers: string[] = [];
  const server = () => {
    const s = new Server({ name: 'asking', version: '1.0.0' }, { capabilities: { tools: {} } });
    s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'confirm', description: 'Asks the user to confirm.', inputSchema: { type: 'object' as const } }] }));
    s.setRequestHandler(CallToolRequestSchema, async () => {
      // no relatedRequestId: the SDK puts the question on the standalone stream
      const question = s.elicitInput({ message: 'Proceed?', requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } } }, { timeout: 3_000 });
      // the SDK has sent it (or found no stream) once its send has run
      setImmediate(asked);
      try {
        const r = await question;
        answers.push(String(r.content?.answer));
        return { content: [{ type: 'text' as const, text: `answered: ${String(r.content?.answer)}` }] };
      } catch {
        answers.push('none');
        return { content: [{ type: 'text' as const, text: 'unanswered' }] };
      }
    });
    return s;
  };
  const gets: Array<() => void> = [];
  let getCount = 0;
  const http = createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'] as string | undefined;
    if (req.method === 'GET') {
      getCount++;
      getArrived();
      if (o.holdGets === 'forever') {
        // never answered: the proxy's wait for it has a bound
        gets.push(() => res.destroy());
        return;
      }
      if (o.holdGets === 'until-asked') {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([askedP, new Promise<void>((r) => (timer = setTimeout(r, 1_000)))]);
        clearTimeout(timer);
      }
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    let tr = sid ? transports.get(sid) : undefined;
    if (!tr && req.method === 'POST' && isInitializeRequest(body)) {
      tr = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, tr!) });
      await server().connect(tr);
    }
    if (!tr) {
      res.writeHead(404).end();
      return;
    }
    await tr.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    answers,
    getArrived: getArrivedP,
    get getCount() {
      return getCount;
    },
    async close() {
      for (const g of gets) g();
      for (const tr of transports.values()) await tr.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

