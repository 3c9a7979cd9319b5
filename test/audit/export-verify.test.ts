import t from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain, type AuditFields } from '../../plugins/audit/index.js';
import type { CheckpointSigner } from '../../plugins/audit/checkpoint.js';
import { pruneAudit } from '../../plugins/audit/retention.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './fixtures/cli.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

/**
 * `proofgate audit verify --export FILE`, run as a child process with no store and no
 * configuration: the export file alone must say OK (exit 0), BROKEN at the first bad position
 * (exit 1), or that it cannot be verified (exit 2).
 */
const SECRET = TEST_SECRETS.audit_secret_key;
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'blocked',
  engine: 'math', http_status: 403, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

async function testSigner() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = await exportJWK(publicKey);
  const kid = 'did:svc:node:test#export';
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const signer: CheckpointSigner = {
    kid,
    publicJwk: { ...jwk, kid, alg: 'ES256', use: 'sig' },
    sign(typ, payload) {
      const input = `${b64({ alg: 'ES256', typ, kid })}.${b64(payload)}`;
      return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    },
  };
  return { signer, thumbprint: await calculateJwkThumbprint(jwk, 'sha256') };
}

// the CLI must not read a configuration for --export: this one does not exist, so loading it would exit 2
const NO_CONFIG = { SVC_CONFIG: '/nonexistent/proofgate.yaml' };
const cli = (...args: string[]) => runCli(['audit', 'verify', ...args], NO_CONFIG);

t.test('an export verifies offline; every kind of damage to it is BROKEN at its position', async (t) => {
  const dir = tempDir(t, 'pg-export-');
  const store = new LmdbStore(join(dir, 'data'), { codecs: AUDIT_CODECS });
  let clock = new Date('2026-01-01T00:00:00Z');
  const chain = new AuditChain(store, SECRET, 20, 512, () => clock);
  for (let i = 0; i < 6; i++) await chain.append('org_a', fields(i));
  clock = new Date('2026-01-20T00:00:00Z');
  await chain.append('org_a', fields(6));
  const { signer, thumbprint } = await testSigner();
  const exportDir = join(dir, 'export');
  t.equal(await pruneAudit({ store, chain, signer, secret: SECRET, log: pino({ level: 'silent' }), retentionDays: 7, exportDir, now: () => clock, batch: 3 }), 6);
  await store.close();
  const [first, second] = readdirSync(exportDir).sort().map((f) => join(exportDir, f));
  t.match(second, /audit-org_a-000000000003-000000000005\.jsonl$/);
  const keyFile = join(dir, 'hmac.key');
  writeFileSync(keyFile, `${SECRET}\n`);

  const ok = await cli('--export', first);
  t.equal(ok.code, 0, ok.stdout + ok.stderr);
  t.match(ok.stdout, /^OK: 3 entries of org=org_a \(seq 0\.\.2\) verified: hash chain from seq 0, .*NOT pinned.*HMACs not checked \(they need the key hk1:[0-9a-f]{32}: --hmac-key-file\)/);
  const full = await cli('--export', second, '--hmac-key-file', keyFile, '--pin', thumbprint);
  t.equal(full.code, 0, full.stdout + full.stderr);
  t.match(full.stdout, /^OK: 3 entries of org=org_a \(seq 3\.\.5\) verified: hash chain from the anchor checkpoint, .*pinned\); HMACs verified/);

  const lines = readFileSync(second, 'utf8').trim().split('\n');
  const variant = (name: string, edit: (l: string[]) => string[]) => {
    const p = join(dir, name);
    writeFileSync(p, edit([...lines]).join('\n') + '\n');
    return p;
  };
  const entryAt = (l: string[], i: number) => JSON.parse(l[i]) as Record<string, unknown>;
  const cases: Array<{ what: string; file: string; args?: string[]; out: RegExp }> = [
    {
      what: 'an entry rewritten (blocked → verified)',
      file: variant('edited', (l) => ((l[2] = JSON.stringify({ ...entryAt(l, 2), status: 'verified' })), l)),
      out: /^BROKEN org=org_a seq=4 line=3: payload hash mismatch/,
    },
    { what: 'an entry line removed', file: variant('gap', (l) => (l.splice(2, 1), l)), out: /^BROKEN org=org_a seq=4 line=3: entry 4 is missing \(found seq 5\)/ },
    { what: 'the last entry removed', file: variant('short', (l) => (l.splice(3, 1), l)), out: /^BROKEN org=org_a seq=5 .*ends at seq 4 but its header names seq 5/ },
    { what: 'the checkpoint removed', file: variant('nocp', (l) => l.slice(0, -1)), out: /^BROKEN org=org_a seq=5 .*without its closing checkpoint/ },
    {
      what: 'the anchor replaced by the final checkpoint (another seq)',
      file: variant('anchor', (l) => {
        const h = JSON.parse(l[0]);
        h.svc_audit_export.anchor = JSON.parse(l[l.length - 1]).svc_audit_checkpoint;
        l[0] = JSON.stringify(h);
        return l;
      }),
      out: /^BROKEN org=org_a seq=3 line=1: the anchor checkpoint is not the prune checkpoint of org_a at seq 2/,
    },
    {
      what: 'a forged HMAC, checked with the key',
      file: variant('hmac', (l) => ((l[1] = JSON.stringify({ ...entryAt(l, 1), hmac: 'f'.repeat(64) })), l)),
      args: ['--hmac-key-file', keyFile],
      out: /^BROKEN org=org_a seq=3 line=2: HMAC mismatch/,
    },
    { what: 'a checkpoint key that is not the pinned one', file: second, args: ['--pin', 'x'.repeat(43)], out: /^BROKEN org=org_a seq=3 line=1: the anchor checkpoint: checkpoint key .* is not pinned/ },
  ];
  for (const c of cases) {
    const r = await cli('--export', c.file, ...(c.args ?? []));
    t.equal(r.code, 1, `${c.what}: ${r.stdout}${r.stderr}`);
    t.match(r.stdout, c.out, c.what);
  }
  // what the file proves without the key, said plainly: a forged HMAC alone is not seen
  const noKey = await cli('--export', join(dir, 'hmac'));
  t.equal(noKey.code, 0);
  t.match(noKey.stdout, /HMACs not checked/);

  const wrongKey = join(dir, 'wrong.key');
  writeFileSync(wrongKey, 'not the key');
  const notExport = join(dir, 'plain.jsonl');
  writeFileSync(notExport, lines.slice(1, -1).join('\n') + '\n');
  for (const [what, args, err] of [
    ['a missing file', ['--export', join(dir, 'absent.jsonl')], /cannot read .*absent\.jsonl/],
    ['bare entries (an export of an earlier release)', ['--export', notExport], /no svc_audit_export header/],
    ['a key that is not the export\'s', ['--export', second, '--hmac-key-file', wrongKey], /not the one this export names/],
    ['an unreadable key file', ['--export', second, '--hmac-key-file', join(dir, 'absent.key')], /cannot read --hmac-key-file/],
    ['--hmac-key-file without --export', ['--hmac-key-file', keyFile], /goes with --export/],
  ] as const) {
    const r = await cli(...args);
    t.equal(r.code, 2, `${what}: ${r.stdout}${r.stderr}`);
    t.match(r.stderr, err, what);
  }
});
