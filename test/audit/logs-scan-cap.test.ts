import t from 'tap';
import { AuditChain, type AuditFields } from '../../plugins/audit/index.js';
import { startServer, TEST_SECRETS, builtinsWithoutEngines } from '../helpers/server.js';
import { tenant, verificationTestPlugin } from '../helpers/tenancy.js';

/**
 * GET /logs with a status filter scans at most 10,000 entries per page. A match older than that
 * must still be reachable by following next_cursor: a page that stops at the cap ends with a
 * cursor from where the scan stopped, not with null (which says "the last page").
 */
const fields = (i: number): AuditFields => ({
  route: '/test/verify', method: 'POST', key_id: 'key_x', user_id: null, request_hash: null, status: 'verified',
  engine: 'test', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

t.test('a status filter past the scan cap pages on to every match', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], warmEngines: false });
  t.teardown(() => s.close());
  const a = await tenant(s);
  const blockedOnce = async () => {
    const r = await s.request('POST', '/test/verify', { apiKey: a.key, body: { outcome: 'blocked' } });
    t.equal(r.status, 403);
    return r.headers.get('x-audit-log-id');
  };
  const oldest = [await blockedOnce(), await blockedOnce()];
  // 12,000 other entries between the old matches and the new one, appended straight to the chain
  // (another chain instance on the same store: the server's own reloads and reseals on its next append)
  const chain = new AuditChain(s.kernel.app.store, TEST_SECRETS.audit_secret_key);
  for (let i = 0; i < 12_000; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => chain.append(a.orgId, fields(i + j))));
  const newest = await blockedOnce();

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const r = await s.request('GET', `/logs?status=blocked&limit=50${q}`, { apiKey: a.key });
    t.equal(r.status, 200);
    for (const e of r.body.logs) {
      t.equal(e.status, 'blocked');
      seen.push(e.log_id);
    }
    cursor = r.body.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  t.equal(cursor, null, 'the paging ends');
  t.same(seen, [newest, ...oldest.reverse()], 'every blocked entry, newest first, none twice');
  t.ok(pages >= 2, `the cap split the walk into pages (${pages})`);

  // without a filter nothing changes: a page is full, its cursor is its oldest entry
  const first = await s.request('GET', '/logs?limit=3', { apiKey: a.key });
  t.equal(first.body.logs.length, 3);
  t.equal(first.body.next_cursor, first.body.logs[2].log_id);
});
