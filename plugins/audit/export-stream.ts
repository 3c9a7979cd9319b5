import { Readable } from 'node:stream';
import type { Store } from '../../core/store/store.js';
import { CHECKPOINT_COLLECTION, checkpointKey, makeCheckpoint, type Checkpoint, type CheckpointSigner } from './checkpoint.js';
import { EXPORT_CHECKPOINT, EXPORT_HEADER, EXPORT_VERSION, hmacKeyId, type ExportHeader } from './export-file.js';
import { entryKey, type AuditEntry } from './payload.js';
import { auditCollection } from './store-read.js';

/**
 * `GET /audit/export?format=jsonl`: an organisation's whole chain, streamed, in the layout of the
 * retention export file (export-file.ts) that `proofgate audit verify --export FILE` checks with no
 * server: a header (seq range, the prune checkpoint the first stored entry links to, which HMAC
 * key the entries need), every stored entry oldest first, as stored, then a checkpoint signed now
 * (reason `export`) over the last entry's hash. Without the HMAC key the file proves the entries
 * are the signed chain, in order and complete; with it, that the secret holder wrote each one.
 *
 * The range is fixed when the request starts (entries appended meanwhile belong to the next
 * export). Entries are read a page at a time and each page is written before the next is read, so
 * memory stays one page whatever the chain's length; a page is missing an entry only when retention
 * pruned it meanwhile, and the stream then ends in error rather than as an export with a hole.
 */
const PAGE = 500;

export interface ExportRange {
  first: number;
  last: number;
  anchor: Checkpoint | null;
}

const seqOf = (key: string) => Number(key.slice(key.lastIndexOf('/') + 1));

/** The chain's stored range and the anchor its first entry links to; null for an empty chain. */
export async function exportRange(store: Store, orgId: string): Promise<ExportRange | null> {
  const col = auditCollection(store);
  const [oldest] = await col.list({ prefix: `${orgId}/`, limit: 1 });
  const [newest] = await col.list({ prefix: `${orgId}/`, reverse: true, limit: 1 });
  if (!oldest || !newest) return null;
  const first = seqOf(oldest.key);
  // a missing or bad anchor is written as found: the offline verifier is the one that says BROKEN
  const anchor = first === 0 ? null : ((await store.collection<Checkpoint>(CHECKPOINT_COLLECTION).get(checkpointKey(orgId, first - 1))) ?? null);
  return { first, last: seqOf(newest.key), anchor };
}

async function* lines(store: Store, signer: CheckpointSigner, secret: string, orgId: string, range: ExportRange): AsyncGenerator<string> {
  const header: ExportHeader = {
    version: EXPORT_VERSION,
    org_id: orgId,
    first_seq: range.first,
    last_seq: range.last,
    created_at: new Date().toISOString(),
    anchor: range.anchor,
    hmac: { alg: 'HMAC-SHA256', input: 'payload_hash', key_id: hmacKeyId(secret) },
  };
  yield `${JSON.stringify({ [EXPORT_HEADER]: header })}\n`;
  const col = auditCollection(store);
  let next = range.first;
  let last: AuditEntry | null = null;
  while (next <= range.last) {
    const page = await col.list({ prefix: `${orgId}/`, start: entryKey(orgId, next), limit: Math.min(PAGE, range.last - next + 1) });
    if (!page.length) throw new Error(`audit export of ${orgId}: entries from seq ${next} are gone (pruned while exporting)`);
    let chunk = '';
    for (const { key, value } of page) {
      if (seqOf(key) !== next) throw new Error(`audit export of ${orgId}: seq ${next} is missing`);
      chunk += `${JSON.stringify(value)}\n`;
      last = value as AuditEntry;
      next++;
    }
    yield chunk;
  }
  const hash = (last as { payload_hash?: unknown } | null)?.payload_hash;
  // a last entry without a hash is exported as stored; the checkpoint then signs a value the verifier refuses
  const cp = makeCheckpoint(signer, orgId, { seq: range.last, hash: typeof hash === 'string' ? hash : '' }, 'export', new Date());
  yield `${JSON.stringify({ [EXPORT_CHECKPOINT]: cp })}\n`;
}

export function exportStream(store: Store, signer: CheckpointSigner, secret: string, orgId: string, range: ExportRange): Readable {
  return Readable.from(lines(store, signer, secret, orgId, range), { objectMode: false });
}
