import type { App, Plugin } from '../../core/types.js';
import { createTranslator, providersFrom } from './translator.js';
import type { LlmTranslator } from './types.js';
import { llmSettings } from './settings.js';

/**
 * Language-model translation (decisions §7) as the `llm.translator` service. Providers translate
 * text into an expression; the engines evaluate it. Nothing a provider returns is a verdict.
 * The engines that use it declare it `optional`, so the kernel registers this plugin first.
 */
export const TRANSLATOR_SERVICE = 'llm.translator';

declare module '../../core/types.js' {
  interface Services {
    'llm.translator': LlmTranslator;
  }
}

export { createTranslator, providersFrom, KNOWN_PROVIDERS } from './translator.js';
export { translateMath, LOCAL_PROVIDER, LOCAL_CONFIDENCE } from './local.js';
export { ProviderError } from './types.js';
export { untrustedReply, type UntrustedReply } from './output.js';
export type * from './types.js';

const plugin: Plugin = {
  name: 'providers',
  provides: [TRANSLATOR_SERVICE],
  settings: llmSettings,
  register(app: App) {
    const providers = providersFrom(app.settings(llmSettings));
    const calls = app.metrics.counter('svc_llm_translations_total', 'Language-model translations by provider, target and outcome', ['provider', 'target', 'outcome']);
    const seconds = app.metrics.histogram('svc_llm_translation_seconds', 'Language-model translation latency', ['provider', 'target'], [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
    const translator = createTranslator(providers, app.settings(llmSettings).provider, {
      observe(provider, target, outcome, s) {
        calls.inc({ provider, target, outcome });
        seconds.observe({ provider, target }, s);
      },
    });
    app.provide(TRANSLATOR_SERVICE, translator);
    app.log.info({ event: 'llm.providers', default: translator.defaultProvider, available: translator.available() }, 'language-model translators');
  },
};

export default plugin;
