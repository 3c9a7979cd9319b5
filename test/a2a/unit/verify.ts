import { createPrivateKey, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { a2aVerifyVerdictCommand, verifyVerdict } from '../../../plugins/a2a/index.js';
import { sha256Ref } from '../../../core/json/canonical.js';
import { decodeJwt, intercept, invoice, KEY_PEM, message, p256Pem, startA2AWithoutCode } from '../../helpers/a2a.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** signs arbitrary header/claims with the gateway's key, to build tokens the gateway never would */
function forge(header: object, claims: object, pem = KEY_PEM): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const sig = sign('sha256', Buffer.from(input), { key: createPrivateKey(pem), dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}

t.test('verifyVerdict', async (t) => {
  const s = await startA2AWithoutCode();
  t.teardown(() => s.close());
  const jwks = (await s.request('GET', '/.well-known/jwks.json')).body;
  const payload = invoice([{ description: 'x', amount: '3.50', quantity: 2 }], '7.00');
  const r = await intercept(s, message({ payload_type: 'financial_transaction', payload }));
  const token: string = r.body.attestation_jwt;
  const { header, claims } = decodeJwt(token);

  t.test('valid with claims, from a JWKS document or its URL', async (t) => {
    const local = await verifyVerdict(token, { jwks, payload });
    t.equal(local.valid, true);
    t.equal(local.valid && local.claims.svc_a2a.verdict, 'forwarded');
    const remote = await verifyVerdict(token, { jwksUrl: `${s.url}/.well-known/jwks.json`, payload, issuer: 'did:svc:a2a:test-deploy' });
    t.same(remote, local);
  });

  t.test('expired', async (t) => {
    const later = new Date((claims.exp + 1) * 1000);
    t.same(await verifyVerdict(token, { jwks, payload, currentDate: later }), { valid: false, error: 'Attestation has expired' });
  });

  t.test('payload binding: one changed byte is an invalid token', async (t) => {
    const other = JSON.parse(JSON.stringify(payload).replace('3.50', '3.51'));
    t.same(await verifyVerdict(token, { jwks, payload: other }), { valid: false, error: 'Invalid token: payload hash does not match sub' });
  });

  t.test('tampering and wrong keys', async (t) => {
    const [h, p, sig] = token.split('.');
    const changed = Buffer.from(JSON.stringify({ ...claims, svc_a2a: { ...claims.svc_a2a, receiver: 'someone-else' } })).toString('base64url');
    const tampered = await verifyVerdict(`${h}.${changed}.${sig}`, { jwks, payload });
    t.same(tampered, { valid: false, error: 'Invalid token: signature verification failed' });

    const otherKeyToken = forge(header, claims, p256Pem());
    t.same(await verifyVerdict(otherKeyToken, { jwks, payload }), { valid: false, error: 'Invalid token: signature verification failed' }, 'same kid, another key');

    const foreign = await startA2AWithoutCode({ signing_key_pem: p256Pem(), deployment_id: 'test-deploy' });
    t.teardown(() => foreign.close());
    const foreignJwks = (await foreign.request('GET', '/.well-known/jwks.json')).body;
    const wrong = await verifyVerdict(token, { jwks: foreignJwks, payload });
    t.equal(wrong.valid, false);
    t.match(!wrong.valid && wrong.error, /^Invalid token: /, 'rotated key: old tokens stop verifying');
  });

  t.test('typ, alg, issuer, kid and claim shape are enforced', async (t) => {
    const cases: Array<[string, string, object?]> = [
      ['typ JWT', forge({ ...header, typ: 'JWT' }, claims)],
      ['no typ', forge({ alg: 'ES256', kid: header.kid }, claims)],
      ['alg none', `${Buffer.from(JSON.stringify({ ...header, alg: 'none' })).toString('base64url')}.${token.split('.')[1]}.`],
      ['alg HS256', forge({ ...header, alg: 'HS256' }, claims)],
      ['kid of another issuer', forge(header, { ...claims, iss: 'did:svc:a2a:elsewhere' })],
      ['svc_a2a missing', forge(header, { ...claims, svc_a2a: undefined })],
      ['svc_a2a version 2', forge(header, { ...claims, svc_a2a: { ...claims.svc_a2a, version: '2.0' } })],
      ['no exp', forge(header, { ...claims, exp: undefined })],
      ['not a JWT', 'abc'],
    ];
    for (const [name, tok] of cases) {
      const v = await verifyVerdict(tok, { jwks, payload });
      t.equal(v.valid, false, name);
      t.match(!v.valid && v.error, /^Invalid token: /, name);
    }
    const iss = await verifyVerdict(token, { jwks, payload, issuer: 'did:svc:a2a:prod' });
    t.match(!iss.valid && iss.error, /^Invalid token: /, 'issuer option');
    t.equal((await verifyVerdict(forge(header, claims), { jwks, payload })).valid, true, 'control: the forge helper itself makes valid tokens');
  });

  t.test('CLI: proofgate a2a verify-verdict --jwks URL --payload FILE TOKEN', async (t) => {
    const dir = tempDir(t, 'a2a-cli-');
    const payloadFile = join(dir, 'payload.json');
    writeFileSync(payloadFile, JSON.stringify(payload));
    const jwksFile = join(dir, 'jwks.json');
    writeFileSync(jwksFile, JSON.stringify(jwks));
    const out: string[] = [];
    const log = console.log;
    const err = console.error;
    console.log = (...a: unknown[]) => out.push(a.join(' '));
    console.error = (...a: unknown[]) => out.push(a.join(' '));
    try {
      t.equal(await a2aVerifyVerdictCommand.run(['--jwks', `${s.url}/.well-known/jwks.json`, '--payload', payloadFile, token]), 0);
      t.equal(JSON.parse(out.pop()!).claims.sub, sha256Ref(payload));
      t.equal(await a2aVerifyVerdictCommand.run(['--jwks', jwksFile, '--payload', payloadFile, token]), 0, 'a local JWKS file');
      out.pop();
      writeFileSync(payloadFile, JSON.stringify({ ...payload, extra: 1 }));
      t.equal(await a2aVerifyVerdictCommand.run(['--jwks', jwksFile, '--payload', payloadFile, token]), 1);
      t.same(JSON.parse(out.pop()!), { valid: false, error: 'Invalid token: payload hash does not match sub' });
      t.equal(await a2aVerifyVerdictCommand.run(['--jwks', jwksFile, token]), 2, 'usage error');
    } finally {
      console.log = log;
      console.error = err;
    }
    t.equal(a2aVerifyVerdictCommand.name, 'a2a verify-verdict');
  });
});
