import t from 'tap';
import { AgentCard, TaskState, verifyAgentCardSignature } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { verifyVerdict } from '../../plugins/a2a/index.js';
import { PROVENANCE_EXTENSION } from '../../plugins/a2a/proxy/cards.js';
import { VERDICT_EXTENSION } from '../../plugins/a2a/proxy/answer-review.js';
import { data, sdkClient, userMessage } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';
import { startTaskPeer } from '../helpers/a2a-task-peer.js';

/**
 * Issue 39: every A2A 1.0 JSON-RPC method (and its v0.3 name) driven by the official SDK client,
 * first directly against an SDK reference server, then through proofgate; through proofgate must pass
 * what direct passes, with the verdict in the metadata and the caller's tasks only.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const PUSH_URL = 'https://93.184.215.14/hooks/a2a';

const fetchWith =
  (headers: Record<string, string>): typeof fetch =>
  (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers } });

async function collect<T>(it: AsyncIterable<T>, onEach?: (e: T) => void): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) {
    out.push(e);
    onEach?.(e);
  }
  return out;
}

/** the task of a SendMessage result or stream event, whichever shape the SDK handed back */
const taskOf = (r: any): any => r?.payload?.value ?? r?.task ?? r;

t.test('every A2A method with the SDK client: direct, then through proofgate', async (t) => {
  const peer = await startTaskPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);

  for (const via of ['direct', 'proofgate'] as const) {
    await t.test(via, async (t) => {
      const proxied = via === 'proofgate';
      const client = proxied ? await sdkClient(`${s.url}/a2a/peers/ledger/`, { 'x-agent-token': me.token }) : await sdkClient(`${peer.url}/`, {});

      const sent = taskOf(await client.sendMessage({ message: userMessage([data(INVOICE)]) } as never));
      t.ok(sent.id, `SendMessage: a task (${sent.id})`);
      t.equal(sent.artifacts?.[0]?.parts?.[0]?.content?.value, 'booked', 'with the agent output');
      const meta = sent.metadata?.[VERDICT_EXTENSION];
      if (proxied) {
        t.equal(meta?.status, 'forwarded', 'the verdict is in the task metadata, under the declared extension');
        const v = await verifyVerdict(meta.verdicts[0], { jwksUrl: `${s.url}/.well-known/jwks.json`, payload: { data: INVOICE } });
        t.equal(v.valid, true, 'and verifies against the JWKS');
      } else t.notOk(meta, 'direct: no verdict');

      const got = (await client.getTask({ id: sent.id } as never)) as any;
      t.equal(got.id, sent.id, 'GetTask');
      const listed = (await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined } as never)) as any;
      t.ok(listed.tasks.some((x: any) => x.id === sent.id), 'ListTasks lists it');

      // a held task: streamed, subscribed to again, then cancelled
      const stream = client.sendMessageStream({ message: userMessage([data(INVOICE)], { hold: true }) } as never);
      const first = await stream.next();
      const held = taskOf(first.value);
      t.ok(held.id, 'SendStreamingMessage: the task comes first');
      if (proxied) t.ok(held.metadata?.[VERDICT_EXTENSION]?.verdicts?.length, 'with the verdict in its metadata');
      // subscribed (its first event in hand) before the cancel, so the task is live when it is joined
      const sub = client.resubscribeTask({ id: held.id } as never);
      const subFirst = await sub.next();
      t.equal(taskOf(subFirst.value as any)?.id, held.id, 'SubscribeToTask joins the task');
      const again = collect({ [Symbol.asyncIterator]: () => sub });
      const cancelled = (await client.cancelTask({ id: held.id } as never)) as any;
      t.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED, 'CancelTask: the task is cancelled');
      const events = await again;
      t.ok(events.length >= 1, `SubscribeToTask: ${events.length} more events until the end`);
      await stream.return?.(undefined);

      const cfg = (await client.createTaskPushNotificationConfig({ tenant: '', id: 'cfg-1', taskId: sent.id, url: PUSH_URL, token: 'secret', authentication: undefined } as never)) as any;
      t.equal(cfg.url, PUSH_URL, 'CreateTaskPushNotificationConfig');
      const one = (await client.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-1' } as never)) as any;
      t.equal(one.id, 'cfg-1', 'GetTaskPushNotificationConfig');
      const all = (await client.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 10, pageToken: '' } as never)) as any;
      t.equal(all.configs?.length, 1, 'ListTaskPushNotificationConfigs');
      await t.resolves(client.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-1' } as never), 'DeleteTaskPushNotificationConfig');

      // the client asks for the extended card because the (served) card says there is one
      const ext = (await client.getAgentCard()) as any;
      t.ok(ext.skills.some((k: any) => k.id === 'refund'), 'GetExtendedAgentCard');
      if (proxied) {
        t.same(
          ext.supportedInterfaces.map((i: any) => i.url),
          [`${s.url}/a2a/peers/ledger`, `${s.url}/a2a/peers/ledger`, `${s.url}/a2a/peers/ledger`],
          'the extended card names this hop only (its JSON-RPC interfaces and its HTTP+JSON one)',
        );
        const jwks = (await s.request('GET', '/.well-known/jwks.json')).body.keys;
        await t.resolves(verifyAgentCardSignature(async (kid) => jwks.find((k: any) => k.kid === kid))(ext), 'and the SDK verifies its signature');
      }
    });
  }

  await t.test('the served card: fetched with A2A-Version 1.0, verifiable by the SDK, with both extensions', async (t) => {
    const before = peer.cardRequests.length;
    const r = await s.request('GET', '/a2a/peers/ledger/.well-known/agent-card.json', { headers: { 'x-agent-token': me.token } });
    t.equal(r.status, 200);
    t.ok(peer.cardRequests.length >= before, 'the card was fetched (or cached)');
    t.ok(peer.cardRequests.every((h) => h['a2a-version'] === '1.0'), 'always with A2A-Version: 1.0');
    const jwks = (await s.request('GET', '/.well-known/jwks.json')).body.keys;
    await t.resolves(verifyAgentCardSignature(async (kid) => jwks.find((k: any) => k.kid === kid))(AgentCard.fromJSON(r.body)), 'the SDK verifies the re-signed card');
    const exts = r.body.capabilities.extensions as Array<Record<string, any>>;
    t.ok(exts.some((e) => e.uri === VERDICT_EXTENSION), 'the verdict extension is declared');
    t.ok(exts.some((e) => e.uri === 'https://ledger.example/ext/audit'), "the peer's own extensions stay");
    const prov = exts.find((e) => e.uri === PROVENANCE_EXTENSION);
    t.match(prov?.params, { card_url: `${peer.url}/.well-known/agent-card.json`, signed: true, signers: [{ alg: 'ES256', kid: 'peer-key-1', jku: peer.jwksUrl }] }, 'who signed the original');
    t.match(prov?.params.card_sha256, /^[0-9a-f]{64}$/);
  });

  await t.test('v0.3 names through the SDK compat client', async (t) => {
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${s.url}/a2a/peers/ledger`, fetchImpl: fetchWith({ 'x-agent-token': me.token }) });
    const sent = taskOf(await legacy.sendMessage({ message: userMessage([data(INVOICE)]) } as never));
    t.ok(sent.id, 'message/send');
    t.ok(sent.metadata?.[VERDICT_EXTENSION]?.verdicts?.length, 'the verdict in the metadata (v0.3 result)');
    t.equal(((await legacy.getTask({ id: sent.id } as never)) as any).id, sent.id, 'tasks/get');
    const cfg = (await legacy.createTaskPushNotificationConfig({ tenant: '', id: 'cfg-2', taskId: sent.id, url: PUSH_URL, token: '', authentication: undefined } as never)) as any;
    t.equal(cfg.url, PUSH_URL, 'tasks/pushNotificationConfig/set');
    t.equal(((await legacy.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-2' } as never)) as any).url, PUSH_URL, 'tasks/pushNotificationConfig/get');
    t.equal(((await legacy.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 0, pageToken: '' } as never)) as any).configs.length, 1, 'tasks/pushNotificationConfig/list');
    await t.resolves(legacy.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-2' } as never), 'tasks/pushNotificationConfig/delete');
    const methods = peer.received.map((r) => r.body?.method);
    for (const m of ['message/send', 'tasks/get', 'tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete']) {
      t.ok(methods.includes(m), `${m} reached the peer under its v0.3 name`);
    }
  });
});
