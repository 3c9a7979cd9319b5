import pg from 'pg';
import { Packr } from 'msgpackr';
import { CodecTable, type Codec, type CollectionCodecs, type Collection, type CollectionStats, type CommitOptions, type Entry, type ListOptions, type Store, type WriteOp, StoreUnavailableError } from './store.js';
import { migrate } from './pg-migrate.js';
import { chainLock, PgCommitter, planCommit } from './pg-commit.js';
import { classifyPgError, isConnectionError, isQueryTimeout } from './pg-errors.js';

/**
 * PostgreSQL backend (shared mode: every replica opens the same database). One table holds every
 * collection: `kv(collection, key, value)`, keys in the "C" collation so they sort by code point
 * like LMDB's, values as MessagePack (`bytea`) so what a codec lays out — raw 32-byte hashes,
 * arrays — round-trips exactly as it does on LMDB.
 *
 * Atomicity is the same contract as store.ts states, across processes:
 *  - insert / ifAbsent ops are `INSERT … ON CONFLICT DO NOTHING`; a second transaction inserting
 *    the same key waits on the first's uncommitted index entry and then sees the conflict. That
 *    key is what keeps the audit chain linear: the first position of a batch (head + 1) is the
 *    head row-to-be, so of two replicas appending to one organisation one gets false, reloads the
 *    head and reseals. So that the loser is not starved by a busy winner, commits take an advisory
 *    lock per chain and a loser keeps it for its retry (store-pg-commit.ts).
 *  - update() is `SELECT … FOR UPDATE`; an absent key is created with insert-if-absent and the
 *    read-modify-write retried if another writer created it first (so `fn` may run more than once).
 *  - commit() is one transaction; deadlocks and serialisation failures between concurrent commits
 *    (two batches naming the same companion keys in different orders) are retried as a whole.
 */
export interface PgStoreOptions {
  url: string;
  /** schema holding the tables; one database may host several deployments or test runs */
  schema?: string;
  /** pool size per process */
  max?: number;
  /** how long an operation waits for a server that does not answer yet (default 30 s) */
  openTimeoutMs?: number;
  /**
   * how long one statement may go unanswered once open (default 30 s): a server that stops
   * answering mid-request (a network partition, a lock held by a frozen replica) fails the
   * operation instead of holding the request, and its pooled connection, forever
   */
  queryTimeoutMs?: number;
  /** start-up and health problems (the store keeps retrying; `ready` says whether it answers) */
  onError?: (err: Error) => void;
  /** layouts of the collections the opener reads (more may come by useCodecs) */
  codecs?: CollectionCodecs;
}

const packr = new Packr({ useRecords: false });
const enc = (v: unknown): Buffer => packr.pack(v);
const dec = (b: Buffer): unknown => packr.unpack(b);
const HIGH = '\uffff';
const NAME = /^[a-z0-9_.-]{1,64}$/;

class Conflict extends Error {}

function checkKey(key: string): void {
  // PostgreSQL text cannot hold NUL; refusing it here beats a driver error half-way through a batch
  if (typeof key !== 'string' || key.includes('\0')) throw new TypeError('store keys are strings without NUL');
}

class PgCollection<T> implements Collection<T> {
  constructor(
    private readonly s: PgStore,
    private readonly name: string,
  ) {}

  private get codec(): Codec | undefined {
    return this.s.codecs.of(this.name);
  }

  private encode(key: string, v: T): Buffer {
    return enc(this.codec ? this.codec.encode(v, key) : v);
  }

  private decode(key: string, b: Buffer): T {
    const v = dec(b);
    return (this.codec ? this.codec.decode(v, key) : v) as T;
  }

  async get(key: string): Promise<T | undefined> {
    if (key.includes('\0')) return undefined;
    const r = await this.s.query(`SELECT value FROM ${this.s.table} WHERE collection = $1 AND key = $2`, [this.name, key]);
    return r.rowCount ? this.decode(key, r.rows[0].value) : undefined;
  }

