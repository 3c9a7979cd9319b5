import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LmdbStore } from '../../core/store/lmdb.js';
import type { Store, WriteOp } from '../../core/store/store.js';
import { AuditChain, type AuditEntry, type AuditFields } from '../../plugins/audit/index.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { walkChains } from '../../plugins/audit/verify.js';
import { startServer, TEST_SECRETS, builtinsWithEngines, builtinsWithoutEngines } from '../helpers/server.js';
import { tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

const CHILD = fileURLToPath(new URL('./fixtures/append-child.js', import.meta.url));
const SECRET = TEST_SECRETS.audit_secret_key;
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'verified',
  engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

function tmpStore(t: { teardown(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'pg-group-'));
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, store };
}

/** A store whose audit commits wait, once armed, until `releaseAll()`; records what happened in `events`. */
function gatedStore(inner: Store, events: string[]) {
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  let entered: () => void = () => undefined;
  const store: Store = {
    get ready() {
      return inner.ready;
    },
    collection: (n) => inner.collection(n),
    stats: () => inner.stats(),
    close: () => inner.close(),
    useCodecs: (c) => inner.useCodecs(c),
    async commit(ops: readonly WriteOp[]) {
      const audit = ops.filter((o) => o.collection === AUDIT_COLLECTION).length;
      if (audit) events.push(`commit ${audit}`);
      if (audit && gate) {
        entered();
        await gate;
      }
      const ok = await inner.commit(ops);
      if (audit) events.push('durable');
      return ok;
    },
  };
  return {
    store,
    /** closes the gate; resolves when the first commit reaches it */
    arm(): Promise<void> {
      gate = new Promise<void>((r) => (open = r));
      return new Promise<void>((r) => (entered = r));
    },
    releaseAll() {
      gate = null;
      open();
    },
  };
}

t.test('appends arriving during a commit are written together, in order, in one transaction', async (t) => {
  const { store } = tmpStore(t);
  const events: string[] = [];
  const g = gatedStore(store, events);
  const chain = new AuditChain(g.store, SECRET);
  const held = g.arm();
  const first = chain.append('org_a', fields(0));
  await held;
  // 99 more arrive while the first commit is held: they must form the next batch, not 99 commits
  const rest = Array.from({ length: 99 }, (_, i) => chain.append('org_a', fields(i + 1)));
  let settled = 0;
  for (const p of [first, ...rest]) void p.then(() => settled++);
  await new Promise((r) => setImmediate(r));
  t.equal(settled, 0, 'nothing resolves before its commit is durable');
  g.releaseAll();
  const entries = [await first, ...(await Promise.all(rest))];
  t.same(events, ['commit 1', 'durable', 'commit 99', 'durable'], 'two transactions for 100 appends');
  t.same(entries.map((e) => e.seq), Array.from({ length: 100 }, (_, i) => i), 'sealed in arrival order');
  for (let i = 1; i < entries.length; i++) t.equal(entries[i].prev_hash, entries[i - 1].payload_hash);
  t.same(chain.stats, { commits: 2, entries: 100, races: 0 });
  const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET);
  t.equal(walk.broken, null);
  t.equal(walk.entries, 100);
});

t.test('a lost race reseals the whole batch after the stored head', async (t) => {
  const { store } = tmpStore(t);
  const a = new AuditChain(store, SECRET);
  const b = new AuditChain(store, SECRET);
  await a.head('org_a'); // a caches the empty head
  await Promise.all(Array.from({ length: 5 }, (_, i) => b.append('org_a', fields(i))));
  const batch = await Promise.all(Array.from({ length: 7 }, (_, i) => a.append('org_a', fields(10 + i))));
  t.same(batch.map((e) => e.seq), [5, 6, 7, 8, 9, 10, 11]);
  t.equal(a.stats.races, 1, 'the stale writer lost once, wrote nothing, and resealed');
  const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET);
  t.equal(walk.broken, null);
  t.equal(walk.entries, 12);
});

t.test('companion writes share the entry transaction; a failed commit rejects every caller of the batch', async (t) => {
  const { store } = tmpStore(t);
  const chain = new AuditChain(store, SECRET);
  const e = await chain.append('org_a', fields(0), { with: [{ collection: 'attestations', key: 'att_1', value: { id: 'att_1' } }] });
  t.same(await store.collection('attestations').get('att_1'), { id: 'att_1' });
  t.equal(e.seq, 0);
  const broken: Store = {
    ready: true,
    collection: (n) => store.collection(n),
    stats: () => store.stats(),
    close: async () => undefined,
    useCodecs: (c) => store.useCodecs(c),
    commit: async () => {
      throw new Error('disk full');
    },
  };
  const c2 = new AuditChain(broken, SECRET);
  const results = await Promise.allSettled([c2.append('org_a', fields(1)), c2.append('org_a', fields(2))]);
  t.same(results.map((r) => r.status), ['rejected', 'rejected']);
  const next = await chain.append('org_a', fields(3));
  t.equal(next.seq, 1, 'no gap: the failed batch wrote nothing');
});

function runChild(args: string[]): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(...nodeCommand([CHILD, ...args]), { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ out, code }));
  });
}

