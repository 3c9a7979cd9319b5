import type { LlmSettings } from './settings.js';
import { ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_PROVIDER, anthropicProvider } from './anthropic.js';
import { LOCAL_PROVIDER, localProvider } from './local.js';
import { OPENAI_DEFAULT_BASE_URL, OPENAI_PROVIDER, openAiProvider } from './openai.js';
import { ProviderError, type LlmTranslator, type Provider, type TranslationOf, type TranslationTarget } from './types.js';

export const KNOWN_PROVIDERS = [LOCAL_PROVIDER, OPENAI_PROVIDER, ANTHROPIC_PROVIDER] as const;
const MAX_TEXT_CHARS = 20_000;

const set = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

function checkUrl(name: string, url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`${name} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL`);
  return url;
}

/**
 * The providers this configuration can use. `local` always; `openai` when a model is named and a
 * base URL or an API key is set (a local vLLM/Ollama needs no key); `anthropic` when a key and a
 * model are set. A half-configured provider is simply absent, and asking for it is an error.
 */
export function providersFrom(llm: LlmSettings): Map<string, Provider> {
  const out = new Map<string, Provider>([[LOCAL_PROVIDER, localProvider]]);
  const timeoutMs = llm.timeout_ms ?? 30_000;
  if (set(llm.openai_model) && (set(llm.openai_base_url) || set(llm.openai_api_key))) {
    const baseUrl = checkUrl('llm.openai_base_url', set(llm.openai_base_url) ? llm.openai_base_url : OPENAI_DEFAULT_BASE_URL);
    out.set(OPENAI_PROVIDER, openAiProvider({ baseUrl, apiKey: set(llm.openai_api_key) ? llm.openai_api_key : null, model: llm.openai_model, timeoutMs }));
  }
  if (set(llm.anthropic_api_key) && set(llm.anthropic_model)) {
    const baseUrl = checkUrl('llm.anthropic_base_url', set(llm.anthropic_base_url) ? llm.anthropic_base_url : ANTHROPIC_DEFAULT_BASE_URL);
    out.set(ANTHROPIC_PROVIDER, anthropicProvider({ baseUrl, apiKey: llm.anthropic_api_key, model: llm.anthropic_model, timeoutMs }));
  }
  return out;
}

export interface TranslatorHooks {
  /** called once per translation with its outcome (`ok` or a ProviderError code) */
  observe?(provider: string, target: TranslationTarget, outcome: string, seconds: number): void;
}

export function createTranslator(providers: Map<string, Provider>, defaultProvider: string, hooks: TranslatorHooks = {}): LlmTranslator {
  if (!providers.has(defaultProvider)) {
    throw new Error(`llm.provider is '${defaultProvider}' but that provider is not configured (see docs/providers.md)`);
  }
  const pick = (name: string | undefined): Provider => {
    const n = name ?? defaultProvider;
    const p = providers.get(n);
    if (p) return p;
    if ((KNOWN_PROVIDERS as readonly string[]).includes(n)) {
      throw new ProviderError('provider_not_configured', `provider '${n}' is not configured on this server`, n);
    }
    throw new ProviderError('unknown_provider', `unknown provider; available: ${[...providers.keys()].join(', ')}`, n.slice(0, 64));
  };
  return {
    defaultProvider,
    resolve: (name) => pick(name).name,
    available: () => [defaultProvider, ...[...providers.keys()].filter((n) => n !== defaultProvider)],
    async translate<T extends TranslationTarget>(req: { target: T; text: string; provider?: string; signal?: AbortSignal }): Promise<TranslationOf[T]> {
      const p = pick(req.provider);
      if (req.target !== 'math' && req.target !== 'logic_dsl' && req.target !== 'fact_opinion') throw new ProviderError('cannot_translate', 'unknown translation target', p.name);
      if (typeof req.text !== 'string' || req.text.length > MAX_TEXT_CHARS) {
        throw new ProviderError('cannot_translate', `text must be a string of at most ${MAX_TEXT_CHARS} characters`, p.name);
      }
      const started = performance.now();
      try {
        const out = await p.translate(req.target, req.text, req.signal);
        hooks.observe?.(p.name, req.target, 'ok', (performance.now() - started) / 1000);
        return out;
      } catch (err) {
        const e = err instanceof ProviderError ? err : new ProviderError('malformed_output', 'the provider failed', p.name);
        hooks.observe?.(p.name, req.target, e.code, (performance.now() - started) / 1000);
        throw e;
      }
    },
  };
}
