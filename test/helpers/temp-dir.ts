import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What tempDir needs of a tap test: both a subtest and tap's root `t` have it. */
interface Teardowns {
  teardown(fn: () => unknown): void;
}

/**
 * A fresh directory in the OS temp dir, removed when `t` ends. Teardowns run last-registered first,
 * so a directory made before the server or store that uses it is removed after that closes.
 * For a directory made at the top of a file, pass tap's root `t`: it ends with the file.
 */
export function tempDir(t: Teardowns, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
