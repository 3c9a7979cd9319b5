import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Fake language-model servers on 127.0.0.1 (port 0) for tests: an OpenAI-compatible
 * `/v1/chat/completions` and an Anthropic `/v1/messages`. Each request is recorded; the reply is
 * whatever the test's `respond` decides (content text, an HTTP status, a delay, raw bytes).
 */
export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type Behaviour =
  | { content: string }
  | { status: number; raw?: string }
  | { delayMs: number; content: string }
  | { raw: string }
  | { bytes: number };

export interface FakeLlm {
  url: string;
  requests: Recorded[];
  respond: (req: Recorded) => Behaviour;
  close(): Promise<void>;
}

function envelope(kind: 'openai' | 'anthropic', content: string): unknown {
  return kind === 'openai'
    ? { id: 'chatcmpl-test', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }
    : { id: 'msg_test', type: 'message', role: 'assistant', content: [{ type: 'text', text: content }], stop_reason: 'end_turn' };
}

export async function startFakeLlm(kind: 'openai' | 'anthropic', respond: FakeLlm['respond']): Promise<FakeLlm> {
  const fake: FakeLlm = { url: '', requests: [], respond, close: async () => undefined };
  const expectedPath = kind === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = null;
      }
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      fake.requests.push(rec);
      if (rec.url !== expectedPath) {
        res.writeHead(404).end();
        return;
      }
      const b = fake.respond(rec);
      const send = (status: number, text: string) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      };
      if ('bytes' in b) send(200, JSON.stringify({ pad: 'x'.repeat(b.bytes) }));
      else if ('status' in b) send(b.status, b.raw ?? JSON.stringify({ error: { message: 'upstream says no; secret sk-should-not-leak' } }));
      else if ('delayMs' in b) setTimeout(() => send(200, JSON.stringify(envelope(kind, b.content))), b.delayMs).unref();
      else if ('raw' in b) send(200, b.raw);
      else send(200, JSON.stringify(envelope(kind, b.content)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = kind === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/** a math translation as a model would write it */
export const mathJson = (expression: string | null, claimed: number | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ is_math: expression !== null, expression, claimed_answer: claimed, reasoning: 'read as arithmetic', confidence: 0.8, ...extra });
