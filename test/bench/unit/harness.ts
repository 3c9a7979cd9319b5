import t, { type Test } from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchEngine, repeatOption, type EngineAdapter } from '../../../bench/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The bench's method: one scored untimed pass, more untimed passes until the warm-up time is
// spent, then the timed passes; the engine's caches are dropped before every pass of either kind.
function corpus(t: Test): string {
  const dir = tempDir(t, 'pg-harness-');
  writeFileSync(join(dir, 'toy.jsonl'), ['{"id":"a","n":1,"tags":["one"]}', '{"id":"b","n":2,"tags":["two"]}', ''].join('\n'));
  return dir;
}

function adapter(log: string[]): EngineAdapter {
  let calls = 0;
  return {
    corpus: 'toy.jsonl',
    async setup() {
      log.push('setup');
    },
    reset() {
      log.push('reset');
    },
    async op(line: { n: number }) {
      calls++;
      log.push(`op${line.n}`);
      // the second line answers wrongly after its first call: scoring must use the first pass only
      return line.n === 2 && calls > 2 ? -1 : line.n;
    },
    judge(line: { n: number }, out: unknown) {
      return out === line.n ? 'correct' : 'wrong';
    },
  };
}

t.test('warm 0 is the corpus README method: one scored pass, then the timed passes', async (t) => {
  const log: string[] = [];
  const r = await benchEngine('toy', adapter(log), corpus(t), 2, 0);
  t.same(log, ['setup', 'reset', 'op1', 'op2', 'reset', 'op1', 'op2', 'reset', 'op1', 'op2']);
  t.equal(r.correct, 2);
  t.equal(r.wrong, 0);
  t.equal(r.warm_passes, 1);
  t.equal(r.passes, 2);
  t.equal(r.caching, 'none across passes');
  t.same(Object.keys(r.speed_by_tag).sort(), ['one', 'two']);
});

t.test('a warm-up redoes the work with caches dropped, and is not timed', async (t) => {
  const log: string[] = [];
  const r = await benchEngine('toy', adapter(log), corpus(t), 3, 0.05);
  t.ok(r.warm_passes > 1, `${r.warm_passes} untimed passes`);
  const passes = log.filter((x) => x === 'reset').length;
  t.equal(passes, r.warm_passes + 3, 'every pass, untimed or timed, starts with a reset');
  t.equal(log.filter((x) => x === 'op1').length, passes, 'every pass calls the engine for every line');
  t.equal(r.correct, 2, 'scored on the first pass');
});

t.test('--repeat and --warm', async (t) => {
  t.same(repeatOption(['code', '--repeat', '5', '--warm=0']), { passes: 5, warm: 0, rest: ['code'] });
  t.same(repeatOption([]), { passes: 3, warm: 3, rest: [] });
  t.throws(() => repeatOption(['--repeat', '0']), /--repeat needs a whole number ≥ 1/);
  t.throws(() => repeatOption(['--warm', 'x']), /--warm needs a whole number ≥ 0/);
});
