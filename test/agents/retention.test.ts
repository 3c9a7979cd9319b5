import t from 'tap';
import { rmSync } from 'node:fs';
import { LmdbStore } from '../../core/store/lmdb.js';
import { ACTIVITY_COLLECTION } from '../../plugins/agents/index.js';
import { pruneActivity } from '../../plugins/agents/retention.js';
import { startServer, builtinsWithoutEngines } from '../helpers/server.js';
import { tenant } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Activity-log retention (plugin_config.agents.activity_retention_days): every tool decision and
 * screened verify writes an entry, so without it a busy agent's log grows without end. Entries
 * past the window go; the rest, and every other agent's, stay.
 */
const DAY = 86_400_000;
const key = (agent: string, ms: number, i: number) => `${agent}/${String(ms).padStart(15, '0')}-${i.toString(16).padStart(12, '0')}`;

t.test('pruneActivity removes each agent’s expired entries, past full pages, and keeps the rest', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-activity-'));
  t.teardown(() => store.close());
  const now = Date.parse('2026-06-30T00:00:00Z');
  const col = store.collection(ACTIVITY_COLLECTION);
  const put = (agent: string, ms: number, i: number) => col.put(key(agent, ms, i), { agent_id: agent, action: 'tool_call', outcome: 'ALLOW', created_at: new Date(ms).toISOString() });
  // agent_a: 2,500 old entries (more than one page of the sweep) and 3 recent; agent_b: only recent;
  // agent_c: only old; agent_d: old and recent interleaved in time order
  for (let i = 0; i < 2500; i++) await put('agent_a', now - 30 * DAY + i, i);
  for (let i = 0; i < 3; i++) await put('agent_a', now - DAY + i, 10_000 + i);
  for (let i = 0; i < 2; i++) await put('agent_b', now - 2 * DAY + i, i);
  for (let i = 0; i < 5; i++) await put('agent_c', now - 8 * DAY + i, i);
  await put('agent_d', now - 7 * DAY - 1, 0);
  await put('agent_d', now - 7 * DAY + 1, 1);
  t.equal(await pruneActivity(store, 7, () => now), 2500 + 5 + 1);
  const left = (await col.list()).map((e) => e.key.slice(0, e.key.indexOf('/')));
  t.same(left, ['agent_a', 'agent_a', 'agent_a', 'agent_b', 'agent_b', 'agent_d'], 'what is inside the window stays, for every agent');
  t.equal(await pruneActivity(store, 7, () => now), 0, 'a second sweep finds nothing');
});

t.test('a sidecar with a retention removes old activity at start and serves the rest', async (t) => {
  const first = await startServer({ plugins: builtinsWithoutEngines, config: { auth: { anonymous_rate_per_minute: 1000 } }, keepData: true });
  // kept across the restarts below; the servers given it do not remove a directory they did not make
  t.teardown(() => rmSync(first.dataDir, { recursive: true, force: true }));
  const org = await tenant(first, ['verify:read', 'agent:write']);
  const reg = await first.request('POST', '/agents/register', { apiKey: org.key, body: { name: 'helper' } });
  t.equal(reg.status, 201);
  const agent = reg.body as { agent_id: string; agent_token: string };
  const call = await first.request('POST', `/agents/${agent.agent_id}/tools/calculator`, { headers: { 'x-agent-token': agent.agent_token }, body: { arguments: { expression: '1+1' } } });
  t.equal(call.status, 200);
  // an entry from 40 days ago, as the log would hold it
  await first.kernel.app.store.collection(ACTIVITY_COLLECTION).put(key(agent.agent_id, Date.now() - 40 * DAY, 1), {
    activity_id: 'old', agent_id: agent.agent_id, action: 'tool_call', outcome: 'ALLOW', created_at: new Date(Date.now() - 40 * DAY).toISOString(), tool: 'calculator',
  });
  await first.close();

  const bad = startServer({ plugins: builtinsWithoutEngines, dataDir: first.dataDir, keepData: true, config: { plugin_config: { agents: { activity_retention_days: 0 } } } });
  await t.rejects(bad, /plugin_config\.agents\.activity_retention_days/, 'a retention under a day is refused at start, naming the setting');

  const s = await startServer({ plugins: builtinsWithoutEngines, dataDir: first.dataDir, config: { auth: { anonymous_rate_per_minute: 1000 }, plugin_config: { agents: { activity_retention_days: 30 } } } });
  t.teardown(() => s.close());
  const activity = async () => (await s.request('GET', `/agents/${agent.agent_id}/activity`, { headers: { 'x-agent-token': agent.agent_token } })).body as { items: Array<{ action: string; created_at: string }> };
  await waitFor(async () => (await activity()).items.every((e) => Date.now() - Date.parse(e.created_at) < 30 * DAY), { what: 'the start-up sweep', timeoutMs: 15_000 });
  t.same((await activity()).items.map((e) => e.action).sort(), ['registered', 'tool_call'], 'the recent entries stay; the 40-day-old one is gone');
});
