import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import a2a from '../../plugins/a2a/index.js';
import { nodeCommand } from '../helpers/child.js';
import { KEY_PEM, message } from '../helpers/a2a.js';
import { startHarness } from '../helpers/attestation/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 43: an attestation is checked offline — `proofgate attestation verify` against the JWKS
 * the service publishes, which now carries the attestation key beside the A2A key — and run the
 * way a shell runs it (the built CLI as a child process).
 */
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(...nodeCommand([CLI, ...args]), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

t.test('the JWKS, the CLI and the hostile tokens', async (t) => {
  const h = await startHarness({
    plugins: [a2a],
    config: { a2a: { deployment_id: 'offline-test', signing_key_pem: KEY_PEM, default_allow: true, sender_auth: 'off' } } as never,
  });
  t.teardown(() => h.close());
  const dir = tempDir(t, 'attestation-offline-');

  const jwksReply = await h.request('GET', '/.well-known/jwks.json', { key: null });
  t.equal(jwksReply.status, 200);
  const identity = (await h.request('GET', '/health/identity', { key: null })).body;
  const kids = jwksReply.body.keys.map((k: { kid: string }) => k.kid);
  t.same(kids, [identity.a2a.kid, identity.attestation.kid], 'the A2A key first, then the attestation key');
  t.not(identity.a2a.kid, identity.attestation.kid, 'distinct kids');
  t.same(jwksReply.body.keys[1], identity.attestation.public_jwk, 'the attestation key as /health/identity names it');
  const jwks = join(dir, 'jwks.json');
  writeFileSync(jwks, JSON.stringify(jwksReply.body));

  const verified = await h.request('POST', '/test/attestable', { body: { expression: '2+2=4' } });
  const unverifiable = await h.request('POST', '/test/attestable', { body: { expression: '2+2', mode: 'unverifiable' } });
  t.type(verified.body.attestation, 'string');
  t.type(unverifiable.body.attestation, 'undefined', 'only VERIFIED replies carry an attestation');

  const ok = await run(['attestation', 'verify', '--jwks', jwks, verified.body.attestation]);
  t.equal(ok.code, 0, ok.stderr);
  const okOut = JSON.parse(ok.stdout);
  t.equal(okOut.valid, true);
  t.equal(okOut.verified, true);
  t.equal(okOut.claims.svc.result.status, 'VERIFIED');
  t.equal(okOut.revocation, 'not checked offline');

  // the same token from a URL (the loopback service), from a token file and from a saved reply
  const byUrl = await run(['attestation', 'verify', '--jwks', `${h.url}/.well-known/jwks.json`, verified.body.attestation]);
  t.equal(byUrl.code, 0, byUrl.stderr);
  const byEnv = await run(['attestation', 'verify', verified.body.attestation], { PROOFGATE_URL: h.url });
  t.equal(byEnv.code, 0, `default JWKS from $PROOFGATE_URL: ${byEnv.stderr}`);
  const tokenFile = join(dir, 'token.txt');
  writeFileSync(tokenFile, `${verified.body.attestation}\n`);
  t.equal((await run(['attestation', 'verify', '--jwks', jwks, tokenFile])).code, 0, 'a token file');
  const replyFile = join(dir, 'reply.json');
  writeFileSync(replyFile, JSON.stringify(verified.body));
  t.equal((await run(['attestation', 'verify', '--jwks', jwks, replyFile])).code, 0, 'a saved reply');

  // --query binds what was evaluated
  t.equal((await run(['attestation', 'verify', '--jwks', jwks, '--query', '2+2=4', verified.body.attestation])).code, 0);
  const otherQuery = await run(['attestation', 'verify', '--jwks', jwks, '--query', '2+2=5', verified.body.attestation]);
  t.equal(otherQuery.code, 1);
  t.match(otherQuery.stderr, /query_hash is not the hash of the given query/);
  t.equal((await run(['attestation', 'verify', '--jwks', jwks, '--issuer', 'did:svc:node:other', verified.body.attestation])).code, 1, '--issuer');

  // a genuine token of a result that is not VERIFIED: exit 1 unless --signature-only. The service
  // attaches tokens to VERIFIED results only, so such a token comes from the batch path or an older
  // issuer; here the claim is changed and the token re-signed with a foreign key, which must fail,
  // and the not-VERIFIED path is taken through a JWKS that holds that foreign key under the issuer's kid
  const [hdr, body] = verified.body.attestation.split('.');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
  const header = JSON.parse(Buffer.from(hdr, 'base64url').toString());
  const { generateKeyPairSync, sign } = await import('node:crypto');
  const foreign = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const resign = (h0: unknown, c0: unknown) => {
    const input = `${b64(h0)}.${b64(c0)}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: foreign.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
  const downgraded = resign(header, { ...claims, svc: { ...claims.svc, result: { ...claims.svc.result, status: 'UNVERIFIABLE', verified: false } } });
  const forged = await run(['attestation', 'verify', '--jwks', jwks, '--signature-only', downgraded]);
  t.equal(forged.code, 1, 'a token signed by a key outside the JWKS fails, --signature-only or not');
  t.match(forged.stderr, /signature verification failed/);
  const foreignJwks = join(dir, 'foreign.json');
  writeFileSync(foreignJwks, JSON.stringify({ keys: [{ ...foreign.publicKey.export({ format: 'jwk' }), kid: header.kid, alg: 'ES256', use: 'sig' }] }));
  const notVerified = await run(['attestation', 'verify', '--jwks', foreignJwks, downgraded]);
  t.equal(notVerified.code, 1, 'genuine but UNVERIFIABLE is not success');
  t.equal(JSON.parse(notVerified.stdout).valid, true);
  t.match(notVerified.stderr, /attests UNVERIFIABLE, not VERIFIED/);
  t.equal((await run(['attestation', 'verify', '--jwks', foreignJwks, '--signature-only', downgraded])).code, 0, '--signature-only');

  // the A2A key sits in the same JWKS: a token signed with it under the A2A kid does not pass as an attestation
  const a2aKid = identity.a2a.kid;
  const { createPrivateKey } = await import('node:crypto');
  const a2aKey = createPrivateKey(KEY_PEM);
  const input = `${b64({ ...header, kid: a2aKid })}.${b64(claims)}`;
  const crossKey = `${input}.${sign('sha256', Buffer.from(input), { key: a2aKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  const cross = await run(['attestation', 'verify', '--jwks', jwks, crossKey]);
  t.equal(cross.code, 1, 'the A2A key signs no attestation');
  t.match(cross.stderr, /does not belong to the issuer/);

  // an A2A verdict handed to the wrong command, both ways: each names the right one
  const verdict = await h.request('POST', '/a2a/intercept', { body: message({ payload_type: 'logic_assertion', payload: { assertions: [{ claim: 'a', negated: false }] } }), key: 'a-owner' });
  t.equal(verdict.status, 200, JSON.stringify(verdict.body));
  const wrong = await run(['attestation', 'verify', '--jwks', jwks, verdict.body.attestation_jwt]);
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, /A2A verdict, check it with `proofgate a2a verify-verdict`/);
  const payloadFile = join(dir, 'payload.json');
  writeFileSync(payloadFile, '{}');
  const wrongWay = await run(['a2a', 'verify-verdict', '--jwks', jwks, '--payload', payloadFile, verified.body.attestation]);
  t.equal(wrongWay.code, 1);
  t.match(wrongWay.stdout, /attestation token, not an A2A verdict: check it with `proofgate attestation verify`/);

  // hostile and mistaken input: said plainly, exit 2, nothing raw from node
  const missing = await run(['attestation', 'verify', '--jwks', join(dir, 'nope.json'), verified.body.attestation]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /JWKS file .*nope\.json does not exist/);
  t.notMatch(missing.stderr, /ENOENT/);
  const down = await run(['attestation', 'verify', '--jwks', 'http://127.0.0.1:9/.well-known/jwks.json', verified.body.attestation]);
  t.equal(down.code, 2, 'an unreachable JWKS decides nothing: exit 2, not 1');
  t.match(down.stderr, /the JWKS could not be had from http:\/\/127\.0\.0\.1:9\/.*is the service running there\?/);
  const insecure = await run(['attestation', 'verify', '--jwks', 'http://jwks.example/.well-known/jwks.json', verified.body.attestation]);
  t.equal(insecure.code, 2);
  t.match(insecure.stderr, /plain http to a host that is not loopback/);
  const notJwks = join(dir, 'not-jwks.json');
  writeFileSync(notJwks, '{"key": []}');
  t.match((await run(['attestation', 'verify', '--jwks', notJwks, verified.body.attestation])).stderr, /has no "keys" array/);
  const none = await run(['attestation', 'verify', '--jwks', jwks]);
  t.equal(none.code, 2);
  t.match(none.stderr, /give exactly one TOKEN or FILE \(got 0\)/);
  const unknownFlag = await run(['attestation', 'verify', '--jwk', jwks, verified.body.attestation]);
  t.equal(unknownFlag.code, 2);
  t.match(unknownFlag.stderr, /--jwk/);
  const alg = await run(['attestation', 'verify', '--jwks', jwks, `${b64({ alg: 'none', typ: 'svc-attestation+jwt', kid: header.kid })}.${body}.x`]);
  t.equal(alg.code, 1);
  t.match(alg.stderr, /alg "none" is not ES256/);
  const help = await run(['attestation', 'verify', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /Exit: 0 the token is genuine and attests VERIFIED/);
});
