import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { WriteOp } from './store.js';

/**
 * `Store.commit` on PostgreSQL: one transaction per call, and fairness between replicas racing on
 * the same insert-if-absent positions (the audit chain's next entries).
 *
 * Correctness needs only the unique key: `INSERT … ON CONFLICT DO NOTHING` of a position another
 * transaction holds waits for it and then reports the conflict, so two writers never both own a
 * position. Progress needs more. The loser of a race must re-read the head and reseal, two round
 * trips the winner does not pay, so under sustained load the winner (whose cached head is always
 * right) starts its next batch first every time and the loser starves. Hence the lock:
 *
 *  - every commit with ifAbsent ops takes a transaction-level advisory lock per "chain" it inserts
 *    into — (collection, key up to its last '/'), e.g. one organisation's audit chain — in the
 *    same round trip as BEGIN, so commits of one chain queue in arrival order;
 *  - a commit that loses (a position exists) and whose caller said it will retry
 *    (`retryOnConflict`) takes the same locks at session level before its ROLLBACK and keeps that
 *    connection: no one else can extend the chain while the caller re-reads the head (over that
 *    same connection, `readHeld`), and its retry (on it too) is sure to find it current. The
 *    session locks are released when that retry ends, after `holdMs` if no retry comes, at close,
 *    or by PostgreSQL if the process dies. A loser that will not retry (the chain's last attempt, a
 *    caller without retries) keeps nothing: held for it, the chain would stall every other writer
 *    for `holdMs`. At most `maxHeld` connections are kept at once (other work needs the pool); a
 *    loser past that retries unprotected, as without the lock.
 */
export interface CommitPlan {
  ins: { c: string[]; k: string[]; v: Buffer[] };
  put: { c: string[]; k: string[]; v: Buffer[] };
  del: { c: string[]; k: string[] };
  /** advisory lock ids (signed 64-bit, decimal) of the chains the ifAbsent ops insert into, sorted */
  locks: string[];
}

/**
 * The advisory lock id (signed 64-bit, decimal) of a chain: a collection and a key prefix ending
 * in '/' (one organisation's audit entries), or a whole key that has no '/'.
 */
export const chainLock = (collection: string, prefix: string): string =>
  createHash('sha256').update(`${collection}\0${prefix}`).digest().readBigInt64BE(0).toString();

/** Only the final state of each key matters inside one transaction: the ops collapse to three statements. */
export function planCommit(ops: readonly WriteOp[], encode: (op: WriteOp) => Buffer, encodeNull: () => Buffer): CommitPlan {
  const id = (op: WriteOp) => `${op.collection}\0${op.key}`;
  const last = new Map<string, WriteOp>();
  const absent = new Map<string, WriteOp>();
  for (const op of ops) {
    last.set(id(op), op);
    if (op.ifAbsent) absent.set(id(op), op);
  }
  const plan: CommitPlan = { ins: { c: [], k: [], v: [] }, put: { c: [], k: [], v: [] }, del: { c: [], k: [] }, locks: [] };
  const chains = new Set<string>();
  for (const [k, op] of absent) {
    const fin = last.get(k)!;
    plan.ins.c.push(op.collection);
    plan.ins.k.push(op.key);
    // checked against the state before the commit (as on LMDB); the key ends with its last value
    plan.ins.v.push(fin.value === undefined ? encodeNull() : encode(fin));
    chains.add(chainLock(op.collection, op.key.slice(0, op.key.lastIndexOf('/') + 1) || op.key));
  }
  for (const [k, op] of last) {
    if (op.value === undefined) {
      plan.del.c.push(op.collection);
      plan.del.k.push(op.key);
    } else if (!absent.has(k) || !op.ifAbsent) {
      plan.put.c.push(op.collection);
      plan.put.k.push(op.key);
      plan.put.v.push(encode(op));
    }
  }
  // sorted, so two commits naming several chains always lock them in the same order
  plan.locks = [...chains].sort();
  return plan;
}

interface Held {
  client: pg.PoolClient;
  busy: boolean;
  timer: NodeJS.Timeout | undefined;
  onError: (err: Error) => void;
  /** settles when a read that borrowed the connection (`readHeld`) has given it back */
  reading?: Promise<void>;
}

const RETRYABLE = new Set(['40P01', '40001']);

export class PgCommitter {
  private readonly held = new Map<string, Held>();
  /** chains kept for a retry, and those given up after `holdMs` because the retry did not come */
  readonly stats = { kept: 0, expired: 0 };

  constructor(
    private readonly connect: () => Promise<pg.PoolClient>,
    private readonly table: string,
    private readonly holdMs = 2000,
    /** at most this many kept connections, so other work always finds some free in the pool */
    private readonly maxHeld = 4,
  ) {}

