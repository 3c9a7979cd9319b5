import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadBootstrap } from '../../sidecar/provision/file.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { nodeCommand } from '../helpers/child.js';
import { keysNewCommand } from '../../sidecar/commands/keys.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = new URL('../../sidecar/cli.js', import.meta.url).pathname;
const dir = tempDir(t, 'pg-keys-new-');

function keysNew(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(...nodeCommand([CLI, 'keys', 'new', '--config', '/dev/null', ...args]), { env: { PATH: process.env.PATH, SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret }, cwd: dir }, (e, out, err) =>
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

// the lookup secret as the spawned runs get it, for the runs in this process (which start no server)
process.env.SVC_API_KEY_LOOKUP_SECRET = TEST_SECRETS.api_key_lookup_secret;

/**
 * The same run in this process: the first case of each test goes through the CLI process (exit
 * status, stdout, the secret from its environment), the others only vary the arguments, and a
 * process for each cost 0.35 s.
 */
async function keysNewHere(t: Test, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = t.capture(console, 'log');
  const err = t.capture(console, 'error');
  const text = (r: typeof out) => r().map((c) => c.args.join(' ') + '\n').join('');
  try {
    const code = await keysNewCommand.run(['--config', '/dev/null', ...args]);
    return { code, out: text(out), err: text(err) };
  } finally {
    out.restore();
    err.restore();
  }
}

/** the printed entry, pasted under an organisation's api_keys as the text output says */
function pasted(out: string): string {
  const entry = out.slice(out.indexOf('\n- id:') + 1);
  return `organizations:\n  - id: org_a\n    name: a\n    users: [{ id: usr_a, email: a@example.com }]\n    api_keys:\n${entry.replace(/^/gm, '      ')}\n`;
}

t.test('keys new prints an entry the bootstrap file reads back with the id it was given', async (t) => {
  for (const [i, id] of ['1e3', 'true', 'null', 'key_ok.1'].entries()) {
    const args = ['--id', id, '--name', 'a: b # c'];
    const r = i === 0 ? await keysNew(args) : await keysNewHere(t, args);
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
  for (const [i, [args, why]] of ([
    [['--id', 'key #1'], /entry \/id: must match pattern/],
    [['--id', 'a: b'], /entry \/id: must match pattern/],
    [['--name', 'x'.repeat(101)], /entry \/name: must NOT have more than 100 characters/],
  ] as const).entries()) {
    const r = i === 0 ? await keysNew([...args]) : await keysNewHere(t, [...args]);
    t.equal(r.code, 2, `${args.join(' ')} is a usage error`);
    t.match(r.err, why);
    t.equal(r.out, '', 'no key printed');
  }
});
