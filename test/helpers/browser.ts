import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * The system's Chromium (Debian's `chromium`, installed by .ci/run when missing) driven by
 * playwright-core: nothing downloads a browser. PG_CHROMIUM names another binary.
 */
export const CHROMIUM = process.env.PG_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(t: { teardown(fn: () => unknown): void }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set PG_CHROMIUM`);
  // root in a container has no user namespace for Chromium's sandbox; the pages are our own, on loopback
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args, headless: true });
  t.teardown(() => browser.close());
  return browser;
}

/** Screenshots of the console's views, kept beside the build output (dist/ is not checked in). */
export function screenshotDir(): string {
  const dir = join(process.cwd(), 'dist', 'screenshots', 'console');
  mkdirSync(dir, { recursive: true });
  return dir;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it stands, `rule (nodes)` each. The
 * script is evaluated over the DevTools protocol, which the page's CSP does not govern, so the page
 * is checked under its real policy.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const out = (await page.evaluate('axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))')) as Array<{
    id: string;
    impact: string | null;
    nodes: number;
  }>;
  return out.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes})`);
}
