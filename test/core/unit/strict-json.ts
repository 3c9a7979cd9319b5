import t from 'tap';
import { duplicateKeyAt } from '../../../core/json/syntax.js';
import { parseStrictJson } from '../../../core/json/strict.js';

const duplicateKey = (text: string) => duplicateKeyAt(text)?.key ?? null;
import { hostileJson } from '../../helpers/hostile-wire.js';

/** JSON a peer sends that a relay hands on: what JSON.parse refuses, and what it reads differently from other parsers */
t.test('parseStrictJson: refuses every hostile form, accepts the value it was made from', async (t) => {
  const value = { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'a', description: 'clean' }] } };
  t.same(parseStrictJson(JSON.stringify(value)), { ok: true, value });
  for (const tamper of hostileJson('shadow')) {
    const text = tamper.apply(value, ['result', 'tools', 0, 'description']);
    const r = parseStrictJson(text);
    t.equal(r.ok, false, `${tamper.name}: ${text}`);
    if (!r.ok) t.notMatch(r.reason, /shadow|clean/, 'the reason quotes no value');
  }
});

t.test('duplicateKeyAt, as strict JSON uses it: per object, decoded, at any depth, not across objects or in strings', async (t) => {
  t.equal(duplicateKey('{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}'), null, 'the same key in different objects');
  t.equal(duplicateKey('{"a":"{\\"a\\":1,\\"a\\":2}"}'), null, 'keys inside a string are text');
  t.equal(duplicateKey('{"a":1,"\\u0061":2}'), 'a', 'an escaped spelling is the same key');
  t.equal(duplicateKey('[[[{"x":{"y":1,"y":2}}]]]'), 'y');
  t.equal(duplicateKey('{"__proto__":1,"__proto__":2}'), '__proto__');
  const deep = '['.repeat(100_000) + '{"k":1,"k":2}' + ']'.repeat(100_000);
  t.equal(duplicateKey(deep), 'k', 'iterative: any depth');
  const r = parseStrictJson('{"a":1,"a":2}');
  t.same(r, { ok: false, reason: 'JSON with the key "a" twice in one object' });
  t.match(parseStrictJson('{"a":NaN}'), { ok: false, reason: /^not JSON \(line 1, column 6\)$/ });
});
