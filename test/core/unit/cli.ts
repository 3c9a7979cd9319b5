import t from 'tap';
import { defineCommand, UsageError } from '../../../core/cli.js';

/**
 * core/cli.ts defineCommand: what every command shares. Console output is captured per call; the
 * exit code is what the command returns.
 */
async function run(cmd: ReturnType<typeof defineCommand>, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  try {
    return { code: await cmd.run(argv), out: out.join('\n'), err: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
  }
}

const seen: Array<{ values: unknown; positionals: string[] }> = [];
const cmd = defineCommand({
  name: 'demo thing',
  summary: 'a demonstration',
  usage: 'proofgate demo thing FILE [--format F] [--quiet]',
  options: { format: { type: 'string', default: 'text' }, quiet: { type: 'boolean' } },
  positionals: { min: 1, max: 1, what: 'FILE' },
  async run({ values, positionals }) {
    seen.push({ values, positionals });
    if (values.format === 'bad') throw new UsageError('unknown --format bad');
    if (values.format === 'crash') throw new Error('disk on fire');
    return 0;
  },
});

t.test('help, parsing, positionals and usage errors are the same for every command', async (t) => {
  t.same(await run(cmd, ['--help']), { code: 0, out: 'proofgate demo thing FILE [--format F] [--quiet]', err: '' }, '--help prints the usage, exit 0');
  t.equal(seen.length, 0, 'and does not run the command');
  t.equal((await run(cmd, ['a.txt', '--quiet'])).code, 0);
  t.same(seen.pop(), { values: { format: 'text', quiet: true }, positionals: ['a.txt'] }, 'typed values with defaults');
  const typo = await run(cmd, ['a.txt', '--fromat', 'json']);
  t.equal(typo.code, 2, 'an unknown option is a usage error');
  t.match(typo.err, /^proofgate demo thing: Unknown option '--fromat' \(did you mean --format\?\)[\s\S]*proofgate demo thing FILE/, 'with a did-you-mean and the usage');
  const none = await run(cmd, []);
  t.equal(none.code, 2);
  t.match(none.err, /^proofgate demo thing: give exactly one FILE \(got 0\)/);
  t.match((await run(cmd, ['a', 'b'])).err, /give exactly one FILE \(got 2\)/);
  const bad = await run(cmd, ['a.txt', '--format', 'bad']);
  t.same(bad, { code: 2, out: '', err: 'proofgate demo thing: unknown --format bad' }, 'a UsageError thrown by the command: exit 2, one line');
  await t.rejects(run(cmd, ['a.txt', '--format', 'crash']), /disk on fire/, 'anything else propagates (the CLI prints it, exit 1)');
});

t.test('a command without positionals refuses one', async (t) => {
  const bare = defineCommand({ name: 'bare', summary: 's', usage: 'proofgate bare', options: {}, run: async () => 0 });
  const r = await run(bare, ['stray']);
  t.equal(r.code, 2);
  t.match(r.err, /^proofgate bare: takes no arguments \(got "stray"\)/);
});
