import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { open, type RootDatabase, type Database } from 'lmdb';
import { settlesBy, WriteGuard, type HealthLog } from './lmdb-health.js';
import { CodecTable, type Codec, type CollectionCodecs, type Collection, type CollectionStats, type Entry, type ListOptions, type Store, type WriteOp } from './store.js';

/**
 * LMDB backend. Puts issued in the same tick share one durable commit (lmdb-js batches them), so
 * concurrent requests get group commit for free; `await put` resolves only once the batch is synced.
 */
class LmdbCollection<T> implements Collection<T> {
  constructor(
    readonly db: Database<T, string>,
    private readonly name: string,
    private readonly guard: WriteGuard,
    private readonly codecs: CodecTable,
  ) {}

  /** stored layout of the values, when the collection's owner declared one (core/store/store.ts Codec) */
  get codec(): Codec | undefined {
    return this.codecs.of(this.name);
  }

  private enc(key: string, v: T): T {
    return this.codec ? (this.codec.encode(v, key) as T) : v;
  }

  private dec(key: string, v: T | undefined): T | undefined {
    return this.codec && v !== undefined ? (this.codec.decode(v, key) as T) : v;
  }

  async get(key: string): Promise<T | undefined> {
    return this.dec(key, this.db.get(key));
  }

  async put(key: string, value: T): Promise<void> {
    const stored = this.enc(key, value);
    await this.guard.run(() => this.db.put(key, stored));
  }

  async insert(key: string, value: T): Promise<boolean> {
    const stored = this.enc(key, value);
    return this.guard.run(() =>
      this.db.ifNoExists(key, () => {
        this.db.put(key, stored);
      }),
    );
  }

  async update(key: string, fn: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    let result: T | undefined;
    await this.guard.run(() => this.db.transaction(() => {
      const next = fn(this.dec(key, this.db.get(key)));
      if (next !== undefined) this.db.put(key, this.enc(key, next));
      result = next ?? this.dec(key, this.db.get(key));
    }));
    return result;
  }

  async delete(key: string): Promise<boolean> {
    // lmdb's remove() resolves true even for an absent key; the caller needs to know which it was
    let existed = false;
    await this.guard.run(() => this.db.transaction(() => {
      existed = this.db.doesExist(key);
      if (existed) this.db.remove(key);
    }));
    return existed;
  }

  async list(opts: ListOptions = {}): Promise<Entry<T>[]> {
    const prefix = opts.prefix ?? '';
    const lo = opts.start !== undefined && opts.start > prefix ? opts.start : prefix;
    // a prefix scan ends before the prefix followed by a code point past anything a key may hold
    const prefixEnd = prefix ? prefix + '\uffff' : undefined;
    let hi = opts.end ?? prefixEnd;
    if (hi !== undefined && prefixEnd !== undefined && hi > prefixEnd) hi = prefixEnd;
    const iter = opts.reverse
      ? this.db.getRange({ start: hi, reverse: true })
      : this.db.getRange({ start: lo || undefined, end: hi });
    const out: Entry<T>[] = [];
    for (const { key, value } of iter) {
      if (hi !== undefined && key >= hi) continue;
      if (key < lo) {
        if (opts.reverse) break;
        continue;
      }
      out.push({ key, value: this.codec ? (this.codec.decode(value, key) as T) : value });
      if (opts.limit !== undefined && out.length >= opts.limit) break;
    }
    return out;
  }

  async count(opts: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    const prefix = opts.prefix ?? '';
    if (!prefix) return this.db.getCount();
    return this.db.getKeysCount({ start: prefix, end: prefix + '\uffff' });
  }
}

/**
 * The data directory holds key digests, audit chains and attestation records: it is created 0700,
 * and an existing one that others may read or enter is tightened to 0700. Returns what the operator
 * must be told (null when nothing was wrong); when tightening is impossible (not the owner) the
 * store still opens — the caller logs the returned warning.
 */
export function preparePrivateDir(dir: string): string | null {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`data directory ${dir} exists and is not a directory`);
  const mode = st.mode & 0o777;
  if ((mode & 0o077) === 0 || process.platform === 'win32') return null;
  const was = mode.toString(8).padStart(4, '0');
  try {
    chmodSync(dir, 0o700);
    return `data directory ${dir} had mode ${was} (readable by others); tightened to 0700`;
  } catch (err) {
    return `data directory ${dir} has mode ${was} (readable by others) and could not be tightened: ${(err as Error).message}`;
  }
}

export class LmdbStore implements Store {
  private readonly root: RootDatabase;
  private readonly collections = new Map<string, LmdbCollection<unknown>>();
  private readonly guard: WriteGuard;
  private readonly codecs = new CodecTable();
  private readonly log: HealthLog | undefined;
  private readonly closeTimeoutMs: number;
  private open = true;

