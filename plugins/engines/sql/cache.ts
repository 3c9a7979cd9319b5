/**
 * A tiny per-worker LRU. Schemas repeat across requests (a client verifies many queries against
 * one schema), and parsing the DDL or building a SQLite database for it costs milliseconds.
 */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number, private readonly onEvict?: (v: V) => void) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  /** drops every entry (the bench does this between passes so each pass redoes the work) */
  clear(): void {
    for (const v of this.map.values()) this.onEvict?.(v);
    this.map.clear();
  }

  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as string;
      const old = this.map.get(oldest)!;
      this.map.delete(oldest);
      this.onEvict?.(old);
    }
  }
}
