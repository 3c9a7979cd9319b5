import t from 'tap';
import { duplicateKeyAt } from '../../../core/json/syntax.js';
import { repeatedKeyError } from '../../../core/http/body.js';

/** issue 38, item 7: a member named twice reads differently to different parsers; found at any depth. */

t.test('a repeated member is found with the pointer of its object', async (t) => {
  t.same(duplicateKeyAt('{"a":1,"a":2}'), { key: 'a', pointer: '' });
  t.same(duplicateKeyAt('{"params":{"message":{"parts":[],"x":1,"parts":[{"text":"y"}]}}}'), { key: 'parts', pointer: '/params/message' });
  t.same(duplicateKeyAt('{"p":[{"d":{}},{"d":{"k":1,"k":1}}]}'), { key: 'k', pointer: '/p/1/d' }, 'array indexes in the pointer');
  t.same(duplicateKeyAt('{"parts":1,"p\\u0061rts":2}'), { key: 'parts', pointer: '' }, 'names compare decoded');
  t.same(duplicateKeyAt('{"é":1,"\\u00e9":2}'), { key: 'é', pointer: '' }, 'a UTF-8 name and its escape');
  t.same(duplicateKeyAt(Buffer.from('{"a/b~":{"x":1,"x":2}}')), { key: 'x', pointer: '/a~1b~0' }, 'RFC 6901 escapes');
  t.same(duplicateKeyAt('{"":1,"":2}'), { key: '', pointer: '' }, 'the empty name too');
  t.same(duplicateKeyAt('{"__proto__":1,"__proto__":2}'), { key: '__proto__', pointer: '' });
  // a name's escapes are found wherever they stand in it: first, last, before its closing quote, an escaped quote
  t.same(duplicateKeyAt('{"ab":1,"\\u0061b":2}'), { key: 'ab', pointer: '' }, 'an escape opening the name');
  t.same(duplicateKeyAt('{"ab":1,"a\\u0062":2}'), { key: 'ab', pointer: '' }, 'an escape closing the name');
  t.same(duplicateKeyAt('{"a\\\\":1,"a\\u005c":2}'), { key: 'a\\', pointer: '' }, 'an escaped backslash before the closing quote');
  t.same(duplicateKeyAt('{"a\\"b":1,"a\\u0022b":2}'), { key: 'a"b', pointer: '' }, 'an escaped quote inside the name');
  t.equal(duplicateKeyAt('{"a\\\\":1,"a":2}'), null, 'a name ending in a backslash is not the name without it');
});

t.test('no false alarms: same names in other objects, names inside strings, escaped quotes', async (t) => {
  t.equal(duplicateKeyAt('{"parts":[{"data":{"a":1}},{"data":{"a":1}}],"a":{"a":{"a":1}}}'), null);
  t.equal(duplicateKeyAt('{"a":"\\"a\\":1","b":"\\\\","c":["a","a"],"d":{"a":1}}'), null);
  t.equal(duplicateKeyAt('[{"a":1},{"a":1}]'), null);
  t.equal(duplicateKeyAt('"a"'), null);
  t.equal(duplicateKeyAt('{}'), null);
  t.equal(duplicateKeyAt('{"a":{},"b":[],"c":{"a":[{}]}}'), null);
});

t.test('any depth, no recursion; a large body in one pass', async (t) => {
  const n = 200_000;
  t.same(duplicateKeyAt('{"a":'.repeat(n) + '{"z":1,"z":2}' + '}'.repeat(n)), { key: 'z', pointer: '/a'.repeat(n) });
  const big = JSON.stringify({ parts: Array.from({ length: 20_000 }, (_, i) => ({ text: `part ${i} "quoted" \\ ` })) });
  t.equal(duplicateKeyAt(big), null);
  t.same(duplicateKeyAt(big.slice(0, -1) + ',"parts":[]}'), { key: 'parts', pointer: '' });
});

t.test('repeatedKeyError: 400 invalid_json naming the member, or null', async (t) => {
  const e = repeatedKeyError(Buffer.from('{"m":{"method":1,"method":2}}'));
  t.equal(e?.status, 400);
  t.equal(e?.code, 'invalid_json');
  t.match(e?.detail, /"method" twice in one object \(at \/m\)/);
  t.equal(repeatedKeyError(Buffer.from('{"a":1}')), null);
  t.equal(repeatedKeyError(null), null);
  t.equal(repeatedKeyError(Buffer.alloc(0)), null);
});
