import t from 'tap';
import { canonicalJson } from '../../core/json/canonical.js';

/** RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical serialisation. */
const NUMBER_VECTORS: Array<[string, string]> = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt('0x' + hex));
  return view.getFloat64(0);
}

t.test('RFC 8785 appendix B number vectors', async (t) => {
  for (const [bits, want] of NUMBER_VECTORS) t.equal(canonicalJson(fromBits(bits)), want, bits);
});

t.test('NaN and Infinity (appendix B error rows) have no canonical form', async (t) => {
  for (const bits of ['7fffffffffffffff', '7ff0000000000000']) t.throws(() => canonicalJson(fromBits(bits)), bits);
  t.throws(() => canonicalJson({ a: -Infinity }));
});

t.test('number literals as written in JSON text', async (t) => {
  const cases: Array<[string, string]> = [
    ['1e30', '1e+30'],
    ['4.50', '4.5'],
    ['2e-3', '0.002'],
    ['0.000001', '0.000001'],
    ['1e-7', '1e-7'],
    ['-0', '0'],
    ['0.000000000000000000000000001', '1e-27'],
    ['333333333.33333329', '333333333.3333333'],
    ['100', '100'],
    ['1E400', ''],
  ];
  for (const [text, want] of cases) {
    if (want === '') t.throws(() => canonicalJson(JSON.parse(text)), `${text} overflows to Infinity`);
    else t.equal(canonicalJson(JSON.parse(text)), want, text);
  }
});

t.test('RFC 8785 section 3.2.2 example: strings, numbers, literals', async (t) => {
  const input = String.raw`{
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  }`;
  const want = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
  t.equal(canonicalJson(JSON.parse(input)), want);
});

t.test('string escaping: short escapes, other controls as lowercase \\u00xx, non-ASCII verbatim', async (t) => {
  t.equal(canonicalJson('\b\t\n\f\r"\\'), String.raw`"\b\t\n\f\r\"\\"`);
  t.equal(canonicalJson('\u0000\u0001\u001f\u007f'), '"\\u0000\\u0001\\u001f\u007f"');
  t.equal(canonicalJson('/'), '"/"', 'solidus is not escaped');
  t.equal(canonicalJson('\u20ac\u00f6\ud83d\ude00'), '"€ö😀"');
  t.equal(canonicalJson('<script>'), '"<script>"');
});

t.test('RFC 8785 section 3.2.3: properties sorted by UTF-16 code units, recursively', async (t) => {
  const input = String.raw`{
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"
  }`;
  const out = canonicalJson(JSON.parse(input));
  // compared as text: Object.keys would move the integer-like key "1" to the front
  const want =
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
    '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
  t.equal(out, want);
  t.ok(out.indexOf('\ud83d\ude00') < out.indexOf('\ufb33'), 'a surrogate pair sorts before U+FB33 (UTF-16 units, not code points)');
  t.equal(canonicalJson({ b: { d: 1, c: [{ z: 1, a: 2 }] }, a: null }), '{"a":null,"b":{"c":[{"a":2,"z":1}],"d":1}}');
});
