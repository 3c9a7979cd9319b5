import { createServer, type Server } from 'node:net';
import type { LookupAddress } from 'node:dns';
import t from 'tap';
import { buildConnector } from 'undici';
import { EgressConfigError, egressConnector, egressLookup, EgressPolicy, EgressRefused, specialAddress } from '../../../core/http/egress.js';

/**
 * core/http/egress.ts (issue 38, item 12): where a URL the operator did not write may connect. Only
 * loopback sockets are opened here; every other address is refused before any connection, which is
 * what the tests prove (the connector under the check records every call it gets).
 */
const DEFAULT = EgressPolicy.parse(['public'], 'test');

t.test('special addresses: every non-public range, in every spelling', async (t) => {
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['::1', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['[::1]', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /cloud metadata/],
    ['169.254.1.1', /link-local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd00:ec2::254', /cloud metadata/],
    ['0.0.0.0', /this network/],
    ['0.1.2.3', /this network/],
    ['100.64.0.1', /CGNAT/],
    ['100.100.100.200', /cloud metadata/],
    ['::', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /reserved/],
    ['::ffff:127.0.0.1', /loopback \(IPv4 inside IPv6\)/],
    ['::ffff:7f00:1', /loopback \(IPv4 inside IPv6\)/],
    ['0:0:0:0:0:ffff:7f00:0001', /loopback \(IPv4 inside IPv6\)/],
    ['::ffff:169.254.169.254', /cloud metadata/],
    ['::ffff:10.0.0.1', /private/],
    ['::127.0.0.1', /loopback/],
    ['64:ff9b::7f00:1', /loopback/],
    ['64:ff9b::a9fe:a9fe', /cloud metadata/],
    ['2002:7f00:1::1', /loopback/],
    ['2001:0::1', /Teredo/],
    ['192.0.2.1', /documentation/],
    ['2001:db8::1', /documentation/],
    ['not-an-ip', /not an IP/],
    ['127.1', /not an IP/],
    ['0177.0.0.1', /not an IP/],
  ];
  for (const [a, why] of refused) t.match(specialAddress(a), why, a);
  for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34', '172.32.0.1', '100.128.0.1', '11.0.0.1']) t.equal(specialAddress(a), null, a);
});

t.test('the policy: public by default, CIDRs open special ranges, names admit their public addresses only', async (t) => {
  t.match(DEFAULT.refusal('evil.example', '127.0.0.1'), /evil\.example \(127\.0\.0\.1\) is loopback/);
  t.match(DEFAULT.refusal('::ffff:127.0.0.1', '::ffff:127.0.0.1'), /loopback/);
  t.equal(DEFAULT.refusal('peer.example', '93.184.216.34'), null);

  const loop = EgressPolicy.parse(['127.0.0.1/32'], 'test');
  t.equal(loop.refusal('127.0.0.1', '127.0.0.1'), null, 'an explicit CIDR admits a loopback address');
  t.equal(loop.refusal('x', '::ffff:127.0.0.1'), null, 'and its IPv4-mapped spelling');
  t.match(loop.refusal('x', '127.0.0.2'), /loopback/, 'but nothing beside it');
  t.match(loop.refusal('peer.example', '93.184.216.34'), /not in the egress allowlist/, 'without "public", a public address needs an entry');

  const names = EgressPolicy.parse(['partner.example', '*.mesh.example'], 'test');
  t.equal(names.refusal('partner.example', '93.184.216.34'), null);
  t.equal(names.refusal('PARTNER.example.', '93.184.216.34'), null, 'one spelling of the name');
  t.equal(names.refusal('a.b.mesh.example', '93.184.216.34'), null);
  t.match(names.refusal('mesh.example', '93.184.216.34'), /not in the egress allowlist/, '*.domain is subdomains only');
  t.match(names.refusal('partner.example.evil', '93.184.216.34'), /not in the egress allowlist/);
  t.match(names.refusal('partner.example', '10.0.0.5'), /private/, 'a listed name that resolves privately is refused');

  const v6 = EgressPolicy.parse(['[fd12::]/16', '10.0.0.0/8', 'PUBLIC'], 'test');
  t.equal(v6.refusal('x', 'fd12::9'), null);
  t.equal(v6.refusal('x', '10.9.9.9'), null);
  t.equal(v6.refusal('x', '8.8.8.8'), null);
  t.match(v6.refusal('x', '169.254.169.254'), /cloud metadata/);

  for (const bad of ['10.0.0.0/33', '::1/129', '1.2.3', '10.0.0.0/8/8', 'http://x', 'a..b', '', '*.', 'x y']) {
    let err: unknown;
    try {
      EgressPolicy.parse([bad], 'a2a.proxy.egress_allow');
    } catch (e) {
      err = e;
    }
    t.ok(err instanceof EgressConfigError && err.message.startsWith(`a2a.proxy.egress_allow: ${JSON.stringify(bad)} is not`), JSON.stringify(bad));
  }
  t.throws(() => EgressPolicy.parse(['nope/'], 'where'), /where: "nope\/"/);
});

type Base = (h: string, o: { all: true }, cb: (e: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => void;

t.test('the lookup checks every answer, at every resolution (DNS rebinding)', async (t) => {
  const answers = [[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }], [{ address: '10.0.0.1', family: 4 }, { address: '93.184.216.34', family: 4 }]];
  const base: Base = (_h, _o, cb) => cb(null, answers.shift()!);
  const lookup = egressLookup(DEFAULT, base) as unknown as (h: string, o: object, cb: (...a: unknown[]) => void) => void;
  const call = (o: object) => new Promise<unknown[]>((r) => lookup('rebind.example', o, (...a) => r(a)));
  t.same(await call({}), [null, '93.184.216.34', 4], 'first answer public');
  const second = await call({ all: true });
  t.type(second[0], EgressRefused, 'same name, now loopback: refused');
  t.match((second[0] as Error).message, /rebind\.example \(127\.0\.0\.1\) is loopback/);
  t.same(await call({ all: true }), [null, [{ address: '93.184.216.34', family: 4 }]], 'only the admitted addresses are handed to connect');
});

t.test('the undici connector: no socket to a refused address, literal or resolved', async (t) => {
  let accepted = 0;
  const server: Server = createServer((s) => {
    accepted++;
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = String((server.address() as { port: number }).port);
  const tried: string[] = [];
  const spy = ((opts: buildConnector.BuildOptions) => {
    const inner = buildConnector(opts);
    return ((o: buildConnector.Options, cb: buildConnector.Callback) => {
      tried.push(o.hostname);
      // even if the check regressed, nothing beyond loopback is ever dialled from a test
      if (!['127.0.0.1', '::1', '::ffff:127.0.0.1', 'rebind.example'].includes(o.hostname)) return cb(new Error(`test refuses to dial ${o.hostname}`), null);
      return inner(o, cb);
    }) as buildConnector.connector;
  }) as typeof buildConnector;
  const toLoopback: Base = (_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]);
  const connect = (policy: EgressPolicy, hostname: string) =>
    new Promise<{ err: Error | null; ok: boolean }>((resolve) => {
      egressConnector(policy, spy, { timeout: 2000 }, toLoopback)({ hostname, protocol: 'http:', port }, (err, socket) => {
        socket?.destroy();
        resolve({ err, ok: !!socket });
      });
    });

  for (const literal of ['169.254.169.254', '10.0.0.1', '[::ffff:127.0.0.1]', '127.0.0.1', '[::1]']) {
    const r = await connect(DEFAULT, literal);
    t.type(r.err, EgressRefused, literal);
  }
  t.same(tried, [], 'a refused literal is never handed to net.connect');

  const named = await connect(DEFAULT, 'rebind.example');
  t.type(named.err, EgressRefused, 'a name resolving to loopback');
  t.equal(accepted, 0, 'no connection reached the loopback server');

  const loop = EgressPolicy.parse(['127.0.0.1/32'], 'test');
  t.equal((await connect(loop, '127.0.0.1')).ok, true, 'admitted by an explicit CIDR: connected');
  t.equal((await connect(loop, 'rebind.example')).ok, true, 'a name resolving into the admitted CIDR: connected');
});
