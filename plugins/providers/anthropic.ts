import { joinUrl, loadHttpClient, postJson } from './http.js';
import { checkEnvelope, parseOutput } from './output.js';
import { systemPrompt } from './prompts.js';
import { ProviderError, type Provider, type TranslationOf, type TranslationTarget } from './types.js';

export const ANTHROPIC_PROVIDER = 'anthropic';
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
const MAX_TOKENS = 1024;

export interface AnthropicSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

/** Anthropic Messages API: one request, temperature 0; the text blocks of the reply must be one JSON object. */
export function anthropicProvider(s: AnthropicSettings): Provider {
  // a configured remote provider loads its HTTP client now, not inside the first request's deadline
  void loadHttpClient().catch(() => undefined);
  const url = joinUrl(s.baseUrl, '/v1/messages');
  const headers = { 'x-api-key': s.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  return {
    name: ANTHROPIC_PROVIDER,
    async translate<T extends TranslationTarget>(target: T, text: string, signal?: AbortSignal): Promise<TranslationOf[T]> {
      const body = {
        model: s.model,
        max_tokens: MAX_TOKENS,
        temperature: 0,
        system: systemPrompt(target),
        messages: [{ role: 'user', content: text }],
      };
      const res = await postJson(url, headers, body, { provider: ANTHROPIC_PROVIDER, timeoutMs: s.timeoutMs, signal });
      checkEnvelope('anthropic', res, ANTHROPIC_PROVIDER);
      const blocks = (res as { content: Array<{ type: string; text?: string }> }).content;
      const content = blocks
        .filter((b) => b.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text)
        .join('');
      if (!content.trim()) throw new ProviderError('malformed_output', 'the provider answered without text', ANTHROPIC_PROVIDER);
      return parseOutput(target, content, ANTHROPIC_PROVIDER);
    },
  };
}