t.test('two processes appending to one organisation on one data directory leave one valid chain', async (t) => {
  const dir = tempDir(t, 'pg-two-');
  const [a, b] = await Promise.all([runChild([dir, SECRET, '1', '50', '600', 'a']), runChild([dir, SECRET, '1', '50', '600', 'b'])]);
  t.equal(a.code, 0, a.out.slice(-200));
  t.equal(b.code, 0, b.out.slice(-200));
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  try {
    const byKey = new Map<string, number>();
    const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET, { onEntry: (e: AuditEntry) => byKey.set(e.key_id!, (byKey.get(e.key_id!) ?? 0) + 1) });
    t.equal(walk.broken, null, 'one strict chain');
    t.equal(walk.orgs, 1);
    t.equal(walk.entries, 1200, 'every append of both processes is in it');
    t.same(Object.fromEntries(byKey), { key_a: 600, key_b: 600 });
  } finally {
    await store.close();
  }
});

t.test('a writer killed in the middle of a large batch leaves a valid chain prefix', async (t) => {
  const dir = tempDir(t, 'pg-batchcrash-');
  // one organisation, rounds of 400: every commit after the first carries hundreds of entries
  const child = spawn(...nodeCommand([CHILD, dir, SECRET, '1', '400']), { stdio: ['ignore', 'pipe', 'inherit'] });
  let acknowledged = 0;
  await new Promise<void>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) acknowledged = Math.max(acknowledged, Number(l));
      if (acknowledged >= 2000 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    child.once('exit', (_c, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited on its own (${signal})`))));
    child.once('error', reject);
  });
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  try {
    const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET);
    t.equal(walk.broken, null, 'the stored chain is a valid prefix');
    t.ok(walk.entries >= acknowledged, `every acknowledged append survived (${walk.entries} ≥ ${acknowledged})`);
    const chain = new AuditChain(store, SECRET);
    const next = await chain.append('org_0', fields(0));
    t.equal(next.seq, walk.entries, 'a new writer continues right after the prefix');
    t.equal((await walkChains(store.collection(AUDIT_COLLECTION), SECRET)).broken, null);
  } finally {
    await store.close();
  }
});

t.test('a verification reply is sent only after its audit entry is durable', async (t) => {
  const events: string[] = [];
  let gated: ReturnType<typeof gatedStore> | undefined;
  const s = await startServer({
    plugins: [...builtinsWithoutEngines, verificationTestPlugin],
    store: (dir) => (gated = gatedStore(new LmdbStore(dir, { codecs: AUDIT_CODECS }), events)).store,
  });
  t.teardown(() => s.close());
  const tn = await tenant(s);
  const held = gated!.arm();
  events.length = 0;
  const reply = s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } }).then((r) => {
    events.push('reply');
    return r;
  });
  await held;
  // the server keeps serving while the commit is held; the verdict must not leave meanwhile
  t.equal((await s.request('GET', '/healthz')).status, 200);
  t.notOk(events.includes('reply'), 'no reply while the entry is not durable');
  gated!.releaseAll();
  const r = await reply;
  t.equal(r.status, 200);
  t.match(r.headers.get('x-audit-log-id'), /^lg_/);
  t.ok(events.indexOf('durable') < events.indexOf('reply'), events.join(','));
});

t.test('a VERIFIED /verify/math request makes one durable commit: its audit entry and its attestation record together', async (t) => {
  const writes: string[] = [];
  const counting = (inner: Store): Store => ({
    get ready() {
      return inner.ready;
    },
    useCodecs: (c) => inner.useCodecs(c),
    collection<T>(name: string) {
      const c = inner.collection<T>(name);
      return {
        ...c,
        get: (k: string) => c.get(k),
        list: (o?: Parameters<typeof c.list>[0]) => c.list(o),
        count: (o?: Parameters<typeof c.count>[0]) => c.count(o),
        put: (k: string, v: T) => (writes.push(`put ${name}`), c.put(k, v)),
        insert: (k: string, v: T) => (writes.push(`insert ${name}`), c.insert(k, v)),
        update: (k: string, fn: (cur: T | undefined) => T | undefined) => (writes.push(`update ${name}`), c.update(k, fn)),
        delete: (k: string) => (writes.push(`delete ${name}`), c.delete(k)),
      };
    },
    commit(ops: readonly WriteOp[]) {
      writes.push(`commit ${[...new Set(ops.map((o) => o.collection))].sort().join('+')}`);
      return inner.commit(ops);
    },
    stats: () => inner.stats(),
    close: () => inner.close(),
  });
  const s = await startServer({ plugins: builtinsWithEngines('math'), store: (dir) => counting(new LmdbStore(dir, { codecs: AUDIT_CODECS })) });
  t.teardown(() => s.close());
  const tn = await tenant(s);
  await s.request('POST', '/verify/math', { apiKey: tn.key, body: { expression: '1+1=2' } }); // warm the chain head
  writes.length = 0;
  const r = await s.request('POST', '/verify/math', { apiKey: tn.key, body: { expression: '2+2=4' } });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'VERIFIED');
  t.match(r.body.attestation_id, /^att_/);
  // security events (sign-up, key creation) are flushed by the auth plugin's own timer, off the request path
  t.same(writes.filter((w) => w !== 'put security.events'), ['commit attestations+audit.entries'], 'one transaction, nothing else written');
  const att = await s.request('GET', `/attestation/${r.body.attestation_id}`, { apiKey: tn.key });
  t.equal(att.status, 200, 'the record is there once the reply is');
});
