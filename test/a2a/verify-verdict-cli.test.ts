import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { nodeCommand } from '../helpers/child.js';
import { intercept, invoice, message, startA2AWithoutCode } from '../helpers/a2a.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 38: `proofgate a2a verify-verdict` run as a shell runs it. A validly signed `blocked`
 * verdict used to exit 0, which a script testing `$?` reads as "go ahead"; now only `forwarded`
 * exits 0, unless --signature-only asks about the signature alone.
 */
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(...nodeCommand([CLI, 'a2a', 'verify-verdict', ...args]), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

t.test('verify-verdict exits 0 only for a forwarded verdict unless --signature-only', async (t) => {
  const s = await startA2AWithoutCode();
  t.teardown(() => s.close());
  const dir = tempDir(t, 'a2a-verdict-cli-');
  const jwks = join(dir, 'jwks.json');
  writeFileSync(jwks, JSON.stringify((await s.request('GET', '/.well-known/jwks.json')).body));

  const good = invoice([{ description: 'x', amount: '3.50', quantity: 2 }], '7.00');
  const bad = invoice([{ description: 'x', amount: '3.50', quantity: 2 }], '70.00');
  const forwarded = await intercept(s, message({ payload_type: 'financial_transaction', payload: good }));
  const blocked = await intercept(s, message({ payload_type: 'financial_transaction', payload: bad }));
  t.equal(forwarded.body.status, 'forwarded');
  t.equal(blocked.body.status, 'blocked');
  const goodFile = join(dir, 'good.json');
  const badFile = join(dir, 'bad.json');
  writeFileSync(goodFile, JSON.stringify(good));
  writeFileSync(badFile, JSON.stringify(bad));

  const ok = await run(['--jwks', jwks, '--payload', goodFile, forwarded.body.attestation_jwt]);
  t.equal(ok.code, 0, ok.stderr);
  t.equal(JSON.parse(ok.stdout).claims.svc_a2a.verdict, 'forwarded');

  const no = await run(['--jwks', jwks, '--payload', badFile, blocked.body.attestation_jwt]);
  t.equal(no.code, 1, 'a genuine blocked verdict is not a success');
  t.equal(JSON.parse(no.stdout).valid, true, 'the signature itself is reported valid');
  t.match(no.stderr, /the verdict is "blocked", not "forwarded"/);
  t.equal(no.stderr.trim().split('\n').length, 1, 'one line on stderr');

  const sigOnly = await run(['--jwks', jwks, '--payload', badFile, '--signature-only', blocked.body.attestation_jwt]);
  t.equal(sigOnly.code, 0, '--signature-only: any validly signed verdict');
  t.equal(sigOnly.stderr, '');

  const forged = await run(['--jwks', jwks, '--payload', goodFile, '--signature-only', blocked.body.attestation_jwt]);
  t.equal(forged.code, 1, '--signature-only still checks the payload binding');

  // issue 43: a JWKS over plain http from a host that is not loopback could be anyone's keys
  const insecure = await run(['--jwks', 'http://gateway.example/.well-known/jwks.json', '--payload', goodFile, forwarded.body.attestation_jwt]);
  t.equal(insecure.code, 2, 'refused before anything is fetched');
  t.match(insecure.stderr, /plain http to a host that is not loopback: use https, a saved copy in a file, or --allow-insecure-http/);
  const byUrl = await run(['--jwks', `${s.url}/.well-known/jwks.json`, '--payload', goodFile, forwarded.body.attestation_jwt]);
  t.equal(byUrl.code, 0, `a loopback URL needs no opt-in: ${byUrl.stderr}`);
  const missing = await run(['--jwks', join(dir, 'none.json'), '--payload', goodFile, forwarded.body.attestation_jwt]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /JWKS file .*none\.json does not exist/);
  const noPayload = await run(['--jwks', jwks, forwarded.body.attestation_jwt]);
  t.equal(noPayload.code, 2);
  t.match(noPayload.stderr, /give --payload/);

  const help = await run(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--signature-only/);
  t.match(help.stdout, /Exits 0 when the token is valid and\s+its claims\.svc_a2a\.verdict is "forwarded"/);
});
