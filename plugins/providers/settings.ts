import { defineSettings } from '../../core/plugin/settings.js';

/**
 * The providers plugin's settings (`llm.*` in the configuration, SVC_* names in `x-env`): the
 * fragment the kernel puts into the configuration schema (config/schema.json is generated from it).
 */
export interface LlmSettings {
  provider: 'local' | 'openai' | 'anthropic';
  openai_base_url: string | null;
  openai_api_key: string | null;
  openai_model: string | null;
  anthropic_api_key: string | null;
  anthropic_model: string | null;
  anthropic_base_url: string | null;
  timeout_ms: number;
}

export const llmSettings = defineSettings<LlmSettings>('llm', {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    provider: {
      type: 'string',
      enum: ['local', 'openai', 'anthropic'],
      default: 'local',
      'x-env': 'SVC_LLM_PROVIDER',
      description: 'Language-model translator: local (deterministic, no network), openai (OpenAI-compatible), anthropic.',
    },
    openai_base_url: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_LLM_OPENAI_BASE_URL',
      description: 'Base URL of an OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio).',
    },
    openai_api_key: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_LLM_OPENAI_API_KEY',
      description: 'API key for the OpenAI-compatible provider.',
    },
    openai_model: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_LLM_OPENAI_MODEL',
      description: 'Model name for the OpenAI-compatible provider.',
    },
    anthropic_api_key: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_LLM_ANTHROPIC_API_KEY',
      description: 'API key for the Anthropic provider.',
    },
    anthropic_model: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_LLM_ANTHROPIC_MODEL',
      description: 'Model name for the Anthropic provider.',
    },
    anthropic_base_url: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_LLM_ANTHROPIC_BASE_URL',
      description: 'Base URL of the Anthropic Messages API (default https://api.anthropic.com; set for a proxy or a test server).',
    },
    timeout_ms: {
      type: 'integer',
      minimum: 50,
      maximum: 120000,
      default: 30000,
      'x-env': 'SVC_LLM_TIMEOUT_MS',
      description: 'Deadline of one language-model request (connect to last byte); no retries.',
    },
  },
});
