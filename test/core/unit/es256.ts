import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { compactVerify } from 'jose';
import t from 'tap';
import { es256SignAsync, signJws, signJwsAsync } from '../../../core/keys/es256.js';

/** the thread-pool signer produces the same kind of token as the synchronous one, and fails loudly */
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pub = createPublicKey(privateKey);
const header = { alg: 'ES256', typ: 'test+jwt', kid: 'k1' };
const claims = { sub: 'sha256:00', n: 1, s: 'ünïcode' };

t.test('signJwsAsync: same header and payload segments as signJws, and a signature that verifies', async (t) => {
  const sync = signJws(header, claims, privateKey);
  const tokens = await Promise.all(Array.from({ length: 16 }, () => signJwsAsync(header, claims, privateKey)));
  for (const tok of tokens) {
    const [h, p, s] = tok.split('.');
    t.equal(`${h}.${p}`, sync.split('.').slice(0, 2).join('.'));
    t.equal(Buffer.from(s, 'base64url').length, 64, 'IEEE P1363 r||s, as JWS requires');
    t.ok(verify('sha256', Buffer.from(`${h}.${p}`), { key: pub, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')));
    const r = await compactVerify(tok, pub, { algorithms: ['ES256'] });
    t.same(JSON.parse(Buffer.from(r.payload).toString('utf8')), claims);
  }
  t.equal(new Set(tokens).size, tokens.length, 'ECDSA signatures are randomised: no token is a copy of another');
});

t.test('a pre-encoded header segment signs the same input as the header object', async (t) => {
  const seg = Buffer.from(JSON.stringify(header)).toString('base64url');
  const tok = await signJwsAsync(seg, claims, privateKey);
  t.equal(tok.split('.')[0], seg);
  await t.resolves(compactVerify(tok, pub, { algorithms: ['ES256'] }));
});

t.test('a failing signature rejects; no token is produced', async (t) => {
  await t.rejects(signJwsAsync(header, claims, privateKey, async () => {
    throw new Error('hsm down');
  }), /hsm down/);
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await t.rejects(es256SignAsync(Buffer.from('x'), publicKey), 'a public key cannot sign');
});

t.test('one turn\'s signatures go out together: a key that cannot sign fails only its own, each answer is its own', async (t) => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const inputs = Array.from({ length: 12 }, (_, i) => Buffer.from(`input-${i}`));
  // all asked within one turn, the fourth with a key that cannot sign
  const results = await Promise.allSettled(inputs.map((d, i) => es256SignAsync(d, i === 3 ? publicKey : privateKey)));
  t.equal(results[3].status, 'rejected', 'the public key\'s signature fails');
  for (const [i, r] of results.entries()) {
    if (i === 3) continue;
    t.equal(r.status, 'fulfilled');
    const sig = (r as PromiseFulfilledResult<Buffer>).value;
    t.ok(verify('sha256', inputs[i], { key: pub, dsaEncoding: 'ieee-p1363' }, sig), `signature ${i} is over its own input`);
    t.notOk(verify('sha256', inputs[(i + 1) % inputs.length], { key: pub, dsaEncoding: 'ieee-p1363' }, sig), `signature ${i} is not over another's`);
  }
  // asked again after the batch went out: a new batch forms and answers too
  t.ok(verify('sha256', Buffer.from('later'), { key: pub, dsaEncoding: 'ieee-p1363' }, await es256SignAsync(Buffer.from('later'), privateKey)));
});
