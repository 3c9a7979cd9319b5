import t from 'tap';
import { createTranslator, providersFrom, ProviderError } from '../../../plugins/providers/index.js';
import type { LlmSettings } from '../../../plugins/providers/settings.js';
import type { Provider } from '../../../plugins/providers/types.js';

const llm = (over: Partial<LlmSettings> = {}): LlmSettings => ({
  provider: 'local',
  openai_base_url: null,
  openai_api_key: null,
  openai_model: null,
  anthropic_api_key: null,
  anthropic_model: null,
  anthropic_base_url: null,
  timeout_ms: 30000,
  ...over,
});

t.test('which providers a configuration enables', async (t) => {
  t.same([...providersFrom(llm()).keys()], ['local'], 'local always, nothing else by default');
  t.same([...providersFrom(llm({ openai_model: 'm' })).keys()], ['local'], 'a model alone is not a configured provider');
  t.same([...providersFrom(llm({ openai_model: 'm', openai_base_url: 'http://127.0.0.1:11434/v1' })).keys()], ['local', 'openai'], 'a keyless local server');
  t.same([...providersFrom(llm({ openai_model: 'm', openai_api_key: 'k' })).keys()], ['local', 'openai'], 'OpenAI itself (default base URL)');
  t.same([...providersFrom(llm({ anthropic_api_key: 'k' })).keys()], ['local'], 'anthropic needs a model too');
  t.same([...providersFrom(llm({ anthropic_api_key: 'k', anthropic_model: 'm' })).keys()], ['local', 'anthropic']);
  t.throws(() => providersFrom(llm({ openai_model: 'm', openai_base_url: 'file:///etc/passwd' })), /http\(s\)/);
  t.throws(() => providersFrom(llm({ anthropic_api_key: 'k', anthropic_model: 'm', anthropic_base_url: 'not a url' })), /not a URL/);
});

t.test('a default provider that is not configured stops start-up', async (t) => {
  t.throws(() => createTranslator(providersFrom(llm({ provider: 'openai' })), 'openai'), /not configured/);
});

t.test('a request picks a configured provider; unknown and unconfigured names are clear errors', async (t) => {
  const seen: string[] = [];
  const fake = (name: string): Provider => ({
    name,
    async translate(target, text) {
      seen.push(`${name}:${target}:${text}`);
      return { expression: '(GT x 1)', provider: name } as never;
    },
  });
  const observed: string[] = [];
  const tr = createTranslator(new Map([['local', fake('local')], ['anthropic', fake('anthropic')]]), 'local', {
    observe: (p, target, outcome) => observed.push(`${p}/${target}/${outcome}`),
  });
  t.same(tr.available(), ['local', 'anthropic']);
  t.equal(tr.resolve(), 'local');
  t.equal(tr.resolve('anthropic'), 'anthropic');
  await tr.translate({ target: 'logic_dsl', text: 'a' });
  await tr.translate({ target: 'logic_dsl', text: 'b', provider: 'anthropic' });
  t.same(seen, ['local:logic_dsl:a', 'anthropic:logic_dsl:b']);
  await t.rejects(tr.translate({ target: 'math', text: 'x', provider: 'openai' }), { name: 'ProviderError', code: 'provider_not_configured' });
  await t.rejects(tr.translate({ target: 'math', text: 'x', provider: 'gpt-99' }), { name: 'ProviderError', code: 'unknown_provider' });
  t.throws(() => tr.resolve('gpt-99'), ProviderError);
  await t.rejects(tr.translate({ target: 'math', text: 'x'.repeat(20_001) }), { code: 'cannot_translate' });
  t.same(observed, ['local/logic_dsl/ok', 'anthropic/logic_dsl/ok'], 'metrics see each translation that ran');
});

t.test('a provider that throws something other than a ProviderError is reported as one', async (t) => {
  const broken: Provider = {
    name: 'local',
    async translate() {
      throw new TypeError('boom at /secret/path');
    },
  };
  const tr = createTranslator(new Map([['local', broken]]), 'local');
  const err = await tr.translate({ target: 'math', text: 'x' }).catch((e: unknown) => e as ProviderError);
  t.match(err, { name: 'ProviderError', code: 'malformed_output' });
  t.notMatch((err as Error).message, /secret/);
});
