import t from 'tap';
import canonicalize from 'canonicalize';
import { canonicalJson, sha256HexYielding, sha256Hex } from '../../../core/json/canonical.js';

/** The native fast path of canonicalJson writes exactly what the RFC 8785 reference implementation writes. */
const reference = canonicalize as unknown as (v: unknown) => string;

t.test('same output as the reference implementation', async (t) => {
  const values: unknown[] = [
    { b: 1, a: [1, { d: null, c: -0, é: '\u2028\u0001' }], '10': 1, '9': 2, '': 3 },
    [1e21, 1e-7, 0.1, 5e-324, -1.7976931348623157e308, 'x', true, null, { z: { y: { x: [] } } }],
    { a: undefined, b: 1 },
    { '\ud83d\ude00': 1, '\ue000': 2, '\u00e9': 3, e: 4 },
    { d: new Date(0) },
    JSON.parse('{"a":{"x":1},"__proto__":{"y":2},"constructor":3,"b":[{"toString":1},{},{"valueOf":[]}]}'),
    Array.from({ length: 300 }, (_, i) => ({ [`k${i % 17}`]: i, nested: { [`n${i % 5}`]: [i, `${i}`] } })),
    'just a string',
    42,
  ];
  for (const v of values) t.equal(canonicalJson(v), reference(v), JSON.stringify(v).slice(0, 60));
});

t.test('small values (written directly) and large or unusual ones (general path) agree with the reference', async (t) => {
  class Point {
    constructor(readonly y: number, readonly x: number) {}
  }
  let deep: unknown = { leaf: ['\u0000"\\', -0, 1e-7] };
  for (let i = 0; i < 20; i++) deep = { [`l${i}`]: deep, z: i, a: [i] };
  const nullProto = Object.assign(Object.create(null), { b: [Object.assign(Object.create(null), { y: 1, x: 2 })], a: 'é' });
  const values: unknown[] = [
    nullProto,
    { p: new Point(1, 2), q: [new Point(3, 4)] },
    deep,
    Array.from({ length: 199 }, (_, i) => (i % 2 ? `s${i}\n` : i / 7)),
    Array.from({ length: 201 }, (_, i) => ({ [`k${200 - i}`]: i })),
    { data: { claimed_total: '12.34', line_items: [{ description: 'widget', amount: '4.11', quantity: 3 }, { description: 'shipping', amount: '3.50' }] } },
    { toJSON: () => ({ b: 2, a: 1 }) },
    [[[]], {}, [{}], '', 0, -1.5e300, 123456789012345680000],
  ];
  for (const v of values) t.equal(canonicalJson(v), reference(v), JSON.stringify(v).slice(0, 60));
  // the refusals hold on small values as on large ones
  for (const v of [{ a: [1, undefined] }, { a: { b: -Infinity } }, { s: Symbol('x') }, [{ f: () => 1 }]]) t.throws(() => canonicalJson(v));
});

t.test('values RFC 8785 cannot represent are refused, not written as null', async (t) => {
  for (const v of [undefined, [undefined], { a: Infinity }, [NaN], { a: [1n] }, { f: () => 1 }]) t.throws(() => canonicalJson(v));
});

t.test('a value with very many distinct keys takes the reference path (no quadratic walk)', async (t) => {
  const many = Array.from({ length: 3000 }, (_, i) => ({ [`key${i}`]: i }));
  t.equal(canonicalJson(many), reference(many));
});

t.test('sha256HexYielding equals sha256Hex', async (t) => {
  const big = Buffer.alloc(3 * 1024 * 1024 + 7, 0x61);
  t.equal(await sha256HexYielding(big), sha256Hex(big));
  t.equal(await sha256HexYielding(Buffer.alloc(0)), sha256Hex(Buffer.alloc(0)));
});

t.test('a lone surrogate has no canonical form, in a value or a member name, on either path', async (t) => {
  const { canonicalJson } = await import('../../../core/json/canonical.js');
  t.throws(() => canonicalJson({ a: 'x\ud800y' }), /lone surrogate/);
  t.throws(() => canonicalJson({ ['k\udc00']: 1 }), /lone surrogate/);
  t.throws(() => canonicalJson(['\ud83d']), /lone surrogate/);
  t.equal(canonicalJson({ a: '\ud83d\ude00' }), '{"a":"😀"}', 'a surrogate pair is a character');
});
