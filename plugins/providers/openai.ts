import { joinUrl, loadHttpClient, postJson } from './http.js';
import { checkEnvelope, parseOutput } from './output.js';
import { systemPrompt } from './prompts.js';
import type { Provider, TranslationOf, TranslationTarget } from './types.js';

export const OPENAI_PROVIDER = 'openai';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiSettings {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

/**
 * OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, llama.cpp server, LM Studio): one
 * request, temperature 0, JSON mode asked for; the reply is checked against the target's schema.
 * A local server without keys is configured by its base URL alone.
 */
export function openAiProvider(s: OpenAiSettings): Provider {
  // a configured remote provider loads its HTTP client now, not inside the first request's deadline
  void loadHttpClient().catch(() => undefined);
  const url = joinUrl(s.baseUrl, '/chat/completions');
  const headers: Record<string, string> = s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {};
  return {
    name: OPENAI_PROVIDER,
    async translate<T extends TranslationTarget>(target: T, text: string, signal?: AbortSignal): Promise<TranslationOf[T]> {
      const body = {
        model: s.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: systemPrompt(target) },
          { role: 'user', content: text },
        ],
      };
      const res = await postJson(url, headers, body, { provider: OPENAI_PROVIDER, timeoutMs: s.timeoutMs, signal });
      checkEnvelope('openai', res, OPENAI_PROVIDER);
      const content = (res as { choices: Array<{ message: { content: string } }> }).choices[0].message.content;
      return parseOutput(target, content, OPENAI_PROVIDER);
    },
  };
}