  async put(key: string, value: T): Promise<void> {
    checkKey(key);
    await this.s.query(
      `INSERT INTO ${this.s.table} (collection, key, value) VALUES ($1, $2, $3) ON CONFLICT (collection, key) DO UPDATE SET value = EXCLUDED.value`,
      [this.name, key, this.encode(key, value)],
    );
  }

  async insert(key: string, value: T): Promise<boolean> {
    checkKey(key);
    const r = await this.s.query(`INSERT INTO ${this.s.table} (collection, key, value) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
      this.name,
      key,
      this.encode(key, value),
    ]);
    return r.rowCount === 1;
  }

  async update(key: string, fn: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    checkKey(key);
    const t = this.s.table;
    for (;;) {
      try {
        return await this.s.transaction(async (c) => {
          const cur = await c.query(`SELECT value FROM ${t} WHERE collection = $1 AND key = $2 FOR UPDATE`, [this.name, key]);
          if (cur.rowCount) {
            const current = this.decode(key, cur.rows[0].value);
            const next = fn(current);
            if (next === undefined) return current;
            await c.query(`UPDATE ${t} SET value = $3 WHERE collection = $1 AND key = $2`, [this.name, key, this.encode(key, next)]);
            return next;
          }
          const next = fn(undefined);
          if (next === undefined) return undefined;
          const ins = await c.query(`INSERT INTO ${t} (collection, key, value) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
            this.name,
            key,
            this.encode(key, next),
          ]);
          if (ins.rowCount !== 1) throw new Conflict();
          return next;
        });
      } catch (err) {
        if (!(err instanceof Conflict)) throw err;
        // another writer created the key between our read and our insert: read it again, locked
      }
    }
  }

  async delete(key: string): Promise<boolean> {
    if (key.includes('\0')) return false;
    const r = await this.s.query(`DELETE FROM ${this.s.table} WHERE collection = $1 AND key = $2`, [this.name, key]);
    return (r.rowCount ?? 0) > 0;
  }

  async list(opts: ListOptions = {}): Promise<Entry<T>[]> {
    // the same bounds as the LMDB backend, so both return the same keys in the same order
    const prefix = opts.prefix ?? '';
    const lo = opts.start !== undefined && opts.start > prefix ? opts.start : prefix;
    const prefixEnd = prefix ? prefix + HIGH : undefined;
    let hi = opts.end ?? prefixEnd;
    if (hi !== undefined && prefixEnd !== undefined && hi > prefixEnd) hi = prefixEnd;
    if (prefix.includes('\0')) return [];
    // keys hold no NUL, so a bound `a + NUL + …` (the "next key after a" of paginating callers)
    // means "after a" as a lower bound and "up to a" as an upper one: PostgreSQL cannot take NUL
    const params: unknown[] = [this.name];
    const bound = (v: string, op: string, nulOp: string) => {
      const nul = v.indexOf('\0');
      params.push(nul < 0 ? v : v.slice(0, nul));
      return ` AND key ${nul < 0 ? op : nulOp} $${params.length}`;
    };
    let sql = `SELECT key, value FROM ${this.s.table} WHERE collection = $1` + bound(lo, '>=', '>');
    if (hi !== undefined) sql += bound(hi, '<', '<=');
    sql += opts.reverse ? ' ORDER BY key DESC' : ' ORDER BY key';
    if (opts.limit !== undefined) {
      params.push(Math.max(0, Math.floor(opts.limit)));
      sql += ` LIMIT $${params.length}`;
    }
    // a chain's entries (prefix up to '/') are read over the connection that keeps the chain, if any
    const r = (prefix.endsWith('/') ? await this.s.readHeld(chainLock(this.name, prefix), sql, params) : undefined) ?? (await this.s.query(sql, params));
    return r.rows.map((row: { key: string; value: Buffer }) => ({ key: row.key, value: this.decode(row.key, row.value) }));
  }

  async count(opts: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    const prefix = opts.prefix ?? '';
    if (prefix.includes('\0')) return 0;
    const r = prefix
      ? await this.s.query(`SELECT count(*)::bigint AS n FROM ${this.s.table} WHERE collection = $1 AND key >= $2 AND key < $3`, [
          this.name,
          prefix,
          prefix + HIGH,
        ])
      : await this.s.query(`SELECT count(*)::bigint AS n FROM ${this.s.table} WHERE collection = $1`, [this.name]);
    return Number(r.rows[0].n);
  }
}

