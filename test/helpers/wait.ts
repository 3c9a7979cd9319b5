/**
 * The one way a test waits for something to happen: `check` is polled (first at once, then every
 * `everyMs`) until it returns a truthy value, which is returned; past `timeoutMs` the wait rejects
 * naming `what`. A test never sleeps a fixed time hoping the thing has happened by then: on a busy
 * machine it has not, on a quiet one the time is wasted. A check that throws counts as not yet
 * (a server still starting refuses connections).
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  o: { what: string; timeoutMs?: number; everyMs?: number },
): Promise<NonNullable<T>> {
  // a bound on a failure, not a speed claim: generous, for a machine shared with other test runs
  const timeoutMs = o.timeoutMs ?? 30_000;
  const everyMs = o.everyMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${o.what}${why}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
