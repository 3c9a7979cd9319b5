/**
 * The persistence contract. Backend-neutral and async on purpose: today LMDB (store-lmdb.ts),
 * later a PostgreSQL backend shared by replicas. Nothing above this file may assume one process
 * owns the data, so the only atomic primitives offered are ones every backend can do across
 * processes: insert-if-absent (compare-and-set on a key) and a read-modify-write of one key.
 * Values are JSON-compatible; keys are strings and sort lexicographically.
 */
export interface ListOptions {
  /** only keys starting with this prefix */
  prefix?: string;
  /** inclusive lower bound (after prefix filtering) */
  start?: string;
  /** exclusive upper bound */
  end?: string;
  reverse?: boolean;
  limit?: number;
}

export interface Entry<T> {
  key: string;
  value: T;
}

export interface Collection<T> {
  get(key: string): Promise<T | undefined>;
  /** durable when the promise resolves */
  put(key: string, value: T): Promise<void>;
  /** writes only when the key is absent; false when it already existed (nothing written) */
  insert(key: string, value: T): Promise<boolean>;
  /**
   * Atomic read-modify-write of one key. `fn` gets the current value (or undefined) and returns the
   * new value, or undefined to leave it untouched. Resolves to the value stored afterwards.
   */
  update(key: string, fn: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  delete(key: string): Promise<boolean>;
  list(opts?: ListOptions): Promise<Entry<T>[]>;
  count(opts?: Pick<ListOptions, 'prefix'>): Promise<number>;
}

/**
 * The backend cannot serve now (a database that does not answer, a demoted primary): the request
 * may succeed if retried shortly, so the kernel answers 503 `store_unavailable`, not 500.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * The backend refused a write for lack of space: a full disk, a quota, a file-size limit (LMDB:
 * core/store/lmdb-health.ts). Unlike StoreUnavailableError this does not pass by itself (someone
 * must free space), and reads still work, so the kernel answers 507 `store_full`. Nothing of the
 * refused write was stored; everything acknowledged before it is.
 */
export class StoreFullError extends Error {
  override readonly name = 'StoreFullError';
}

/** One write of a `Store.commit`: a put (value given), a delete (value undefined), or an insert-if-absent. */
export interface WriteOp {
  collection: string;
  key: string;
  /** undefined deletes the key */
  value?: unknown;
  /** write only when the key is absent; if any such key exists, the whole commit writes nothing */
  ifAbsent?: boolean;
}

/** How a `Store.commit` caller behaves when the commit loses an ifAbsent race. */
export interface CommitOptions {
  /**
   * The caller re-reads and commits again after a lost race (the audit chain does, up to its retry
   * limit). A shared backend may then keep the contested chain for that retry, so the loser is not
   * overtaken again (PostgreSQL: core/store/pg-commit.ts); a loser that will not retry holds nothing.
   */
  retryOnConflict?: boolean;
}

/** Sizes of one collection (`proofgate store stats`); bytes are the backend's own accounting. */
export interface CollectionStats {
  name: string;
  entries: number;
  /** bytes of the pages holding the collection (LMDB: branch + leaf + overflow pages); null when unknown */
  bytes: number | null;
}

export interface Store {
  collection<T>(name: string): Collection<T>;
  /**
   * Writes `ops` (of any collections) as ONE all-or-nothing transaction, durable when the promise
   * resolves. Resolves false, having written nothing, when a key of an `ifAbsent` op already
   * exists — the caller lost a race and must re-read before retrying. This is the batch primitive
   * of group commit (the audit chain seals many entries and writes them here at once).
   *
   * Backend contract, so that the same callers work on a shared database:
   *  - LMDB: one write transaction (the single-writer lock is process-wide and cross-process), the
   *    ifAbsent conditions checked by lmdb-js's write thread inside it; lmdb-js merges concurrent
   *    commit() calls into one disk sync, each call still all-or-nothing.
   *  - PostgreSQL (shared mode): `BEGIN; SELECT … FOR UPDATE` on the row that serialises the
   *    writers (e.g. the audit head row of the organisation), then `INSERT … ON CONFLICT DO NOTHING`
   *    per ifAbsent op (any row count 0 → ROLLBACK and resolve false), upserts/deletes for the rest,
   *    `COMMIT` (synchronous_commit on). One transaction per call, never one per op.
   */
  commit(ops: readonly WriteOp[], opts?: CommitOptions): Promise<boolean>;
  /** entries and bytes per collection, for operators (`proofgate store stats`) */
  stats(): Promise<CollectionStats[]>;
  /** true once open and until closed */
  readonly ready: boolean;
  /**
   * A store that opens in the background (PostgreSQL, which may not answer yet): resolves once it
   * is usable, rejects when it cannot become so or not within `timeoutMs` (Infinity: no bound).
   * Absent where the store is usable as soon as it is constructed (LMDB).
   */
  whenOpen?(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  /**
   * Lays out these collections with their codecs from now on (the kernel passes what its plugins
   * declare before any of them registers). Throws when a collection already has another codec.
   */
  useCodecs(codecs: CollectionCodecs): void;
}

/**
 * How one collection's values are laid out on disk, when that differs from the value callers see
 * (e.g. the audit plugin keeps hashes as 32 raw bytes and drops fields its key already names).
 * The plugin that owns the collection declares it in its manifest (`collections`); the kernel hands
 * the declarations to the store before any plugin registers, and a tool that opens a store itself
 * (`proofgate migrate`, `audit verify`) passes the codecs of what it reads. No module-global table:
 * what a store decodes depends only on what it was given. `decode` must accept anything `encode`
 * may have left unchanged (and older layouts).
 */
export interface Codec<T = unknown> {
  encode(value: T, key: string): unknown;
  decode(stored: unknown, key: string): T;
}

/** collection name → codec, as a plugin declares them (Plugin.collections) */
export type CollectionCodecs = Readonly<Record<string, Codec>>;

/**
 * The codecs one store instance uses. A collection keeps the codec it was first given: another
 * codec for it is refused (two owners, or a store reused by a kernel with other plugins), since
 * values written in one layout would be read in the other.
 */
export class CodecTable {
  private readonly codecs = new Map<string, Codec>();

  add(codecs: CollectionCodecs | undefined): void {
    for (const [name, codec] of Object.entries(codecs ?? {})) {
      if (typeof codec?.encode !== 'function' || typeof codec.decode !== 'function') throw new TypeError(`collection ${name}: a codec needs encode and decode`);
      const had = this.codecs.get(name);
      if (had && had !== codec) throw new Error(`collection ${name} already has another codec`);
      this.codecs.set(name, codec);
    }
  }

  of(collection: string): Codec | undefined {
    return this.codecs.get(collection);
  }
}
