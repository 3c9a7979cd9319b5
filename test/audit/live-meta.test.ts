import t from 'tap';
import { AwaitingMeta, LiveMetaTable } from '../../plugins/audit/live-meta.js';

/** The live stream's side table: bounded, and a stream waits a bounded time for fields that may never come. */
const meta = { latency_ms: 1.5, admission: 'ADMIT' as const, attestation_id: 'att_1' };

t.test('the table keeps the newest 10,000 entries', async (t) => {
  const table = new LiveMetaTable();
  for (let i = 0; i < 10_050; i++) table.set(`org/${i}`, meta);
  t.equal(table.get('org/0'), undefined, 'the oldest are forgotten');
  t.equal(table.get('org/49'), undefined);
  t.same(table.get('org/50'), meta);
  t.same(table.get('org/10049'), meta);
});

t.test('a stream sends fields once they arrive, and stops waiting for ones that never do', async (t) => {
  const table = new LiveMetaTable();
  const awaiting = new AwaitingMeta(table);
  awaiting.note('org/1');
  awaiting.note('org/2');
  t.equal(awaiting.drain(), '', 'nothing known yet');
  table.set('org/1', meta);
  t.equal(awaiting.drain(), `event: meta\ndata: ${JSON.stringify({ log_id: 'org/1', ...meta })}\n\n`, 'one meta event for the entry whose fields came');
  t.equal(awaiting.drain(), '', 'and only once');
  for (let i = 0; i < 25; i++) awaiting.drain();
  table.set('org/2', meta);
  t.equal(awaiting.drain(), '', 'an entry waited for past its polls is dropped (another replica appended it)');
  for (let i = 0; i < 300; i++) awaiting.note(`org/n${i}`);
  table.set('org/n0', meta);
  table.set('org/n299', meta);
  const out = awaiting.drain();
  t.notMatch(out, /org\/n0"/, 'at most 256 are waited for: the oldest notes go first');
  t.match(out, /org\/n299"/, 'the newest is still waited for');
});