export class PgStore implements Store {
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly table: string;
  private readonly collections = new Map<string, PgCollection<unknown>>();
  /** layouts of the collections whose owners declared one (core/store/store.ts Codec) */
  readonly codecs = new CodecTable();
  private readonly committer: PgCommitter;
  /** resolves once migrated, on an error retrying cannot fix, or on close */
  private readonly settled: Promise<void>;
  private settle: () => void = () => undefined;
  private readonly started: Promise<void>;
  private lastError: Error | undefined;
  private retry: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private migrated = false;
  private healthy = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: PgStoreOptions) {
    this.codecs.add(opts.codecs);
    this.schema = opts.schema ?? 'proofgate';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.schema)) throw new TypeError(`invalid schema name ${JSON.stringify(this.schema)}`);
    this.table = `"${this.schema}".kv`;
    // query_timeout: node-postgres has none by default, and a TCP connection whose peer went silent
    // is not closed for hours. A timed-out pooled query discards its connection (pg-pool releases
    // it with the error), so the next operation gets a fresh one
    this.pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.max ?? 10,
      connectionTimeoutMillis: 5000,
      query_timeout: opts.queryTimeoutMs ?? 30_000,
      keepAlive: true,
    });
    // an idle client losing its server must not crash the process; the next query reports it
    this.pool.on('error', (err) => {
      this.healthy = false;
      this.opts.onError?.(err);
    });
    this.committer = new PgCommitter(() => this.pool.connect(), this.table);
    this.settled = new Promise<void>((r) => (this.settle = r));
    this.started = this.start().catch((err) => {
      this.lastError = err as Error;
      this.settle();
    });
  }

  /**
   * Migrates, retrying while the server does not answer (replicas may start before it; `ready`
   * stays false meanwhile). Operations wait for it up to `openTimeoutMs`, then reject with the last
   * reason; an error retrying cannot fix (authentication, a failing migration) rejects them at once.
   */
  private async start(): Promise<void> {
    for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
      if (this.closed) return;
      try {
        await migrate(this.pool, this.schema);
        break;
      } catch (err) {
        this.lastError = err as Error;
        this.opts.onError?.(err as Error);
        if (!isConnectionError(err)) return this.settle();
        await new Promise<void>((r) => {
          this.wake = r;
          this.retry = setTimeout(r, delay);
        });
      }
    }
    if (this.closed) return;
    this.migrated = this.healthy = true;
    this.settle();
    this.timer = setInterval(() => void this.ping(), 2000).unref();
  }

  private async ping(): Promise<void> {
    try {
      // bounded more tightly than a request's statements: /readyz should turn within seconds
      // (node-postgres reads query_timeout per query too; its types omit it)
      const ping: pg.QueryConfig = Object.assign({ text: 'SELECT 1' }, { query_timeout: Math.min(5000, this.opts.queryTimeoutMs ?? 30_000) });
      await this.pool.query(ping);
      this.healthy = true;
    } catch (err) {
      if (this.healthy) this.opts.onError?.(err as Error);
      this.healthy = false;
    }
  }

  /** resolves once migrations ran; rejects with the reason when they cannot, or not within `timeoutMs` (Infinity: no bound) */
  async whenOpen(timeoutMs = this.opts.openTimeoutMs ?? 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = Number.isFinite(timeoutMs) ? [new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))] : [];
    await Promise.race([this.settled, ...bound]);
    clearTimeout(timer);
    if (this.closed) throw new Error('store closed');
    if (!this.migrated) throw new StoreUnavailableError(`PostgreSQL store unavailable: ${this.lastError?.message ?? 'not migrated'}`);
  }

  get ready(): boolean {
    return !this.closed && this.migrated && this.healthy;
  }

  useCodecs(codecs: CollectionCodecs): void {
    this.codecs.add(codecs);
  }

  async query(sql: string, params: unknown[]): Promise<pg.QueryResult> {
    if (!this.migrated) await this.whenOpen();
    return this.pool.query(sql, params).catch((err: unknown) => Promise.reject(classifyPgError(err)));
  }

  /** chains this process kept for a lost race's retry, and how many it gave up on a timeout */
  get keptChains(): { kept: number; expired: number } {
    return { ...this.committer.stats };
  }

  /** A read over the connection kept for a chain's retry (store-pg-commit.ts), or undefined if none is kept. */
  readHeld(lock: string, sql: string, params: unknown[]): Promise<pg.QueryResult | undefined> {
    return this.committer.readHeld(lock, (c) => c.query(sql, params)).catch((err: unknown) => Promise.reject(classifyPgError(err)));
  }

  /** Runs `fn` in one transaction on one pooled connection; any throw rolls it back. */
  async transaction<R>(fn: (c: pg.PoolClient) => Promise<R>): Promise<R> {
    if (!this.migrated) await this.whenOpen();
    const c = await this.pool.connect().catch((err: unknown) => Promise.reject(classifyPgError(err)));
    let broken: Error | undefined;
    // a checked-out client has no pool listener: without this, a server going away mid-transaction
    // would be an unhandled 'error' event and end the process; the pending query rejects anyway
    const onError = (err: Error) => (broken = err);
    c.on('error', onError);
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      // a statement that timed out is still running on the connection: a ROLLBACK would queue
      // behind it and time out in turn. Discarding the connection rolls the transaction back
      if (isQueryTimeout(err)) broken = err as Error;
      else {
        try {
          await c.query('ROLLBACK');
        } catch (e) {
          broken = e as Error;
        }
      }
      throw classifyPgError(err);
    } finally {
      c.removeListener('error', onError);
      c.release(broken);
    }
  }

  collection<T>(name: string): Collection<T> {
    if (!NAME.test(name)) throw new TypeError(`invalid collection name ${JSON.stringify(name)}`);
    let c = this.collections.get(name);
    if (!c) {
      c = new PgCollection<unknown>(this, name);
      this.collections.set(name, c);
    }
    return c as Collection<T>;
  }

  async commit(ops: readonly WriteOp[], opts?: CommitOptions): Promise<boolean> {
    if (ops.length === 0) return true;
    for (const op of ops) {
      if (!NAME.test(op.collection)) throw new TypeError(`invalid collection name ${JSON.stringify(op.collection)}`);
      checkKey(op.key);
    }
    const plan = planCommit(
      ops,
      (op) => {
        const codec = this.codecs.of(op.collection);
        return enc(codec ? codec.encode(op.value, op.key) : op.value);
      },
      () => enc(null),
    );
    if (!this.migrated) await this.whenOpen();
    return this.committer.commit(plan, opts?.retryOnConflict === true).catch((err: unknown) => Promise.reject(classifyPgError(err)));
  }

  async stats(): Promise<CollectionStats[]> {
    if (!this.migrated) await this.whenOpen();
    // an operator's full scan (proofgate store stats), not a request: it may outlast queryTimeoutMs
    const scan: pg.QueryConfig = Object.assign(
      { text: `SELECT collection, count(*)::bigint AS n, sum(pg_column_size(key) + pg_column_size(value))::bigint AS bytes FROM ${this.table} GROUP BY collection ORDER BY collection` },
      { query_timeout: 30 * 60_000 },
    );
    const r = await this.pool.query(scan);
    return r.rows.map((row: { collection: string; n: string; bytes: string }) => ({ name: row.collection, entries: Number(row.n), bytes: Number(row.bytes) }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    this.wake?.();
    this.settle();
    await this.started;
    await this.committer.close();
    await this.pool.end();
  }
}
