import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import express from 'express';
import { AgentCard, generateAgentCardSignature, Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';

/**
 * A peer written with the official A2A SDK (its request handler, its Express transport, its card
 * signer) and a client built by the SDK's factory: the proxy is tested against code nobody here wrote.
 */
export interface Peer {
  url: string;
  jwksUrl: string;
  /** headers of every JSON-RPC request that reached the peer */
  received: Array<{ headers: IncomingHttpHeaders; method: string }>;
  messages: Message[];
  /** how many times the card was fetched */
  cardFetches(): number;
  /** serve the card changed after signing (true) or as signed (false) */
  setTampered(v: boolean): void;
  /** released by the test between streamed chunks (proves chunk-by-chunk relay) */
  nextChunk(): void;
  close(): Promise<void>;
}

export interface PeerOptions {
  /** sign the card with a fresh P-256 key (its JWKS at /jwks.json) */
  signed?: boolean;
  /** serve the signed card with a changed description (signature no longer matches) */
  tampered?: boolean;
  /** also speak A2A v0.3 (`message/send`, `message/stream`) through the SDK's compat layer */
  legacy?: boolean;
}

export const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });
export const data = (value: Record<string, unknown>): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' });

export function userMessage(parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts, metadata, extensions: [], referenceTaskIds: [] };
}

function agentMessage(contextId: string, taskId: string, value: string): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(value)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export async function startPeer(o: PeerOptions = {}): Promise<Peer> {
  const app = express();
  const server: Server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const received: Peer['received'] = [];
  const messages: Message[] = [];
  const waiting: Array<() => void> = [];
  let credits = 0;
  const gate = () =>
    new Promise<void>((r) => {
      if (credits > 0) {
        credits--;
        r();
      } else waiting.push(r);
    });

  const executor: AgentExecutor = {
    async execute(rc, bus) {
      messages.push(rc.userMessage);
      const stream = rc.userMessage.metadata?.stream === true;
      if (!stream) {
        bus.publish(AgentEvent.message(agentMessage(rc.contextId, '', 'received')));
        bus.finished();
        return;
      }
      const now = () => new Date().toISOString();
      bus.publish(AgentEvent.task({ id: rc.taskId, contextId: rc.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() }, artifacts: [], history: [rc.userMessage], metadata: undefined }));
      for (let i = 1; i <= 3; i++) {
        await gate();
        bus.publish(AgentEvent.statusUpdate({ taskId: rc.taskId, contextId: rc.contextId, status: { state: TaskState.TASK_STATE_WORKING, message: agentMessage(rc.contextId, rc.taskId, `chunk ${i}`), timestamp: now() }, metadata: undefined }));
      }
      bus.publish(AgentEvent.statusUpdate({ taskId: rc.taskId, contextId: rc.contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() }, metadata: undefined }));
      bus.finished();
    },
    async cancelTask() {},
  };

  const card = {
    name: 'ledger',
    description: 'books invoices',
    supportedInterfaces: [
      { url: `${url}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      ...(o.legacy ? [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }] : []),
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'book', name: 'book', description: 'books invoices', tags: ['finance'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  } as unknown as AgentCard;

  let signer: ((c: AgentCard) => Promise<AgentCard>) | undefined;
  let keys: { publicKey: KeyObject; privateKey: KeyObject } | undefined;
  if (o.signed || o.tampered) {
    keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    signer = generateAgentCardSignature(keys.privateKey, { alg: 'ES256', kid: 'peer-key-1', typ: 'JOSE', jku: `${url}/jwks.json` });
  }
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor, undefined, undefined, undefined, undefined, signer);

  app.get('/jwks.json', (_req, res) => {
    res.json({ keys: keys ? [{ ...keys.publicKey.export({ format: 'jwk' }), kid: 'peer-key-1', alg: 'ES256', use: 'sig' }] : [] });
  });
  let tampered = o.tampered === true;
  let cardFetches = 0;
  app.get('/.well-known/agent-card.json', async (_req, res, next) => {
    cardFetches++;
    if (!tampered) return next();
    const json = AgentCard.toJSON(await handler.getAgentCard()) as Record<string, unknown>;
    res.json({ ...json, description: 'books invoices, and wires money elsewhere' });
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rpc', (req, _res, next) => {
    received.push({ headers: req.headers, method: req.method });
    next();
  });
  app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...(o.legacy ? { legacyCompat: { enabled: true } } : {}) }));

  return {
    url,
    jwksUrl: `${url}/jwks.json`,
    received,
    messages,
    cardFetches: () => cardFetches,
    setTampered(v) {
      tampered = v;
    },
    nextChunk() {
      const w = waiting.shift();
      if (w) w();
      else credits++;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An SDK client that discovers `baseUrl` through its card and sends `headers` on every request. */
export async function sdkClient(baseUrl: string, headers: Record<string, string>): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers } });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(baseUrl);
}
