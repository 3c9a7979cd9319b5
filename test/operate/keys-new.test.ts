import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadBootstrap } from '../../sidecar/provision/file.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { nodeCommand } from '../helpers/child.js';

const CLI = new URL('../../sidecar/cli.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'pg-keys-new-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function keysNew(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(...nodeCommand([CLI, 'keys', 'new', '--config', '/dev/null', ...args]), { env: { PATH: process.env.PATH, SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret }, cwd: dir }, (e, out, err) =>
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

/** the printed entry, pasted under an organisation's api_keys as the text output says */
function pasted(out: string): string {
  const entry = out.slice(out.indexOf('\n- id:') + 1);
  return `organizations:\n  - id: org_a\n    name: a\n    users: [{ id: usr_a, email: a@example.com }]\n    api_keys:\n${entry.replace(/^/gm, '      ')}\n`;
}

t.test('keys new prints an entry the bootstrap file reads back with the id it was given', async (t) => {
  for (const id of ['1e3', 'true', 'null', 'key_ok.1']) {
    const r = await keysNew(['--id', id, '--name', 'a: b # c']);
    t.equal(r.code, 0, r.err);
    const file = join(dir, `b-${id}.yaml`);
    writeFileSync(file, pasted(r.out));
    const key = loadBootstrap(file, { mode: 'server', env: null }).organizations![0].api_keys![0];
    t.equal(key.id, id, `--id ${id} stays the string ${id}`);
    t.equal(key.name, 'a: b # c');
    t.same(parse(pasted(r.out)).organizations[0].api_keys.length, 1);
  }
});

t.test('keys new refuses an entry the bootstrap file would refuse or misread', async (t) => {
  for (const [args, why] of [
    [['--id', 'key #1'], /entry \/id: must match pattern/],
    [['--id', 'a: b'], /entry \/id: must match pattern/],
    [['--name', 'x'.repeat(101)], /entry \/name: must NOT have more than 100 characters/],
  ] as const) {
    const r = await keysNew([...args]);
    t.equal(r.code, 2, `${args.join(' ')} is a usage error`);
    t.match(r.err, why);
    t.equal(r.out, '', 'no key printed');
  }
});
