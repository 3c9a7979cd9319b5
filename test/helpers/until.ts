/**
 * Awaits `check` becoming true, polling (bounded), for conditions only visible from outside (a
 * replica's /readyz, a client's view of a restarted Redis). The one wait-until loop of the tests.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string, tries = 200, everyMs = 50): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
