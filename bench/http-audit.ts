import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbStore } from '../core/store/lmdb.js';
import { AuditChain, type AuditFields } from '../plugins/audit/index.js';

/** How the store makes a commit durable; the bench prints it beside every figure. */
export const COMMIT_MODE = 'LMDB, durable: every commit is fsynced before its promise resolves (lmdb-js overlappingSync; noSync off)';

/** one typical verified math entry: what both audit-append benches (LMDB and PostgreSQL) append */
export const FIELDS: AuditFields = {
  route: '/verify/math',
  method: 'POST',
  key_id: 'key_bench',
  user_id: null,
  request_hash: 'sha256:' + 'ab'.repeat(32),
  status: 'verified',
  engine: 'math',
  http_status: 200,
  proof_ref: 'sha256:' + 'cd'.repeat(32),
  constraint_id: null,
  raw_llm_output: null,
};

/**
 * Durable audit appends per second through AuditChain on a fresh LMDB store: `inFlight` callers
 * keep one append each outstanding (as concurrent requests do), spread over `orgs` organisations.
 */
async function run(orgs: number, seconds: number, inFlight = 256) {
  const dir = mkdtempSync(join(tmpdir(), 'proofgate-bench-audit-'));
  const store = new LmdbStore(dir);
  const chain = new AuditChain(store, randomBytes(32).toString('hex'));
  const ids = Array.from({ length: orgs }, (_, i) => `org_bench_${i}`);
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, c) => {
      while (performance.now() < deadline) {
        await chain.append(ids[(c + done) % orgs], FIELDS);
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { orgs, in_flight: inFlight, appends: done, appends_per_second: Math.round(done / elapsed), commits: chain.stats.commits, entries_per_commit: Math.round((done / Math.max(1, chain.stats.commits)) * 10) / 10 };
}

export async function auditAppendBench(seconds = 3): Promise<object> {
  return { commit_mode: COMMIT_MODE, one_org: await run(1, seconds), sixteen_orgs: await run(16, seconds) };
}

/** bytes of the per-verification collections (LMDB pages, so fill factor included) over the number of audited requests */
export async function storageFigures(dataDir: string): Promise<object> {
  const store = new LmdbStore(dataDir);
  try {
    const stats = await store.stats();
    const by = Object.fromEntries(stats.map((s) => [s.name, s]));
    const entries = by['audit.entries']?.entries ?? 0;
    const bytes = (n: string) => by[n]?.bytes ?? 0;
    const perVerification = ['audit.entries', 'attestations', 'audit.checkpoints'].reduce((a, n) => a + bytes(n), 0);
    return {
      audit_entries: entries,
      attestation_records: by.attestations?.entries ?? 0,
      bytes_audit: bytes('audit.entries'),
      bytes_attestations: bytes('attestations'),
      bytes_per_verification: entries ? Math.round(perVerification / entries) : null,
      bytes_per_audit_entry: entries ? Math.round(bytes('audit.entries') / entries) : null,
      bytes_per_attestation_record: by.attestations?.entries ? Math.round(bytes('attestations') / by.attestations.entries) : null,
      collections: stats,
    };
  } finally {
    await store.close();
  }
}
