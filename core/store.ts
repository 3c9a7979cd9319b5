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

export interface Store {
  collection<T>(name: string): Collection<T>;
  /** true once open and until closed */
  readonly ready: boolean;
  close(): Promise<void>;
}
