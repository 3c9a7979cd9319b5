import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import express from 'express';
import { AgentCard, generateAgentCardSignature, Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore, type AgentExecutor, type PushNotificationSender } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { text } from './a2a-peer.js';

/**
 * A reference A2A peer for every task method, built only from the official SDK's server pieces:
 * its request handler, in-memory task and push-config stores, its Express JSON-RPC transport (1.0
 * and, through its compat layer, v0.3), its HTTP+JSON transport at /rest, its card signer and an extended card. A message with
 * `metadata.hold` starts a task that stays WORKING until `release(taskId)` (for subscribe and
 * cancel); any other message completes a task at once with one artifact, the agent's output.
 * Push notifications are recorded, never sent.
 */
export interface TaskPeer {
  url: string;
  jwksUrl: string;
  received: Array<{ headers: IncomingHttpHeaders; body: { method?: string; params?: unknown } }>;
  /** requests to the HTTP+JSON transport at /rest: method, path (query included) and headers */
  restReceived: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  cardRequests: IncomingHttpHeaders[];
  release(taskId: string): void;
  close(): Promise<void>;
}

const agentMessage = (contextId: string, taskId: string, value: string): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [text(value)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** `restOnly`: the card declares the HTTP+JSON interface alone (a peer a JSON-RPC client cannot reach) */
export async function startTaskPeer(o: { restOnly?: boolean } = {}): Promise<TaskPeer> {
  const app = express();
  app.use(express.json());
  const server: Server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const received: TaskPeer['received'] = [];
  const cardRequests: IncomingHttpHeaders[] = [];
  const held = new Map<string, () => void>();
  const early = new Set<string>();
  const now = () => new Date().toISOString();

  const executor: AgentExecutor = {
    async execute(rc, bus) {
      const task = (state: TaskState): Task => ({ id: rc.taskId, contextId: rc.contextId, status: { state, message: undefined, timestamp: now() }, artifacts: [], history: [rc.userMessage], metadata: undefined });
      bus.publish(AgentEvent.task(task(TaskState.TASK_STATE_SUBMITTED)));
      if (rc.userMessage.metadata?.hold === true) {
        bus.publish(AgentEvent.statusUpdate({ taskId: rc.taskId, contextId: rc.contextId, status: { state: TaskState.TASK_STATE_WORKING, message: agentMessage(rc.contextId, rc.taskId, 'working'), timestamp: now() }, metadata: undefined }));
        if (!early.delete(rc.taskId)) await new Promise<void>((r) => held.set(rc.taskId, r));
      }
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: rc.taskId,
          contextId: rc.contextId,
          artifact: { artifactId: 'booking', name: 'booking', description: '', parts: [text('booked')], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(AgentEvent.statusUpdate({ taskId: rc.taskId, contextId: rc.contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() }, metadata: undefined }));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() }, metadata: undefined }));
      bus.finished();
      held.get(taskId)?.();
    },
  };

  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = generateAgentCardSignature(keys.privateKey, { alg: 'ES256', kid: 'peer-key-1', typ: 'JOSE', jku: `${url}/jwks.json` });
  const card = {
    name: 'ledger',
    description: 'books invoices',
    supportedInterfaces: [
      ...(o.restOnly
        ? []
        : [
            { url: `${url}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
            { url: `${url}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
          ]),
      { url: `${url}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    ],
    provider: { url: 'https://ledger.example', organization: 'Ledger Inc' },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: 'https://ledger.example/ext/audit', description: 'audit trail', required: false, params: undefined }], extendedAgentCard: true },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'book', name: 'book', description: 'books invoices', tags: ['finance'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  } as unknown as AgentCard;
  const extended = { ...card, skills: [...card.skills, { id: 'refund', name: 'refund', description: 'refunds invoices', tags: ['finance'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }] } as AgentCard;
  const sender: PushNotificationSender = { send: async () => undefined };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor, undefined, new InMemoryPushNotificationStore(), sender, async () => extended, signer);

  app.get('/jwks.json', (_req, res) => {
    res.json({ keys: [{ ...keys.publicKey.export({ format: 'jwk' }), kid: 'peer-key-1', alg: 'ES256', use: 'sig' }] });
  });
  app.use('/.well-known/agent-card.json', (req, _res, next) => {
    cardRequests.push(req.headers);
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rpc', (req, _res, next) => {
    received.push({ headers: req.headers, body: req.body });
    next();
  });
  app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  // the SDK's HTTP+JSON transport over the same handler, for REST clients driven direct
  const restReceived: TaskPeer['restReceived'] = [];
  app.use('/rest', (req, _res, next) => {
    restReceived.push({ method: req.method, path: req.url, headers: req.headers });
    next();
  });
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

  return {
    url,
    jwksUrl: `${url}/jwks.json`,
    received,
    restReceived,
    cardRequests,
    release(taskId) {
      const r = held.get(taskId);
      if (r) {
        held.delete(taskId);
        r();
      } else early.add(taskId);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
