import { readFileSync, statfsSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { StoreFullError } from './store.js';

/**
 * What lmdb-js does when a commit cannot be written (measured with lmdb 3.5.6, see
 * docs/operations.md "A full disk"): the write's promise rejects with a bare
 * `Error('Commit failed (see commitError for details)')` whose `commitError` is a second promise,
 * rejected in the same callback with the real cause, an Error whose `code` is the errno
 * (ENOSPC 28, EFBIG 27 under a file-size limit, EDQUOT) or EIO (5) when the file system took only
 * part of a page run (LMDB's own comment: "short write, filesystem full?"). Nothing here imports
 * lmdb: sidecar/commands/start.ts uses isLmdbCommitEcho without loading the backend.
 */
const COMMIT_FAILED = 'Commit failed (see commitError for details)';
/** LMDB's MDB_MAP_FULL. lmdb-js grows its map on its own, so this is not expected; it means the same */
const MDB_MAP_FULL = -30792;
const FULL = new Set<number>([constants.errno.ENOSPC, constants.errno.EFBIG, constants.errno.EDQUOT, MDB_MAP_FULL].filter((n) => typeof n === 'number'));
const NAMES = new Map<number, string>([
  [constants.errno.ENOSPC, 'ENOSPC'],
  [constants.errno.EFBIG, 'EFBIG'],
  [constants.errno.EDQUOT, 'EDQUOT'],
  [constants.errno.EIO, 'EIO'],
  [MDB_MAP_FULL, 'MDB_MAP_FULL'],
]);
/** less room than this left for the data file: a short write (EIO) is the disk filling up */
const LOW_ROOM = 1 << 20;
/** a full-disk episode ends once writes have fitted for this long; a store that frees pages succeeds in between */
const QUIET_MS = 30_000;

/**
 * lmdb-js also rejects, unobserved, a promise of its own for each failed commit (the batch it
 * starts per event turn), with the same error and the same commitError. The process's
 * unhandledRejection handler would log it once per failed transaction: the store reports the
 * condition itself, once per episode (LmdbStore).
 */
export function isLmdbCommitEcho(err: unknown): boolean {
  return err instanceof Error && err.message === COMMIT_FAILED && 'commitError' in err;
}

interface Cause {
  code: number | undefined;
  message: string;
}

/** The cause lmdb-js gives a failed commit, or null when `err` is not one (a thrown argument error). */
async function commitCause(err: unknown): Promise<Cause | null> {
  if (!isLmdbCommitEcho(err)) return null;
  const pending = Symbol('pending');
  // rejected in the same callback as the write, so already settled here; a race with a settled
  // promise reads it without ever waiting (and observes it, so it is no unhandled rejection)
  const cause = await Promise.race([(err as { commitError: Promise<unknown> }).commitError, Promise.resolve(pending)]).then(
    () => null,
    (e: unknown) => e as { code?: unknown; message?: unknown },
  );
  if (!cause) return { code: undefined, message: 'unknown' };
  return { code: typeof cause.code === 'number' ? cause.code : undefined, message: String(cause.message ?? '') };
}

/** The soft RLIMIT_FSIZE of this process on Linux (Infinity when unlimited or unknown). */
function fileSizeLimit(): number {
  try {
    const m = /^Max file size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m && m[1] !== 'unlimited' ? Number(m[1]) : Infinity;
  } catch {
    return Infinity;
  }
}

/** bytes the data file may still grow by: the file system's free space, or the process's file-size limit */
function roomLeft(dir: string): number {
  try {
    const fs = statfsSync(dir);
    const free = fs.bavail * fs.bsize;
    return Math.min(free, fileSizeLimit() - statSync(join(dir, 'data.mdb')).size);
  } catch {
    return Infinity;
  }
}

export interface HealthLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Every write of an LmdbStore runs through here: a commit refused for lack of space becomes a
 * StoreFullError, the episode is logged once (not once per request), and close() can wait for the
 * writes in flight and learn whether the last one failed (lmdb-js then never resolves its close).
 */
export class WriteGuard {
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  /** the last commit to settle failed: lmdb-js's close waits for its flush, which never comes */
  lastFailed = false;
  private episode: { since: number; lastFullAt: number; cause: string; refused: number } | null = null;

  constructor(
    private readonly dir: string,
    private readonly log: HealthLog | undefined,
    /** observes lmdb-js's own promise of the failed commit (isLmdbCommitEcho), which nobody awaits */
    private readonly observeEcho: () => void = () => undefined,
  ) {}

  get pending(): number {
    return this.inFlight;
  }

  /** writes refused since the current full-disk episode began (0 when there is none) */
  get refused(): number {
    return this.episode?.refused ?? 0;
  }

  async run<T>(write: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      const out = await write();
      this.lastFailed = false;
      this.fitted();
      return out;
    } catch (err) {
      throw await this.failed(err);
    } finally {
      if (--this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** resolves once no write is in flight */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((r) => this.idleWaiters.push(r));
  }

  private async failed(err: unknown): Promise<unknown> {
    if (isLmdbCommitEcho(err)) this.observeEcho();
    const cause = await commitCause(err);
    if (!cause) return err;
    this.lastFailed = true;
    const code = cause.code;
    const full = code !== undefined && (FULL.has(code) || (code === constants.errno.EIO && roomLeft(this.dir) < LOW_ROOM));
    if (!full) return err;
    const name = NAMES.get(code) ?? String(code);
    const now = Date.now();
    if (this.episode && now - this.episode.lastFullAt >= QUIET_MS) this.end(now);
    if (!this.episode) {
      this.episode = { since: now, lastFullAt: now, cause: name, refused: 0 };
      this.log?.error(
        { event: 'store.full', cause: name, data_dir: this.dir, detail: cause.message },
        'the data store cannot write: no space for its data file. Writes are refused (507 store_full) until space is freed; reads go on',
      );
    }
    this.episode.refused++;
    this.episode.lastFullAt = now;
    return new StoreFullError(`LMDB commit refused: ${name}`, { cause: err });
  }

  private fitted(): void {
    if (this.episode && Date.now() - this.episode.lastFullAt >= QUIET_MS) this.end(Date.now());
  }

  private end(now: number): void {
    const e = this.episode!;
    this.log?.warn(
      { event: 'store.writable', refused: e.refused, seconds: Math.round((now - e.since) / 1000) },
      'the data store writes again after a full disk',
    );
    this.episode = null;
  }
}

/** `p` settled before `deadline` (ms since the epoch)? Never rejects. */
export async function settlesBy(p: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([p.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
