import t from 'tap';
import { canonicalizeAgentCard } from '@a2a-js/sdk';
import { cardSigningBytes } from '../../../plugins/a2a/proxy/cards.js';
import { projectCardV1 } from '../../../plugins/a2a/proxy/card-v1.js';
import { SseReader } from '../../../plugins/a2a/proxy/sse.js';
import { pushUrlRefusal, pushUrlsOf } from '../../../plugins/a2a/proxy/push-url.js';
import { EgressPolicy } from '../../../core/http/egress.js';

/**
 * Issue 39 units: the card's A2A 1.0 reading is exactly the one the official SDK canonicalises; the
 * SSE reader splits events wherever the chunks fall; push URLs are refused by resolved address.
 */
const FULL_V1 = {
  name: 'ledger',
  description: 'books invoices',
  supportedInterfaces: [{ url: 'https://l.example/rpc', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0', extra: 'x' }, 5],
  provider: { url: 'https://l.example', organization: 'L', country: 'FR' },
  version: 1.5,
  documentationUrl: 'https://l.example/docs',
  iconUrl: '',
  capabilities: {
    streaming: false,
    pushNotifications: true,
    extendedAgentCard: false,
    stateTransitionHistory: true,
    extensions: [
      { uri: 'u1', description: 'd', required: false, params: { a: [1, { b: '' }] } },
      { uri: 'u2', required: true },
      { uri: 'u3', required: 0 },
    ],
  },
  securitySchemes: {
    key: { apiKeySecurityScheme: { description: 'k', location: 'header', name: 'X-Key' } },
    both: { httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: 'JWT' }, apiKeySecurityScheme: { name: 'first wins' } },
    oauth: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { read: 'r', none: '' }, pkceRequired: true } }, oauth2MetadataUrl: 'https://m' } },
    oauthNoPkce: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: {} }, implicit: { authorizationUrl: 'ignored' } } } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://o' } },
    mtls: { mtlsSecurityScheme: { description: 'm' } },
    empty: {},
    legacy: { type: 'apiKey', in: 'header', name: 'X' },
  },
  securityRequirements: [{ schemes: { key: { list: ['a', 'b'] }, oauth: { list: [] } } }],
  defaultInputModes: ['text/plain', 7],
  defaultOutputModes: [],
  skills: [{ id: 's', name: 'n', description: 'd', tags: ['t'], examples: [], inputModes: ['a'], outputModes: [], securityRequirements: [], extra: true }],
  signatures: [{ protected: 'p', signature: 's', header: { kid: 'k' } }],
};
const V03 = {
  protocolVersion: '0.3.0',
  name: 'legacy',
  description: 'v0.3 only',
  url: 'https://l.example/rpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [{ url: 'https://l.example/rpc', transport: 'JSONRPC' }],
  version: '1',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'n', description: 'd', tags: [] }],
  security: [{ key: [] }],
  securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X' } },
};
const HYBRID = { ...FULL_V1, url: 'https://elsewhere.example/rpc', preferredTransport: 'JSONRPC', protocolVersion: '0.3.0', additionalInterfaces: [] };

t.test('the 1.0 reading is what the SDK canonicalises, member for member', async (t) => {
  for (const [name, card] of [['a full 1.0 card', FULL_V1], ['a v0.3 card', V03], ['a hybrid card', HYBRID], ['an empty card', {}]] as const) {
    t.equal(cardSigningBytes(projectCardV1(card as Record<string, unknown>)).toString('utf8'), canonicalizeAgentCard(card as never), name);
    // and reading it again changes nothing (what is served is what is signed)
    const once = projectCardV1(card as Record<string, unknown>);
    t.same(projectCardV1(JSON.parse(JSON.stringify(once))), JSON.parse(JSON.stringify(once)), `${name}: the reading is stable`);
  }
  t.notOk('url' in projectCardV1(HYBRID), 'no v0.3 member survives');
});

t.test('SSE events are read whole wherever the chunks split them', async (t) => {
  const stream = 'data: {"a":1}\n\n: keep-alive\n\ndata: {"b":\ndata: 2}\r\n\r\ndata:{"c":3}\r\r';
  const want = ['{"a":1}', '{"b":\n2}', '{"c":3}'];
  for (let i = 0; i <= stream.length; i++) {
    for (let j = i; j <= stream.length; j += 7) {
      const r = new SseReader(1024);
      const got = [...r.push(stream.slice(0, i)), ...r.push(stream.slice(i, j)), ...r.push(stream.slice(j))];
      const rest = r.end();
      t.same(rest === null ? got : [...got, rest], want, `cut at ${i}/${j}`);
    }
  }
  const big = new SseReader(16);
  t.throws(() => big.push('data: 01234567890123456789'), /larger than 16/);
});

t.test('push URLs: https, no credentials, every resolved address admitted', async (t) => {
  const policy = EgressPolicy.parse(['public'], 'test');
  const resolveTo = (...addresses: string[]) => async () => addresses.map((address) => ({ address }));
  t.equal(await pushUrlRefusal('https://hooks.example/x', policy, resolveTo('93.184.215.14')), null, 'a public address');
  t.match(await pushUrlRefusal('https://hooks.example/x', policy, resolveTo('93.184.215.14', '10.0.0.1')), /10\.0\.0\.1/, 'one private address among public ones is refused');
  t.match(await pushUrlRefusal('https://rebind.example/x', policy, resolveTo('169.254.169.254')), /169\.254\.169\.254/, 'a name for the metadata address');
  t.match(await pushUrlRefusal('https://nx.example/x', policy, async () => Promise.reject(new Error('ENOTFOUND'))), /does not resolve/);
  t.match(await pushUrlRefusal('http://hooks.example/x', policy, resolveTo('93.184.215.14')), /https/);
  t.match(await pushUrlRefusal(42, policy), /no url/);
  const internal = EgressPolicy.parse(['10.20.0.0/16'], 'test');
  t.equal(await pushUrlRefusal('https://hooks.internal/x', internal, resolveTo('10.20.1.2')), null, 'an operator CIDR admits its range');
  t.match(await pushUrlRefusal('https://hooks.example/x', internal, resolveTo('93.184.215.14')), /allowlist/, 'and without `public`, nothing else');
  t.same(pushUrlsOf({ url: 'a', pushNotificationConfig: { url: 'b' }, push_notification_config: { url: 'c' } }), ['a', 'b', 'c'], 'every spelling is checked');
});