  /** `retry`: the caller commits again after a lost race, so the chain is kept for it */
  async commit(plan: CommitPlan, retry = false): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(plan, retry);
      } catch (err) {
        // a deadlock between companion writes of concurrent batches: nothing was written, run again
        if (attempt < 5 && RETRYABLE.has((err as { code?: string }).code ?? '')) continue;
        throw err;
      }
    }
  }

  private async once(plan: CommitPlan, retry: boolean): Promise<boolean> {
    const t = this.table;
    const key = plan.locks.join(',');
    let h = plan.locks.length ? this.held.get(key) : undefined;
    // a read has the kept connection for one round trip: wait for it. Through the pool, this
    // commit would queue in PostgreSQL behind the lock that very connection keeps for it
    while (h?.reading) {
      await h.reading;
      h = this.held.get(key);
    }
    if (h?.busy) h = undefined;
    let c: pg.PoolClient;
    let broken: Error | undefined;
    const onError = (err: Error) => (broken = err);
    if (h) {
      h.busy = true;
      clearTimeout(h.timer);
      c = h.client;
    } else {
      c = await this.connect();
      // checked out, a client has no pool listener: a lost server must reject, not end the process
      c.on('error', onError);
    }
    const lockSql = (fn: string) => plan.locks.map((id) => `SELECT ${fn}(${id});`).join(' ');
    let conflict = false;
    // whether a lost race leaves the chain held for the caller's retry
    let keep = false;
    try {
      // ids are integers computed here, so they are inlined: BEGIN and the locks cost one round trip
      await c.query(plan.locks.length ? `BEGIN; ${lockSql('pg_advisory_xact_lock')}` : 'BEGIN');
      if (plan.ins.k.length) {
        const r = await c.query(
          `INSERT INTO ${t} (collection, key, value) SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[]) ON CONFLICT DO NOTHING`,
          [plan.ins.c, plan.ins.k, plan.ins.v],
        );
        conflict = r.rowCount !== plan.ins.k.length;
      }
      if (conflict) {
        // keep the chain for the caller's retry: session locks outlive the ROLLBACK (a kept
        // connection already holds them)
        keep = retry && (h !== undefined || this.held.size < this.maxHeld);
        if (keep && !h) await c.query(lockSql('pg_advisory_lock'));
        await c.query('ROLLBACK');
      } else {
        if (plan.put.k.length)
          await c.query(
            `INSERT INTO ${t} (collection, key, value) SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[]) ON CONFLICT (collection, key) DO UPDATE SET value = EXCLUDED.value`,
            [plan.put.c, plan.put.k, plan.put.v],
          );
        if (plan.del.k.length) await c.query(`DELETE FROM ${t} WHERE (collection, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, [plan.del.c, plan.del.k]);
        await c.query('COMMIT');
      }
    } catch (err) {
      // a timed-out statement still runs on the connection (store-pg.ts query_timeout): anything
      // sent now would queue behind it. Discarding the connection rolls back and frees its locks
      if ((err as Error)?.message === 'Query read timeout') broken ??= err as Error;
      else {
        try {
          await c.query('ROLLBACK');
          if (h || conflict) await c.query('SELECT pg_advisory_unlock_all()');
        } catch (e) {
          broken ??= e as Error;
        }
      }
      if (h) this.held.delete(key);
      this.finish(c, h?.onError ?? onError, broken);
      throw err;
    }
    if (conflict && !keep) {
      if (h) {
        // a retry that lost again and will not come back: give the chain up now
        this.held.delete(key);
        await c.query('SELECT pg_advisory_unlock_all()').catch((e) => (broken ??= e as Error));
      }
      this.finish(c, h?.onError ?? onError, broken);
      return false;
    }
    if (conflict) {
      if (!h) {
        h = { client: c, busy: false, timer: undefined, onError };
        this.held.set(key, h);
        this.stats.kept++;
      }
      h.busy = false;
      h.timer = setTimeout(() => void this.release(key, true), this.holdMs);
      return false;
    }
    if (h) {
      this.held.delete(key);
      await c.query('SELECT pg_advisory_unlock_all()').catch((e) => (broken ??= e as Error));
    }
    this.finish(c, h?.onError ?? onError, broken);
    return true;
  }

  private finish(c: pg.PoolClient, onError: (err: Error) => void, broken: Error | undefined): void {
    c.removeListener('error', onError);
    c.release(broken);
  }

  /**
   * Runs a read of a chain kept for its caller's retry over the connection that keeps it, or
   * returns undefined when this process keeps no idle connection for that chain, or when that
   * connection fails (the chain is then given up, and the caller reads through the pool).
   *
   * The caller re-reads the head before it retries; through the pool, that read could wait for a
   * free connection while every one is taken by kept chains and by commits queued (inside
   * PostgreSQL) behind another replica's kept chains, whose own re-reads wait the same way: each
   * kept chain then stalls until `holdMs` gives it up (seconds, seen with two writers on twelve
   * organisations). On the kept connection the read needs nothing from the pool, and it sees the
   * current head, since no one else can extend the chain meanwhile.
   */
  async readHeld(lock: string, run: (c: pg.PoolClient) => Promise<pg.QueryResult>): Promise<pg.QueryResult | undefined> {
    const h = this.held.get(lock);
    if (!h || h.busy) return undefined;
    h.busy = true;
    clearTimeout(h.timer);
    let given!: () => void;
    h.reading = new Promise<void>((r) => (given = r));
    try {
      return await run(h.client);
    } catch (err) {
      // a connection that fails a plain read is not kept for a retry: give the chain up
      this.held.delete(lock);
      await h.client.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      this.finish(h.client, h.onError, err as Error);
      return undefined;
    } finally {
      h.reading = undefined;
      if (this.held.get(lock) === h) {
        h.busy = false;
        h.timer = setTimeout(() => void this.release(lock, true), this.holdMs);
      }
      given();
    }
  }

  /** gives a kept chain back when its retry did not come */
  private async release(key: string, expired = false): Promise<void> {
    const h = this.held.get(key);
    if (!h || h.busy) return;
    this.held.delete(key);
    if (expired) this.stats.expired++;
    clearTimeout(h.timer);
    let broken: Error | undefined;
    await h.client.query('SELECT pg_advisory_unlock_all()').catch((e) => (broken = e as Error));
    this.finish(h.client, h.onError, broken);
  }

  async close(): Promise<void> {
    await Promise.all([...this.held.keys()].map((k) => this.release(k)));
  }
}