  /**
   * `warn` receives what preparePrivateDir found (a tightened or too-open directory); `log` the
   * full-disk episodes and a close that could not finish; `closeTimeoutMs` bounds close();
   * `codecs` the layouts of the collections the opener reads (more may come by useCodecs).
   */
  constructor(dir: string, opts: { warn?: (message: string) => void; log?: HealthLog; closeTimeoutMs?: number; codecs?: CollectionCodecs } = {}) {
    this.codecs.add(opts.codecs);
    const notice = preparePrivateDir(dir);
    if (notice) opts.warn?.(notice);
    // noSubdir false: lmdb-js otherwise takes a path with an extension (`proofgate.d`) for a file name
    // maxDbs bounds the number of named collections; plugins use a handful each
    // permissionsMode (the files' mode, honoured by lmdb-js but missing from its types): 0600
    const options = { path: dir, noSubdir: false, maxDbs: 64, compression: false, permissionsMode: 0o600 };
    this.root = open(options);
    this.log = opts.log;
    // `committed` is the promise of lmdb-js's current batch: observed while the failure is still
    // being handled, in the same turn, it is no unhandled rejection (measured, store-full.test.ts)
    this.guard = new WriteGuard(dir, opts.log, () => void this.root.committed.then(undefined, () => undefined));
    this.closeTimeoutMs = opts.closeTimeoutMs ?? 10_000;
  }

  get ready(): boolean {
    return this.open;
  }

  useCodecs(codecs: CollectionCodecs): void {
    this.codecs.add(codecs);
  }

  collection<T>(name: string): Collection<T> {
    if (!/^[a-z0-9_.-]{1,64}$/.test(name)) throw new TypeError(`invalid collection name ${JSON.stringify(name)}`);
    let c = this.collections.get(name);
    if (!c) {
      c = new LmdbCollection<unknown>(this.root.openDB<unknown, string>({ name, keyEncoding: 'ordered-binary' }), name, this.guard, this.codecs);
      this.collections.set(name, c);
    }
    return c as LmdbCollection<T>;
  }

  async commit(ops: readonly WriteOp[]): Promise<boolean> {
    if (ops.length === 0) return true;
    return this.guard.run(() => this.commitNow(ops));
  }

  private async commitNow(ops: readonly WriteOp[]): Promise<boolean> {
    const cols = ops.map((op) => this.collection<unknown>(op.collection) as LmdbCollection<unknown>);
    const dbs = cols.map((c) => c.db);
    const values = ops.map((op, i) => (op.value !== undefined && cols[i].codec ? cols[i].codec!.encode(op.value, op.key) : op.value));
    const write = () => {
      for (let i = 0; i < ops.length; i++) {
        if (ops[i].value === undefined) dbs[i].remove(ops[i].key);
        else dbs[i].put(ops[i].key, values[i]);
      }
    };
    const conds = ops.flatMap((op, i) => (op.ifAbsent ? [i] : []));
    if (conds.length === 0) return this.root.batch(write);
    // conditional writes nested one inside the other, all issued in this turn: lmdb-js writes them in
    // one transaction and its write thread checks each condition under LMDB's cross-process writer
    // lock, so nothing is written unless every ifAbsent key is still absent. Unlike a transaction
    // callback, the write thread never waits mid-transaction for this event loop to run JS.
    const outcomes: Array<Promise<boolean>> = [];
    const nest = (c: number): void => {
      if (c === conds.length) return write();
      const i = conds[c];
      outcomes.push(dbs[i].ifNoExists(ops[i].key, () => nest(c + 1)));
    };
    nest(0);
    return (await Promise.all(outcomes)).every(Boolean);
  }

  async stats(): Promise<CollectionStats[]> {
    const out: CollectionStats[] = [];
    for (const name of this.root.getKeys()) {
      if (typeof name !== 'string' || !/^[a-z0-9_.-]{1,64}$/.test(name)) continue;
      const st = (this.collection<unknown>(name) as LmdbCollection<unknown>).db.getStats() as Record<string, number>;
      const pages = (st.treeBranchPageCount ?? 0) + (st.treeLeafPageCount ?? 0) + (st.overflowPages ?? 0);
      out.push({ name, entries: st.entryCount ?? 0, bytes: pages * (st.pageSize ?? 4096) });
    }
    return out;
  }

  /**
   * Resolves within closeTimeoutMs even on a full disk. lmdb-js's close waits for the flush of the
   * last transaction, and a transaction that failed is never flushed: after a refused write its
   * close never resolved, not even once space was freed (measured; docs/operations.md). A write
   * transaction that changes nothing commits without touching the disk, and its flush stands in.
   * Past the bound the environment is left to the process's exit; every acknowledged write was
   * committed before it was acknowledged, so nothing acknowledged depends on this close.
   */
  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    const deadline = Date.now() + this.closeTimeoutMs;
    await settlesBy(this.guard.idle(), deadline);
    if (this.guard.lastFailed && this.guard.pending === 0) {
      // the key cannot exist (collection names match [a-z0-9_.-]): removing it is an empty transaction
      await settlesBy(this.root.remove('\u0000proofgate.close'), deadline);
    }
    const refused = this.guard.refused;
    // lmdb-js resets a read transaction on a timer queued by the read; closing before that timer
    // runs makes it throw from the timer (an uncaught exception that kills a process stopping on a
    // failed start-up): one timer turn lets the queued resets run first
    await new Promise((r) => setTimeout(r, 1));
    if (await settlesBy(this.root.close(), deadline)) {
      if (refused) this.log?.warn({ event: 'store.closed_full', refused }, 'data store closed on a full disk: the refused writes were answered 507 and never stored; every acknowledged write is on disk');
      return;
    }
    this.log?.error(
      { event: 'store.close_incomplete', pending_writes: this.guard.pending, refused, timeout_ms: this.closeTimeoutMs },
      'data store close did not finish in time: the writes still pending were never acknowledged; the environment is left to the process exit',
    );
  }
}
