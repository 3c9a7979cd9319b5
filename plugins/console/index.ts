import type { App, Plugin } from '../../core/types.js';
import { HttpError, Problems } from '../../core/errors.js';
import { CONSOLE_HEADERS, loadAssets, type Asset } from './assets.js';
import { consoleSettings, type ConsoleSettings } from './settings.js';

export { CONSOLE_CSP, CONSOLE_HEADERS } from './assets.js';

const S = 'https://proofgate.dev/schemas/console';

/** On unless switched off; a sidecar beside one application has no operator browsing to it by default. */
export function consoleEnabled(s: ConsoleSettings, mode: App['config']['mode']): boolean {
  return s.enabled ?? mode !== 'sidecar';
}

/**
 * The operator's console (docs/console.md): static files only. Every action the page takes is a
 * request to the same HTTP API the CLI uses, authenticated by the credentials the user types in;
 * this plugin adds no route that reads or changes anything.
 */
function register(app: App): void {
  if (!consoleEnabled(app.settings(consoleSettings), app.config.mode)) return;
  const assets = loadAssets();
  if (!assets) app.log.warn({ event: 'console.unbuilt' }, 'console enabled but dist/console/ holds no built page: run `npm run build`');
  const serve = (name: string): { status: number; headers: Record<string, string>; body: Buffer } => {
    const a: Asset | undefined = assets?.get(name);
    if (!assets) throw new HttpError(Problems.unavailable, 'the console was not built with this installation');
    if (!a) throw new HttpError(Problems.notFound, 'no such console file');
    return { status: 200, headers: { ...CONSOLE_HEADERS, 'content-type': a.type }, body: a.body };
  };
  app.route({ method: 'GET', path: '/console', auth: 'none', produces: 'text/html', handler: () => serve('index.html') });
  app.route({
    method: 'GET',
    path: '/console/:asset',
    auth: 'none',
    produces: 'text/javascript',
    schema: { params: `${S}/asset.params.json` },
    handler: (ctx) => serve(ctx.params.asset),
  });
}

const plugin: Plugin = { name: 'console', settings: consoleSettings, register };
export default plugin;
