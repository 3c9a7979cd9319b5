import t from 'tap';
import { startServer, builtinsWithoutEngines } from '../helpers/server.js';
import { bearer, tenant, verificationTestPlugin } from '../helpers/tenancy.js';

/**
 * The audit entry keeps the first 65,536 UTF-16 units of a verdict's raw_llm_output. A model's
 * reply is not ours to shape: when that cut fell inside an emoji the entry held a lone surrogate,
 * which RFC 8785 cannot hash, and every such verdict was withheld with a 503.
 */
t.test('a model output cut inside a surrogate pair is still audited and answered', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const a = await tenant(s);
  // 65,536 units end on the high half of the 32,768th emoji
  const llm = 'x' + '😀'.repeat(40_000);
  const r = await s.request('POST', '/test/verify', { apiKey: a.key, body: { outcome: 'verified', llm } });
  t.equal(r.status, 200, 'the verdict is not withheld');
  const logId = r.headers.get('x-audit-log-id');
  t.ok(logId);
  const entry = await s.request('GET', `/audit/logs/${logId}`, { headers: bearer(a.token) });
  t.equal(entry.status, 200);
  const kept: string = entry.body.raw_llm_output;
  t.equal(kept.length, 65_536);
  t.equal(kept.slice(0, -1), llm.slice(0, 65_535), 'the output up to the cut');
  t.equal(kept.at(-1), '\ufffd', 'the half character is a replacement character');
  const check = await s.request('GET', `/admin/compliance/verify/${logId}`, { apiKey: a.key });
  t.equal(check.body.valid, true, 'the entry verifies');
});
