import t from 'tap';
import { formatHostName, hostNameOfUrl, parseHostName, sameHost } from '../../../core/http/host-name.js';

/** issue 38, item 6: one spelling per host, so no comparison against configuration is slipped past. */

t.test('case, trailing dot, default port and IDNA give one spelling', async (t) => {
  const bank = { hostname: 'bank.mesh', port: 8080 };
  t.same(parseHostName('BANK.MESH:8080'), bank);
  t.same(parseHostName('bank.mesh.:8080'), bank);
  t.same(parseHostName('b%61nk.mesh:8080'), bank, 'a percent-encoded name is decoded');
  t.same(parseHostName('ba\u00adnk.mesh:8080'), bank, 'a soft hyphen is dropped by IDNA mapping');
  t.same(parseHostName('ｂａｎｋ.mesh:08080'), bank, 'fullwidth letters and a zero-padded port');
  t.same(parseHostName('plain.mesh:80'), parseHostName('plain.mesh'), 'the default port written or not');
  t.same(parseHostName('bánk.mesh'), { hostname: 'xn--bnk-ela.mesh', port: 80 });
  t.same(parseHostName('BÁNK.mesh'), parseHostName('XN--BNK-ELA.MESH'), 'a Unicode name and its A-label');
  t.same(parseHostName('bank.mesh\u3002'), { hostname: 'bank.mesh', port: 80 }, 'an ideographic full stop is a dot');
  t.same(parseHostName('[::1]:8080'), { hostname: '[::1]', port: 8080 });
  t.same(parseHostName('0x7f.1'), { hostname: '127.0.0.1', port: 80 }, 'IPv4 in another notation');
  t.same(parseHostName('secure.mesh', 'https:'), { hostname: 'secure.mesh', port: 443 });
});

t.test('without a scheme the port is only what is written', async (t) => {
  t.same(parseHostName('plain.mesh', null), { hostname: 'plain.mesh', port: null });
  t.same(parseHostName('plain.mesh:80', null), { hostname: 'plain.mesh', port: 80 }, 'an explicit default port is kept');
  t.same(parseHostName('Plain.Mesh.:443', null), { hostname: 'plain.mesh', port: 443 });
  t.same(parseHostName('[::1]:080', null), { hostname: '[::1]', port: 80 });
  t.same(parseHostName('[::1]', null), { hostname: '[::1]', port: null });
  t.same(parseHostName('plain.mesh:', null), { hostname: 'plain.mesh', port: null });
});

t.test('anything but a plain authority is null (callers deny)', async (t) => {
  for (const bad of ['', 'user@bank.mesh', 'bank.mesh/x', 'bank.mesh?x', 'bank mesh', 'bank.mesh:99999', 'bank.mesh..', 'xn--zz.mesh', '[::1', 'a\\b', 'x'.repeat(301)]) {
    t.equal(parseHostName(bad), null, JSON.stringify(bad.slice(0, 20)));
    t.equal(parseHostName(bad, null), null, `${JSON.stringify(bad.slice(0, 20))} without a scheme`);
  }
  t.equal(parseHostName(42 as unknown as string), null);
});

t.test('an A-label must be the encoding of the name it decodes to, on every Node line', async (t) => {
  // Node 22's URL refuses these; Node 24's passes invalid punycode through unchanged (xn--zz.mesh)
  for (const bad of ['xn--zz.mesh', 'XN--ZZ.MESH', 'xn--a.mesh', 'bank.xn--zz', 'xn--abc-.mesh', 'xn--.mesh']) {
    t.equal(parseHostName(bad), null, bad);
    t.equal(parseHostName(bad, null), null, `${bad} without a scheme`);
    t.equal(hostNameOfUrl(`https://${bad}/`), null, `${bad} in a URL`);
  }
  t.same(parseHostName('xn--bcher-kva.mesh'), { hostname: 'xn--bcher-kva.mesh', port: 80 }, 'a valid A-label');
  t.same(parseHostName('XN--BCHER-KVA.mesh'), parseHostName('bücher.mesh'), 'and the Unicode name it encodes');
});

t.test('URLs: the same spelling; credentials or no host are null', async (t) => {
  t.same(hostNameOfUrl('http://BANK.mesh.:8080/rpc'), { hostname: 'bank.mesh', port: 8080 });
  t.same(hostNameOfUrl(new URL('https://bank.mesh/')), { hostname: 'bank.mesh', port: 443 });
  t.equal(hostNameOfUrl('http://u:p@bank.mesh/'), null);
  t.equal(hostNameOfUrl('not a url'), null);
  t.equal(hostNameOfUrl('mailto:x@bank.mesh'), null);
});

t.test('sameHost: an entry without a port covers every port of the name', async (t) => {
  const c = parseHostName('BANK.MESH.:8080')!;
  t.ok(sameHost(c, 'bank.mesh'));
  t.ok(sameHost(c, 'Bank.Mesh:8080'));
  t.notOk(sameHost(c, 'bank.mesh:9090'));
  t.notOk(sameHost(c, 'bank.mesh.evil'));
  t.notOk(sameHost(c, 'not a host'), 'an entry that does not parse matches nothing');
  t.ok(sameHost(parseHostName('[::1]:80')!, '[::1]'));
  t.ok(sameHost(parseHostName('plain.mesh')!, 'plain.mesh:80'), 'the default port is explicit on both sides');
  t.equal(formatHostName(c), 'bank.mesh:8080');
  t.equal(formatHostName({ hostname: 'bank.mesh', port: null }), 'bank.mesh');
});
