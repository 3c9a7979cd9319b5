import t from 'tap';
import type { Server } from 'node:http';
import { publicUrl } from '../../../core/http/public-url.js';

/** issue 38, item 5: the URL a server hands out comes from configuration or its bind, never a request. */
const bound = (address: string, family: string, port = 8080) => ({ address: () => ({ address, family, port }) }) as unknown as Server;
const cfg = (public_url: string | null) => ({ server: { public_url } }) as never;

t.test('public_url first, without its trailing slashes', async (t) => {
  t.equal(publicUrl(cfg('https://gw.example/base//'), bound('0.0.0.0', 'IPv4')), 'https://gw.example/base');
  t.equal(publicUrl(cfg('https://gw.example'), null), 'https://gw.example', 'before the server listens too');
});

t.test('else the bound address; a wildcard or no address is null', async (t) => {
  t.equal(publicUrl(cfg(null), bound('127.0.0.1', 'IPv4', 9)), 'http://127.0.0.1:9');
  t.equal(publicUrl(cfg(null), bound('::1', 'IPv6')), 'http://[::1]:8080');
  t.equal(publicUrl(cfg(null), bound('0.0.0.0', 'IPv4')), null);
  t.equal(publicUrl(cfg(null), bound('::', 'IPv6')), null);
  t.equal(publicUrl(cfg(null), null), null);
  t.equal(publicUrl(cfg(null), { address: () => null } as unknown as Server), null, 'not listening yet');
  t.equal(publicUrl(cfg(null), { address: () => '/tmp/sock' } as unknown as Server), null, 'a unix socket');
});
